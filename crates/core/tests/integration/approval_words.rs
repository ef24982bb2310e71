//! A standing approval's limit reads like the card that offered it: by the name of what it limits to when
//! that name can be found, by its id otherwise.

use std::sync::Arc;

use futures::future::BoxFuture;
use gatehouse_core::approval::Approvals;
use gatehouse_core::approval::gate::TargetNames;
use gatehouse_core::approval::model::Constraint;
use gatehouse_core::approval::policy::Policy;
use gatehouse_core::tools::all_tools;

/// Knows one file's name, as Drive would answer for it.
struct OneName;

impl TargetNames for OneName {
    fn name<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Option<String>> {
        Box::pin(async move { (id == "sheet-1").then(|| "Budget 2026".to_owned()) })
    }
}

fn spreadsheet(id: &str) -> Constraint {
    Constraint { kind: "spreadsheet".into(), value: id.into() }
}

#[tokio::test]
async fn a_limit_is_said_by_the_name_of_its_target_when_it_is_found() {
    let approvals = Approvals::new(None, Policy::default(), &all_tools()).with_target_names(Arc::new(OneName));
    let named = approvals.limit_words(Some(&spreadsheet("sheet-1"))).await;
    assert!(named.starts_with("only this spreadsheet") && named.ends_with(": “Budget 2026”"), "{named}");

    let unknown = approvals.limit_words(Some(&spreadsheet("sheet-2"))).await;
    assert!(unknown.starts_with("only this spreadsheet") && !unknown.contains('“'), "{unknown}");
    assert_eq!(approvals.limit_words(None).await, "any arguments");
}

#[tokio::test]
async fn without_a_way_to_look_names_up_the_limit_is_said_by_id() {
    let approvals = Approvals::new(None, Policy::default(), &all_tools());
    let words = approvals.limit_words(Some(&spreadsheet("sheet-1"))).await;
    assert!(words.starts_with("only this spreadsheet") && !words.contains("Budget"), "{words}");
}
