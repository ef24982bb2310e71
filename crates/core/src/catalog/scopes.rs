//! The OAuth scopes a set of tools needs, derived from their declarations: a sign-in asks for these and no
//! more, and a tool enabled later that needs another asks for just that one (incremental consent).

use super::{Scope, ToolMeta};

/// The fewest scopes `tools` need, in a stable order: each declared scope once, read-only when every tool
/// declaring it only reads.
pub fn needed<T: AsRef<ToolMeta>>(tools: &[T]) -> Vec<&'static str> {
    fewest(tools.iter().map(AsRef::as_ref))
}

/// The scopes of `needed` that `granted` does not cover, given that a wider scope covers a narrower one the
/// way Google's APIs accept them (`drive` covers `drive.readonly`, and Sheets and Docs reads).
pub fn missing<T: AsRef<ToolMeta>>(tools: &[T], granted: &[String]) -> Vec<&'static str> {
    fewest(tools.iter().map(AsRef::as_ref).filter(|meta| !meta.scope_granted(granted)))
}

/// The fewest scopes the tools `metas` need (see [`needed`]).
pub fn fewest<'a>(metas: impl Iterator<Item = &'a ToolMeta>) -> Vec<&'static str> {
    let mut scopes: Vec<(Scope, bool)> = Vec::new();
    for meta in metas {
        let Some(needed) = meta.scope else { continue };
        match scopes.iter_mut().find(|(scope, _)| *scope == needed) {
            Some((_, writes)) => *writes |= !meta.is_read_only(),
            None => scopes.push((needed, !meta.is_read_only())),
        }
    }
    let covered: Vec<Scope> = scopes
        .iter()
        .filter(|(scope, writes)| !writes && scope.read_covered_by().is_some_and(|by| scopes.contains(&(by, true))))
        .map(|(scope, _)| *scope)
        .collect();
    scopes.retain(|(scope, _)| !covered.contains(scope));
    scopes.sort();
    scopes.into_iter().map(|(scope, writes)| if writes { scope.url() } else { scope.read_only_url() }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::{ToolDef, all_tools};

    fn only(names: &[&str]) -> Vec<ToolDef> {
        all_tools().into_iter().filter(|tool| names.contains(&tool.meta.name)).collect()
    }

    #[test]
    fn every_tool_asks_for_each_product_once_and_in_full() {
        let scopes = needed(&all_tools());
        assert_eq!(
            scopes,
            [
                "https://www.googleapis.com/auth/spreadsheets",
                "https://www.googleapis.com/auth/documents",
                "https://www.googleapis.com/auth/drive",
                "https://www.googleapis.com/auth/drive.activity.readonly",
                "https://www.googleapis.com/auth/calendar",
                "https://www.googleapis.com/auth/gmail.modify",
            ]
        );
    }

    #[test]
    fn calendar_sharing_is_read_with_its_own_scope_unless_calendar_is_asked_in_full() {
        let scopes = needed(&only(&["list_events", "list_calendar_acl"]));
        assert_eq!(
            scopes,
            [
                "https://www.googleapis.com/auth/calendar.readonly",
                "https://www.googleapis.com/auth/calendar.acls.readonly"
            ]
        );
        let scopes = needed(&only(&["create_event", "list_calendar_acl"]));
        assert_eq!(scopes, ["https://www.googleapis.com/auth/calendar"]);
    }

    #[test]
    fn read_only_tools_ask_for_read_only_scopes() {
        let scopes = needed(&only(&["get_sheet_data", "list_sheets"]));
        assert_eq!(scopes, ["https://www.googleapis.com/auth/spreadsheets.readonly"]);
        let scopes = needed(&only(&["get_sheet_data", "update_cells"]));
        assert_eq!(scopes, ["https://www.googleapis.com/auth/spreadsheets"]);
    }

    #[test]
    fn only_the_scopes_not_yet_granted_are_missing() {
        let tools = only(&["get_sheet_data", "update_cells", "get_doc_content"]);
        let granted = vec!["https://www.googleapis.com/auth/spreadsheets.readonly".to_owned()];
        assert_eq!(
            missing(&tools, &granted),
            ["https://www.googleapis.com/auth/spreadsheets", "https://www.googleapis.com/auth/documents.readonly"]
        );
        let granted = vec!["https://www.googleapis.com/auth/drive".to_owned()];
        assert!(missing(&tools, &granted).is_empty(), "drive covers Sheets and Docs");
    }
}
