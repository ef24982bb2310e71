//! The approval setup of tests that are about something else (Sheets, Drive, sign-in): an administrator's
//! policy that allows every tool, unattended too, as a platform grant. Calls still pass through the real gate;
//! the rules themselves are tested in approval_rules.rs.

use gatehouse_core::approval::policy::Policy;
use gatehouse_core::engine::ApprovalSetup;

const ALLOW_EVERYTHING: &str = r#"
[[allow]]
tool = "*"
unattended = true
expires = "2100-01-01T00:00:00Z"
"#;

pub fn allow_everything() -> ApprovalSetup {
    let tools: Vec<&str> = gatehouse_core::tools::all_tools().iter().map(|tool| tool.meta.name).collect();
    let policy = Policy::parse(ALLOW_EVERYTHING, std::path::Path::new("tests/common/approvals.rs"), &tools)
        .expect("the test policy parses");
    ApprovalSetup { store: None, policy }
}

/// Plays a person who approves every card once, as it appears: the calls whose evaluators always ask
/// (`transfer_ownership`, a permanent `delete_file`) still go through the real broker.
pub fn approve_every_card(engine: &std::sync::Arc<gatehouse_core::Engine>) {
    use gatehouse_core::approval::broker::BrokerEvent;
    use gatehouse_core::approval::card::RawAnswer;
    let approvals = std::sync::Arc::clone(engine.approvals());
    let mut events = approvals.broker().subscribe();
    tokio::spawn(async move {
        loop {
            match events.recv().await {
                Ok(BrokerEvent::Added(card)) => {
                    let _ = approvals.broker().answer(card.id, RawAnswer::AllowOnce);
                }
                Ok(BrokerEvent::Removed(_) | BrokerEvent::Updated(_)) => {}
                Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {
                    for card in approvals.broker().pending() {
                        let _ = approvals.broker().answer(card.id, RawAnswer::AllowOnce);
                    }
                }
                Err(tokio::sync::broadcast::error::RecvError::Closed) => break,
            }
        }
    });
}
