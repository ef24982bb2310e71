//! Which Google products a sign-in asks for. Google's consent page lists every permission asked, and a person
//! who came to let assistants work in their spreadsheets should not be asked for their mail. So a shell offers
//! the products of the enabled tools as choices, and the sign-in asks only for the scopes of the chosen ones'
//! tools; the tools of a product left out are listed under `missing_scopes` in `server://auth-status`, with how
//! to allow them later.
//!
//! A product is a permission on Google's consent page (its scope, and the narrower scopes that go with it):
//! derived from the tools' own declarations ([`ToolMeta::scope`]), so a new tool is offered under the product
//! whose permission it needs, without a change here.

use serde::Serialize;

use crate::catalog::{Scope, Service, ToolMeta};

/// One Google product a sign-in may ask for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Product {
    /// Its key, as tool sets spell it (`sheets`): what a shell sends back.
    pub key: String,
    /// Its name for people ("Google Sheets").
    pub name: &'static str,
    /// What allowing it lets assistants do, in plain words.
    pub allows: &'static str,
    /// Whether the account signed in now already allowed every scope its enabled tools need.
    pub granted: bool,
    /// Whether to offer it ticked: granted already, or one of the products Gatehouse is for (Sheets, Docs,
    /// Drive). Mail and calendars are asked for only when the person ticks them.
    pub suggested: bool,
}

/// Why a choice of products can't be signed in for.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProductChoiceError {
    #[error("Choose at least one Google product for your assistants to use, then sign in.")]
    NoneChosen,
    #[error("\"{key}\" is not a Google product Gatehouse's enabled tools use. Choose among: {offered}.")]
    Unknown { key: String, offered: String },
}

/// The order products are offered in: Gatehouse's own first, as the app names them ("Sheets, Docs and Drive").
const ORDER: [Service; 6] =
    [Service::Sheets, Service::Docs, Service::Drive, Service::Slides, Service::Calendar, Service::Gmail];

/// The products whose permissions the enabled `tools` need, in a stable order, for an account that was granted
/// `granted` (`None`: nobody signed in).
pub fn offered<T: AsRef<ToolMeta>>(tools: &[T], granted: Option<&[String]>) -> Vec<Product> {
    ORDER
        .into_iter()
        .filter(|product| of(tools, *product).next().is_some())
        .map(|product| {
            let granted = granted.is_some_and(|granted| of(tools, product).all(|meta| meta.scope_granted(granted)));
            let writes = of(tools, product).any(|meta| !meta.is_read_only());
            let (name, allows) = words(product, writes);
            let core = matches!(product, Service::Sheets | Service::Docs | Service::Drive);
            Product { key: product.key(), name, allows, granted, suggested: granted || core }
        })
        .collect()
}

/// The enabled `tools` whose permissions belong to the products `keys` chose, for the sign-in to ask their
/// scopes; an error naming what was wrong when nothing or an unknown product was chosen.
pub fn chosen<T: AsRef<ToolMeta> + Clone>(tools: &[T], keys: &[String]) -> Result<Vec<T>, ProductChoiceError> {
    let products = offered(tools, None);
    if let Some(unknown) = keys.iter().find(|key| !products.iter().any(|product| &product.key == *key)) {
        let offered = products.iter().map(|product| product.key.as_str()).collect::<Vec<_>>().join(", ");
        return Err(ProductChoiceError::Unknown { key: unknown.clone(), offered });
    }
    let picked: Vec<T> = tools
        .iter()
        .filter(|tool| product_of(tool.as_ref()).is_some_and(|product| keys.contains(&product.key())))
        .cloned()
        .collect();
    if picked.is_empty() {
        return Err(ProductChoiceError::NoneChosen);
    }
    Ok(picked)
}

/// The product whose permission a tool's Google calls need: the one Google's consent page names for its scope
/// (listing spreadsheets is a Drive search, so it needs Drive). `None` for a tool that calls no Google API.
fn product_of(meta: &ToolMeta) -> Option<Service> {
    meta.scope.map(|scope| match scope {
        Scope::Sheets => Service::Sheets,
        Scope::Docs => Service::Docs,
        Scope::Slides => Service::Slides,
        Scope::Drive | Scope::DriveActivity => Service::Drive,
        Scope::Calendar | Scope::CalendarAcl => Service::Calendar,
        Scope::Gmail => Service::Gmail,
    })
}

