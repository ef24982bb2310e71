//! The person's *never allow* rules: kept in the store with a snapshot in step with every write and with other
//! processes' writes, applied by the gate before any grant (only the signed-in account's, only until they
//! expire), and made, listed and removed through the control socket.

use std::sync::Arc;

use chrono::{DateTime, TimeDelta, TimeZone, Utc};
use gatehouse_core::approval::broker::PendingCard;
use gatehouse_core::approval::card::RawAnswer;
use gatehouse_core::approval::model::{AuditEntry, Caller, Constraint, DecisionSource};
use gatehouse_core::approval::policy::Policy;
use gatehouse_core::approval::store::{AuditQuery, DATABASE_FILE, NeverAllow, StoreError};
use gatehouse_core::approval::{Approvals, CallMeta, Permit};
use gatehouse_core::tools::{ToolDef, all_tools};
use serde_json::{Value, json};

const ADA: &str = "ada@example.com";

fn at(seconds: i64) -> DateTime<Utc> {
    Utc.timestamp_opt(1_800_000_000 + seconds, 123_456_789).unwrap()
}

fn rule(id: &str, tool: &str, created: DateTime<Utc>, expires: DateTime<Utc>) -> NeverAllow {
    NeverAllow {
        id: id.into(),
        owner_account: ADA.into(),
        tool: tool.into(),
        agent: None,
        constraint: None,
        created,
        expires,
        removed: None,
    }
}

fn ids(rules: &[NeverAllow]) -> Vec<&str> {
    rules.iter().map(|rule| rule.id.as_str()).collect()
}

#[tokio::test]
async fn rules_round_trip_and_the_snapshot_follows_every_write() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("home").join(DATABASE_FILE);
    let store = crate::support::open_store(&path).await.unwrap();
    assert!(store.never_allows().is_empty());
    assert!(store.list_never_allow().await.unwrap().is_empty());

    let n1 = rule("n1", "update_cells", at(0), at(86_400));
    let mut n2 = rule("n2", "delete_file", at(10), at(10 + 86_400));
    n2.agent = Some("nightly-report".into());
    n2.constraint = Some(Constraint { kind: "file".into(), value: "F1".into() });
    let n3 = rule("n3", "update_cells", at(20), at(20 + 3_650 * 86_400));
    for rule in [&n1, &n2, &n3] {
        store.add_never_allow(rule).await.unwrap();
    }
    assert_eq!(store.never_allows().as_ref(), [n1.clone(), n2.clone(), n3.clone()], "oldest first, whole");
    assert_eq!(store.list_never_allow().await.unwrap(), [n3.clone(), n2.clone(), n1.clone()], "newest first");
    assert_eq!(store.get_never_allow("n2").await.unwrap(), Some(n2.clone()));
    assert_eq!(store.get_never_allow("nope").await.unwrap(), None);

    // The same id again is refused, naming it and the file, and nothing changes.
    let error = store.add_never_allow(&rule("n1", "delete_file", at(30), at(40))).await.unwrap_err();
    assert!(matches!(error, StoreError::DuplicateNeverAllow { ref id, .. } if id == "n1"), "{error}");
    assert!(error.to_string().contains("n1") && error.to_string().contains(&path.display().to_string()));
    assert_eq!(ids(&store.never_allows()), ["n1", "n2", "n3"]);

    // A snapshot handed out before a write does not change under its reader.
    let before = store.never_allows();
    assert!(store.remove_never_allow("n1", at(300)).await.unwrap());
    assert_eq!(ids(&before), ["n1", "n2", "n3"]);
    assert_eq!(ids(&store.never_allows()), ["n2", "n3"]);
    assert!(!store.remove_never_allow("n1", at(301)).await.unwrap(), "already removed");
    assert!(!store.remove_never_allow("nope", at(301)).await.unwrap(), "no such rule");
    assert_eq!(store.get_never_allow("n1").await.unwrap().unwrap().removed, Some(at(300)));

    // A rule saved already removed is listed but never in the snapshot.
    let mut n4 = rule("n4", "update_cells", at(40), at(50));
    n4.removed = Some(at(41));
    store.add_never_allow(&n4).await.unwrap();
    assert_eq!(ids(&store.never_allows()), ["n2", "n3"]);
    assert_eq!(ids(&store.list_never_allow().await.unwrap()), ["n4", "n3", "n2", "n1"]);

    // Reopened, the snapshot is loaded again from the database.
    let listed = store.list_never_allow().await.unwrap();
    store.close().await;
    let store = crate::support::open_store(&path).await.unwrap();
    assert_eq!(store.list_never_allow().await.unwrap(), listed);
    assert_eq!(store.never_allows().as_ref(), [n2, n3]);
}

