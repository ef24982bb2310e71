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