fn of<T: AsRef<ToolMeta>>(tools: &[T], product: Service) -> impl Iterator<Item = &ToolMeta> {
    tools.iter().map(AsRef::as_ref).filter(move |meta| product_of(meta) == Some(product))
}

/// A product's name and what allowing it lets assistants do: only read, when none of its enabled tools writes
/// (the sign-in then asks for its read-only scope).
const fn words(product: Service, writes: bool) -> (&'static str, &'static str) {
    match (product, writes) {
        (Service::Sheets, true) => ("Google Sheets", "read and change your spreadsheets"),
        (Service::Sheets, false) => ("Google Sheets", "read your spreadsheets"),
        (Service::Docs, true) => ("Google Docs", "read and change your documents"),
        (Service::Docs, false) => ("Google Docs", "read your documents"),
        (Service::Drive, true) => ("Google Drive", "find, read, upload, share and organize your files"),
        (Service::Drive, false) => ("Google Drive", "find and read your files"),
        (Service::Slides, true) => ("Google Slides", "read and change your presentations"),
        (Service::Slides, false) => ("Google Slides", "read your presentations"),
        (Service::Calendar, true) => ("Google Calendar", "read and change your calendars and events"),
        (Service::Calendar, false) => ("Google Calendar", "read your calendars and events"),
        (Service::Gmail, true) => ("Gmail", "read, draft, send and label your email"),
        (Service::Gmail, false) => ("Gmail", "read your email"),
        // Never offered: the cache calls no Google API.
        (Service::Cache, _) => ("Gatehouse's cache", "nothing at Google"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::{ToolDef, all_tools, scopes};

    fn keys(products: &[Product]) -> Vec<&str> {
        products.iter().map(|product| product.key.as_str()).collect()
    }

    #[test]
    fn every_product_of_the_catalogue_is_offered_and_mail_and_calendars_are_not_suggested() {
        let products = offered(&all_tools(), None);
        assert_eq!(keys(&products), ["sheets", "docs", "drive", "calendar", "gmail"]);
        let suggested: Vec<&str> =
            products.iter().filter(|product| product.suggested).map(|product| product.key.as_str()).collect();
        assert_eq!(suggested, ["sheets", "docs", "drive"]);
        assert!(products.iter().all(|product| !product.granted));
    }

    #[test]
    fn only_the_products_of_enabled_tools_are_offered() {
        let tools: Vec<ToolDef> = all_tools().into_iter().filter(|tool| tool.meta.service == Service::Gmail).collect();
        assert_eq!(keys(&offered(&tools, None)), ["gmail"]);
    }

    #[test]
    fn a_product_whose_enabled_tools_only_read_says_so() {
        let tools: Vec<ToolDef> = all_tools().into_iter().filter(|tool| tool.meta.name == "get_sheet_data").collect();
        let products = offered(&tools, None);
        assert_eq!(products.len(), 1);
        assert_eq!((products[0].name, products[0].allows), ("Google Sheets", "read your spreadsheets"));
    }

    #[test]
    fn a_product_already_granted_is_suggested_and_marked() {
        let granted = vec!["https://www.googleapis.com/auth/gmail.modify".to_owned()];
        let products = offered(&all_tools(), Some(&granted));
        let gmail = products.iter().find(|product| product.key == "gmail").expect("gmail");
        assert!(gmail.granted && gmail.suggested);
        let calendar = products.iter().find(|product| product.key == "calendar").expect("calendar");
        assert!(!calendar.granted && !calendar.suggested);
    }

    #[test]
    fn a_choice_asks_only_for_its_products_scopes() {
        let picked = chosen(&all_tools(), &["sheets".into(), "docs".into()]).expect("a choice");
        assert_eq!(
            scopes::needed(&picked),
            ["https://www.googleapis.com/auth/spreadsheets", "https://www.googleapis.com/auth/documents"]
        );
    }

    #[test]
    fn an_empty_or_unknown_choice_says_what_to_do() {
        assert_eq!(chosen(&all_tools(), &[]).err(), Some(ProductChoiceError::NoneChosen));
        let Err(unknown) = chosen(&all_tools(), &["photos".into()]) else { panic!("an unknown product was accepted") };
        assert_eq!(
            unknown.to_string(),
            "\"photos\" is not a Google product Gatehouse's enabled tools use. Choose among: sheets, docs, drive, calendar, gmail."
        );
    }
}