#[tokio::test]
async fn rules_added_or_removed_by_another_process_reach_this_ones_snapshot() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(DATABASE_FILE);
    let here = crate::support::open_store(&path).await.unwrap();
    // Another process: its own connections and its own snapshot of the same file.
    let elsewhere = crate::support::open_store(&path).await.unwrap();

    elsewhere.add_never_allow(&rule("n1", "update_cells", at(0), at(100))).await.unwrap();
    elsewhere.add_never_allow(&rule("n2", "delete_file", at(1), at(100))).await.unwrap();
    assert!(here.never_allows().is_empty(), "each process has its own snapshot");
    here.sync_index().await.unwrap();
    assert_eq!(ids(&here.never_allows()), ["n1", "n2"]);
    here.sync_index().await.unwrap();
    assert_eq!(ids(&here.never_allows()), ["n1", "n2"], "a second sync changes nothing");

    assert!(elsewhere.remove_never_allow("n1", at(5)).await.unwrap());
    assert_eq!(ids(&here.never_allows()), ["n1", "n2"]);
    here.sync_index().await.unwrap();
    assert_eq!(ids(&here.never_allows()), ["n2"]);

    // Told directly (as `gatehouse never remove` tells every server): already removed, still dropped.
    assert!(elsewhere.remove_never_allow("n2", at(6)).await.unwrap());
    assert!(!here.remove_never_allow("n2", at(7)).await.unwrap());
    assert!(here.never_allows().is_empty());
}

fn update_cells(tools: &[ToolDef]) -> ToolDef {
    tools.iter().find(|tool| tool.meta.name == "update_cells").cloned().unwrap()
}

fn cells(sheet: &str) -> Value {
    json!({ "spreadsheet_id": sheet, "sheet": "Sales", "range": "A1", "data": [["x"]] })
}

fn meta() -> CallMeta {
    CallMeta {
        caller: Caller {
            agent: Some(gatehouse_core::approval::model::Agent::self_reported("claude")),
            interactive: true,
        },
        retry_marked: false,
        request: None,
        origin: None,
    }
}

