//! Properties of the whole answering path, through the real gate, broker and SQLite store: whatever sequence
//! of answers arrives (valid, invalid, repeated, garbage), no grant ever has a field its card did not offer,
//! and no grant made from a card is ever `unattended`.

use std::sync::Arc;
use std::time::Duration;

use chrono::TimeDelta;
use gatehouse_core::approval::broker::PendingCard;
use gatehouse_core::approval::card::{RawAnswer, RawChoice};
use gatehouse_core::approval::fingerprint::fingerprint;
use gatehouse_core::approval::model::{Caller, Owner};
use gatehouse_core::approval::policy::Policy;
use gatehouse_core::approval::{Approvals, CallMeta};
use gatehouse_core::tools::{ToolDef, all_tools};
use proptest::prelude::*;
use serde_json::{Value, json};

const ACCOUNT: &str = "ada@example.com";

/// One call and the answers that arrive for its card (the first one that is taken wins).
#[derive(Debug, Clone)]
struct Step {
    tool: &'static str,
    agent: Option<&'static str>,
    spreadsheet: u8,
    answers: Vec<RawAnswer>,
}

fn word() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("AGENT".to_owned()),
        Just("TOOL".to_owned()),
        Just("CONSTRAINED".to_owned()),
        Just("ANY".to_owned()),
        Just("agent".to_owned()),
        Just(String::new()),
        "[A-Za-z ]{0,8}",
    ]
}

fn days() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("1".to_owned()),
        Just("7".to_owned()),
        Just("30".to_owned()),
        Just("90".to_owned()),
        Just("0".to_owned()),
        Just("07".to_owned()),
        Just("-1".to_owned()),
        "[0-9]{1,4}",
    ]
}

fn answer() -> impl Strategy<Value = RawAnswer> {
    prop_oneof![
        1 => Just(RawAnswer::AllowOnce),
        1 => Just(RawAnswer::Deny),
        4 => (word(), days(), word()).prop_map(|(scope, days, limit)| RawAnswer::Always(RawChoice { scope, days, limit })),
    ]
}

fn step() -> impl Strategy<Value = Step> {
    (
        prop_oneof![Just("update_cells"), Just("create_sheet"), Just("share_file"), Just("transfer_ownership")],
        prop_oneof![Just(None), Just(Some("claude")), Just(Some("cursor"))],
        0u8..3,
        prop::collection::vec(answer(), 1..3),
    )
        .prop_map(|(tool, agent, spreadsheet, answers)| Step { tool, agent, spreadsheet, answers })
}

fn arguments(step: &Step) -> Value {
    let id = format!("sheet-{}", step.spreadsheet);
    match step.tool {
        "update_cells" => json!({ "spreadsheet_id": id, "sheet": "S", "range": "A1", "data": [["x"]] }),
        "create_sheet" => json!({ "spreadsheet_id": id, "title": "New" }),
        "share_file" => {
            json!({ "file_id": id, "permissions": [{ "type": "user", "role": "reader", "email_address": "bo@example.com" }] })
        }
        _ => json!({ "file_id": id, "new_owner_email": "bo@example.com" }),
    }
}

/// Runs the steps through a fresh gate and store; returns each card and the store's grants afterwards.
async fn run(steps: &[Step]) -> (Vec<(Step, PendingCard)>, Vec<gatehouse_core::approval::model::Grant>) {
    let dir = tempfile::tempdir().unwrap();
    let store = crate::support::open_store(&dir.path().join("gatehouse.db")).await.unwrap();
    let tools = all_tools();
    let approvals = Arc::new(Approvals::new(Some(store.clone()), Policy::default(), &tools));
    let mut cards = Vec::new();
    for step in steps {
        let tool: ToolDef = tools.iter().find(|tool| tool.meta.name == step.tool).cloned().unwrap();
        let meta = CallMeta {
            caller: Caller {
                agent: step.agent.map(gatehouse_core::approval::model::Agent::self_reported),
                interactive: true,
            },
            retry_marked: false,
            request: None,
            origin: None,
        };
        let args = arguments(step);
        let call = tokio::spawn({
            let approvals = approvals.clone();
            async move { approvals.permit(&tool, &args, &meta, Some(ACCOUNT)).await }
        });
        // A covered call never shows a card; otherwise answer it with every answer of the step.
        let mut card = None;
        for _ in 0..400 {
            if call.is_finished() {
                break;
            }
            if let Some(pending) = approvals.broker().pending().into_iter().next() {
                card = Some(pending);
                break;
            }
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        if let Some(card) = card {
            for answer in &step.answers {
                let _ = approvals.broker().answer(card.id, answer.clone());
            }
            cards.push((step.clone(), card));
        }
        call.await.unwrap();
    }
    let grants = store.list_grants().await.unwrap();
    (cards, grants)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn no_sequence_of_answers_creates_a_grant_the_card_did_not_offer(steps in prop::collection::vec(step(), 1..6)) {
        let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
        let (cards, grants) = runtime.block_on(run(&steps));
        let tools = all_tools();
        for grant in &grants {
            prop_assert!(!grant.unattended, "a card made an unattended grant: {grant:?}");
            prop_assert_eq!(&grant.owner, &Owner::User(ACCOUNT.to_owned()));
            // The card this grant came from: the one whose call it carries.
            let offered = cards.iter().any(|(step, card)| {
                let tool = tools.iter().find(|tool| tool.meta.name == step.tool).unwrap();
                let offer = &card.offer;
                let days = (grant.expires.unwrap() - grant.created).num_days();
                offer.grantable
                    && grant.tool == step.tool
                    && grant.fingerprint == fingerprint(tool)
                    && (grant.agent.is_none() || grant.agent.as_ref().map(|agent| agent.name.as_str()) == step.agent)
                    && (grant.agent.is_none() || offer.agent.is_some())
                    && match (&grant.constraint, &offer.constraint) {
                        (None, _) => true,
                        (Some(constraint), Some(offered)) => *constraint == offered.constraint,
                        (Some(_), None) => false,
                    }
                    && grant.expires.unwrap() - grant.created == TimeDelta::days(days)
                    && offer.durations.contains(&u32::try_from(days).unwrap_or(0))
            });
            prop_assert!(offered, "no card offered {grant:?}; cards: {cards:?}");
        }
        // Never more grants than cards answered with a valid Always.
        prop_assert!(grants.len() <= cards.len());
    }
}

/// The property above is not vacuous: a valid *Always allow* does make the grant it describes, and later
/// answers to the same card change nothing.
#[tokio::test]
async fn a_valid_always_answer_makes_exactly_the_offered_grant() {
    let always = |scope: &str, days: &str, limit: &str| {
        RawAnswer::Always(RawChoice { scope: scope.into(), days: days.into(), limit: limit.into() })
    };
    let step = Step {
        tool: "update_cells",
        agent: Some("claude"),
        spreadsheet: 1,
        answers: vec![always("AGENT", "7", "CONSTRAINED"), always("TOOL", "30", "ANY")],
    };
    let (cards, grants) = run(&[step]).await;
    assert_eq!(cards.len(), 1);
    let [grant] = grants.as_slice() else { panic!("one grant: {grants:?}") };
    assert_eq!(
        grant.agent,
        Some(gatehouse_core::approval::model::Agent::self_reported("claude")),
        "the identity the card was for"
    );
    assert_eq!(grant.constraint.as_ref().map(|c| c.value.as_str()), Some("sheet-1"));
    assert_eq!(grant.expires.unwrap() - grant.created, TimeDelta::days(7));
    assert!(!grant.unattended);
}