async fn wait_for_card(approvals: &Approvals) -> PendingCard {
    for _ in 0..400 {
        if let Some(card) = approvals.broker().pending().into_iter().next() {
            return card;
        }
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
    panic!("no card appeared");
}

#[tokio::test]
async fn a_never_allow_refuses_what_a_grant_covers_names_the_person_and_ends_when_it_expires() {
    let dir = tempfile::tempdir().unwrap();
    let store = crate::support::open_store(&dir.path().join(DATABASE_FILE)).await.unwrap();
    let tools = all_tools();
    let tool = update_cells(&tools);
    let now = Utc::now();
    // Ada's grant covers every update_cells call, from any assistant, for a week.
    let grant = crate::support::week_grant("g1", ADA, &tool, now);
    store.insert_grant(&grant).await.unwrap();
    let approvals = Arc::new(Approvals::new(Some(store.clone()), Policy::default(), &tools));
    let covered = Permit::Run { source: DecisionSource::Grant("g1".into()) };
    let permit = |sheet: &'static str| {
        let (approvals, tool) = (approvals.as_ref(), &tool);
        async move { approvals.permit(tool, &cells(sheet), &meta(), Some(ADA)).await }
    };
    assert_eq!(permit("S1").await, covered);

    // Rules that do not apply: expired, another account's, another assistant's, another tool's.
    let expired = rule("expired", "update_cells", now - TimeDelta::days(2), now - TimeDelta::seconds(1));
    let mut theirs = rule("theirs", "update_cells", now, now + TimeDelta::days(1));
    theirs.owner_account = "bob@example.com".into();
    let mut other_agent = rule("other-agent", "update_cells", now, now + TimeDelta::days(1));
    other_agent.agent = Some("nightly-report".into());
    let other_tool = rule("other-tool", "delete_file", now, now + TimeDelta::days(1));
    for rule in [&expired, &theirs, &other_agent, &other_tool] {
        store.add_never_allow(rule).await.unwrap();
    }
    assert_eq!(permit("S1").await, covered, "none of them applies");

    // Ada's own rule for update_cells refuses at once, before the grant, and says who forbade it and until when.
    let expires = now + TimeDelta::days(1);
    let mut mine = rule("mine", "update_cells", now, expires);
    mine.owner_account = "Ada@Example.COM".into();
    store.add_never_allow(&mine).await.unwrap();
    let Permit::Refuse { source, message } = permit("S1").await else { panic!("the never-allow did not refuse") };
    assert_eq!(source, DecisionSource::Deny("mine".into()));
    assert!(message.contains("update_cells was not run: the person chose never to allow it"), "{message}");
    assert!(message.contains(&format!("(until {})", expires.format("%Y-%m-%d %H:%M UTC"))), "{message}");
    assert!(approvals.broker().pending().is_empty(), "nobody was asked");
    // Signed in as someone else, Ada's rule (like her grant) does not apply: that call asks instead.
    let cy = tokio::spawn({
        let (approvals, tool) = (Arc::clone(&approvals), tool.clone());
        async move { approvals.permit(&tool, &cells("S3"), &meta(), Some("cy@example.com")).await }
    });
    let card = wait_for_card(&approvals).await;
    assert_eq!(card.tool, "update_cells");
    approvals.broker().answer(card.id, RawAnswer::Deny).unwrap();
    assert!(matches!(cy.await.unwrap(), Permit::Refuse { source: DecisionSource::Person, .. }));
    // And Bob's own rule applies to Bob.
    let bobs = approvals.permit(&tool, &cells("S4"), &meta(), Some("bob@example.com")).await;
    assert!(matches!(&bobs, Permit::Refuse { source: DecisionSource::Deny(rule), .. } if rule == "theirs"), "{bobs:?}");

    // Removed, the grant covers the call again.
    assert!(store.remove_never_allow("mine", Utc::now()).await.unwrap());
    assert_eq!(permit("S1").await, covered);

    // A rule limited to one spreadsheet refuses calls on it only.
    let mut one_sheet = rule("one-sheet", "update_cells", now, expires);
    one_sheet.constraint = Some(Constraint { kind: "spreadsheet".into(), value: "S1".into() });
    store.add_never_allow(&one_sheet).await.unwrap();
    assert!(
        matches!(permit("S1").await, Permit::Refuse { source: DecisionSource::Deny(rule), .. } if rule == "one-sheet")
    );
    assert_eq!(permit("S2").await, covered);
}

#[cfg(any(unix, windows))]
mod control {
    use std::path::Path;

    use gatehouse_core::config::Config;
    use gatehouse_core::control::protocol::FailureKind;
    use gatehouse_core::control::{Client, ControlError, ControlHandle};
    use gatehouse_core::engine::ApprovalSetup;
    use gatehouse_core::google::RetryPolicy;
    use gatehouse_core::google::auth::StaticToken;
    use gatehouse_core::{Engine, EngineOptions};
    use google_fake::{FakeGoogle, Identity};
    use tokio_util::sync::CancellationToken;

    use super::*;

    struct Setup {
        _google: FakeGoogle,
        home: tempfile::TempDir,
        engine: Arc<Engine>,
        _control: ControlHandle,
        sheet: String,
    }

    /// A real engine and control server; signed in as Ada, or (`signed_in = false`) as nobody.
    async fn setup(signed_in: bool) -> Setup {
        let google = FakeGoogle::start().await.unwrap();
        let home = tempfile::tempdir().unwrap();
        let sheet =
            google.world().create_spreadsheet("Budget", &[("Sales", vec![vec![json!("a")]])], &Identity::user(ADA));
        let store = crate::support::open_store(&home.path().join(DATABASE_FILE)).await.unwrap();
        let mut config = Config::with_home(home.path());
        config.google_endpoint = Some(google.url().parse().unwrap());
        let account = signed_in.then(|| ADA.to_owned());
        let engine = Engine::new(EngineOptions {
            config,
            tokens: Arc::new(StaticToken::new(google.issue_token(Identity::user(ADA)), account)),
            sandbox: false,
            retry: RetryPolicy::default(),
            approvals: ApprovalSetup { store: Some(store), policy: Policy::default() },
        })
        .unwrap();
        let control =
            gatehouse_core::control::serve(Arc::clone(&engine), home.path(), CancellationToken::new()).await.unwrap();
        Setup { _google: google, home, engine, _control: control, sheet }
    }

    async fn only_client(home: &Path) -> Client {
        let mut clients = Client::connect_all(home).await.unwrap();
        assert_eq!(clients.len(), 1, "one server runs");
        clients.remove(0)
    }

    fn failure(error: ControlError) -> (FailureKind, String) {
        match error {
            ControlError::Server { kind, message, .. } => (kind, message),
            other => panic!("not a refusal by the server: {other:?}"),
        }
    }

    #[tokio::test]
    async fn a_rule_made_through_the_socket_refuses_at_once_is_listed_and_removed() {
        let setup = setup(true).await;
        let mut client = only_client(setup.home.path()).await;
        assert!(client.never_list().await.unwrap().is_empty());

        // What can't be a rule is refused, saying why.
        let (kind, message) = failure(client.never_add("update_celss", None, 1, None).await.unwrap_err());
        assert_eq!(kind, FailureKind::Invalid);
        assert!(message.contains("no tool \"update_celss\""), "{message}");
        for days in [0, 3651] {
            let (kind, message) = failure(client.never_add("update_cells", None, days, None).await.unwrap_err());
            assert_eq!(kind, FailureKind::Invalid);
            assert!(message.contains(&format!("from 1 to 3650 days, not {days}")), "{message}");
        }
        let (kind, message) = failure(client.never_add("get_sheet_data", None, 1, None).await.unwrap_err());
        assert_eq!(kind, FailureKind::Invalid);
        assert!(message.contains("only reads"), "{message}");
        let folder = Constraint { kind: "folder".into(), value: "F1".into() };
        let (kind, _) = failure(client.never_add("update_cells", None, 1, Some(folder)).await.unwrap_err());
        assert_eq!(kind, FailureKind::Invalid);
        assert!(client.never_list().await.unwrap().is_empty(), "nothing was kept");

        // A rule for the signed-in account, for one day.
        let before = Utc::now();
        let rule = client.never_add("update_cells", None, 1, None).await.unwrap();
        assert_eq!(
            (rule.owner_account.as_str(), rule.tool.as_str(), rule.agent.as_deref()),
            (ADA, "update_cells", None)
        );
        assert!(rule.expires >= before + TimeDelta::days(1) && rule.expires <= Utc::now() + TimeDelta::days(1));
        assert_eq!(client.never_list().await.unwrap(), std::slice::from_ref(&rule));

        // The next write is refused without a card, and the audit records the rule.
        let Value::Object(arguments) = cells(&setup.sheet) else { unreachable!() };
        let reply = setup.engine.call("update_cells", Some(arguments.clone())).await.unwrap();
        assert!(reply.is_error && reply.text.contains("never to allow"), "{}", reply.text);
        assert!(setup.engine.approvals().broker().pending().is_empty());
        let store = setup.engine.approvals().store().unwrap();
        let records = store.list_audit(&AuditQuery::default()).await.unwrap();
        let AuditEntry { source, .. } = &records[0].entry;
        assert_eq!(source, &DecisionSource::Deny(rule.id.clone()));

        // Removed: the server forgets it at once; a second removal says it was already removed.
        let removed = client.never_remove(&rule.id).await.unwrap();
        assert!(removed.changed);
        assert!(removed.rule.as_ref().is_some_and(|rule| rule.removed.is_some()), "{removed:?}");
        assert!(store.never_allows().is_empty());
        let again = client.never_remove(&rule.id).await.unwrap();
        assert!(!again.changed && again.rule.is_some());
        let missing = client.never_remove("nope").await.unwrap();
        assert!(!missing.changed && missing.rule.is_none());
    }

    #[tokio::test]
    async fn with_nobody_signed_in_no_rule_is_made() {
        let setup = setup(false).await;
        let mut client = only_client(setup.home.path()).await;
        let (kind, message) = failure(client.never_add("update_cells", None, 1, None).await.unwrap_err());
        assert_eq!(kind, FailureKind::NotSignedIn);
        assert!(message.contains("Nobody is signed in"), "{message}");
        assert!(client.never_list().await.unwrap().is_empty());
    }
}
