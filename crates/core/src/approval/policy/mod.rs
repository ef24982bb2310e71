//! The administrator's policy file (docs/approvals.md, "Policy file"): platform grants, deny rules, the tools
//! that always ask, and the limits a card and the wait for an answer obey.
//!
//! A policy is only ever built by [`Policy::parse`] (or is the default, "no file"), so every value in it has
//! been checked: a malformed file stops Gatehouse at start with the line and the reason, never silently.

mod load;
mod parse;

use std::time::Duration;

use chrono::{DateTime, Utc};

use super::model::{Constraint, Grant, Owner};

pub use load::{LoadedPolicy, POLICY_FILE_VARIABLE, PolicyFile, PolicyFileRole, admin_policy_path};
pub use parse::PolicyError;

/// The longest grant a card may offer when the file does not say (`max_days`).
pub const DEFAULT_MAX_DAYS: u32 = 90;
/// How long a card waits for the person when the file does not say (`approval_timeout_secs`).
pub const DEFAULT_APPROVAL_TIMEOUT: Duration = Duration::from_secs(120);
/// The longest `approval_timeout_secs` accepted: a call left waiting longer than a day is a mistake, and a
/// bound keeps every deadline computed from it representable.
pub const MAX_APPROVAL_TIMEOUT_SECS: u64 = 24 * 60 * 60;
/// The `tool` (or `always_ask` entry) that stands for every tool.
pub const EVERY_TOOL: &str = "*";
/// What every platform grant's id starts with, so the audit log and the settings window can tell them from
/// a person's grants (which have UUID ids).
pub const PLATFORM_GRANT_PREFIX: &str = "policy:";

/// The administrator's rules. `Policy::default()` is what applies when there is no policy file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Policy {
    max_days: u32,
    approval_timeout: Duration,
    gate_reads: bool,
    always_ask: Vec<String>,
    allow: Vec<AllowRule>,
    deny: Vec<DenyRule>,
    /// Whether the file itself sets `approval_timeout_secs`: then it is the longest wait the person may choose.
    timeout_in_file: bool,
    /// Whether the file sets `max_days`, and what it sets `gate_reads` to: what a second file may tighten.
    max_days_in_file: bool,
    gate_reads_in_file: Option<bool>,
    /// The person's own choices (the settings window), which apply only within the administrator's.
    person: PersonChoices,
}

/// What the person chose for themselves in the settings window (see [`Policy::with_person`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct PersonChoices {
    gate_reads: bool,
    approval_timeout: Option<Duration>,
}

impl Default for Policy {
    fn default() -> Self {
        Policy {
            max_days: DEFAULT_MAX_DAYS,
            approval_timeout: DEFAULT_APPROVAL_TIMEOUT,
            gate_reads: false,
            always_ask: Vec::new(),
            allow: Vec::new(),
            deny: Vec::new(),
            timeout_in_file: false,
            max_days_in_file: false,
            gate_reads_in_file: None,
            person: PersonChoices::default(),
        }
    }
}

/// An `[[allow]]` entry: a platform grant for one tool or, with `tool = "*"`, for every tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AllowRule {
    /// The optional `name` from the file; without one the rule is called `allow[<index>]`.
    pub name: Option<String>,
    /// The rule's position among the `[[allow]]` entries, counted from 0.
    pub index: usize,
    /// A tool's name, or [`EVERY_TOOL`].
    pub tool: String,
    /// `None` = any agent. `agent = "x"` is the registered assistant x (known by its HTTP token); only
    /// with `agent_self_reported = true` is it a client that says it is x over stdio, which anyone can say.
    pub agent: Option<crate::approval::model::Agent>,
    /// `None` = any arguments; otherwise checked by the tool's evaluator.
    pub constraint: Option<Constraint>,
    /// Also covers unattended calls.
    pub unattended: bool,
    /// Required: a platform grant without an end is not accepted.
    pub expires: DateTime<Utc>,
}

/// A `[[deny]]` entry: refuses matching calls before any grant is looked at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DenyRule {
    /// The optional `name` from the file; without one the rule is called `deny[<index>]`.
    pub name: Option<String>,
    /// The rule's position among the `[[deny]]` entries, counted from 0.
    pub index: usize,
    /// A tool's name, or [`EVERY_TOOL`].
    pub tool: String,
    /// `None` = any agent.
    pub agent: Option<String>,
    /// `None` = any arguments. Not checked by [`DenyRule::matches`]: only the tool's evaluator can say
    /// whether arguments satisfy it, so the decision asks it.
    pub constraint: Option<Constraint>,
    /// `None` = for good.
    pub expires: Option<DateTime<Utc>>,
}

impl AllowRule {
    /// The rule's name in the audit log (`policy:<name>`) and in error messages.
    pub fn rule_name(&self) -> String {
        self.name.clone().unwrap_or_else(|| format!("allow[{}]", self.index))
    }

    /// Whether the rule covers `tool` (its own name or every tool).
    pub fn covers_tool(&self, tool: &str) -> bool {
        self.tool == EVERY_TOOL || self.tool == tool
    }
}

impl DenyRule {
    /// The rule's name in the audit log (`deny:<name>`) and in refusal messages.
    pub fn rule_name(&self) -> String {
        self.name.clone().unwrap_or_else(|| format!("deny[{}]", self.index))
    }

    /// Whether the rule refuses a call of `tool` by `agent` at `now`, leaving its constraint aside (see
    /// [`DenyRule::constraint`]): same tool or every tool, its agent absent or equal to the caller's (an
    /// unknown caller matches only a rule for any agent), and `now` strictly before its expiry if any.
    pub fn matches(&self, tool: &str, agent: Option<&str>, now: DateTime<Utc>) -> bool {
        let tool_matches = self.tool == EVERY_TOOL || self.tool == tool;
        let agent_matches = match &self.agent {
            None => true,
            Some(rule_agent) => agent == Some(rule_agent.as_str()),
        };
        let in_force = self.expires.is_none_or(|expires| now < expires);
        tool_matches && agent_matches && in_force
    }
}

impl Policy {
    /// The longest grant, in days, a card may offer (at least 1).
    pub fn max_days(&self) -> u32 {
        self.max_days
    }

    /// How long a card waits for the person before the call counts as not approved (above zero): the person's
    /// choice when they made one within the administrator's limit, else the file's value or the default.
    pub fn approval_timeout(&self) -> Duration {
        match self.person.approval_timeout {
            Some(chosen) if !self.timeout_in_file || chosen <= self.approval_timeout => chosen,
            _ => self.approval_timeout,
        }
    }

    /// Whether reads are gated too, for every tool: when the administrator or the person asks for it.
    pub fn gate_reads(&self) -> bool {
        self.gate_reads || self.person.gate_reads
    }

    /// Whether the administrator's file turns read gating on (the person can't turn it off then).
    pub fn admin_gate_reads(&self) -> bool {
        self.gate_reads
    }

    /// The `approval_timeout_secs` of the administrator's file, when it sets one: the longest wait the person
    /// may choose.
    pub fn admin_approval_timeout(&self) -> Option<Duration> {
        self.timeout_in_file.then_some(self.approval_timeout)
    }

    /// This policy with the person's own choices from the settings window applied under it: reads gated when
    /// either asks for it, and the person's wait for an answer unless it is longer than the administrator's.
    pub fn with_person(mut self, gate_reads: bool, approval_timeout: Option<Duration>) -> Policy {
        self.person = PersonChoices { gate_reads, approval_timeout };
        self
    }

    /// The `always_ask` list as written (a tool's name, or [`EVERY_TOOL`]).
    pub fn always_ask(&self) -> &[String] {
        &self.always_ask
    }

    /// The `[[allow]]` rules in file order.
    pub fn allow_rules(&self) -> &[AllowRule] {
        &self.allow
    }

    /// The `[[deny]]` rules in file order.
    pub fn deny_rules(&self) -> &[DenyRule] {
        &self.deny
    }

    /// Whether the administrator wants `tool` asked about every time (no *Always allow* on its card).
    pub fn is_always_ask(&self, tool: &str) -> bool {
        self.always_ask.iter().any(|entry| entry == EVERY_TOOL || entry == tool)
    }

    /// The deny rules that refuse a call of `tool` by `agent` at `now`, constraint aside (see
    /// [`DenyRule::matches`]), in file order.
    pub fn denies_for<'a>(
        &'a self,
        tool: &'a str,
        agent: Option<&'a str>,
        now: DateTime<Utc>,
    ) -> impl Iterator<Item = &'a DenyRule> + 'a {
        self.deny.iter().filter(move |rule| rule.matches(tool, agent, now))
    }

    /// The platform grants the allow rules make for the tools being served, given as `(name, fingerprint of
    /// its current definition)`. `"*"` expands to every tool listed; a rule naming a tool not listed (turned
    /// off by `ENABLED_TOOLS`, say) makes none. Expired rules still make grants, which never apply: the
    /// decision checks expiry on every read, and the settings window can show them as expired.
    ///
    /// Each grant's id is `policy:<rule name>:<tool>` (see [`platform_grant_rule`]).
    pub fn platform_grants(&self, tools: &[(&str, String)], now: DateTime<Utc>) -> Vec<Grant> {
        let mut grants = Vec::new();
        for rule in &self.allow {
            let rule_name = rule.rule_name();
            for (tool, fingerprint) in tools.iter().filter(|(tool, _)| rule.covers_tool(tool)) {
                grants.push(Grant {
                    id: format!("{PLATFORM_GRANT_PREFIX}{rule_name}:{tool}"),
                    owner: Owner::Platform,
                    tool: (*tool).to_owned(),
                    agent: rule.agent.clone(),
                    constraint: rule.constraint.clone(),
                    target_name: None,
                    unattended: rule.unattended,
                    created: now,
                    expires: Some(rule.expires),
                    revoked: None,
                    last_used: None,
                    use_count: 0,
                    fingerprint: fingerprint.clone(),
                });
            }
        }
        grants
    }
}

/// What a second policy file did to the administrator's: what it added, and what it asked for that would
/// have loosened the administrator's policy and was ignored.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tightening {
    pub added: Vec<String>,
    pub ignored: Vec<String>,
}

impl Policy {
    /// The administrator's policy (`self`) with `extra`'s restrictions added and nothing loosened (issue 15,
    /// item 4): `extra` is a file a user or a config file can name (`GATEHOUSE_POLICY_FILE`), so it may add deny
    /// rules and always-ask tools, shorten `max_days` and `approval_timeout_secs`, and turn `gate_reads` on —
    /// and nothing else. Its allow rules (platform grants), longer limits and `gate_reads = false` are ignored,
    /// each named in [`Tightening::ignored`]. Ignoring (rather than refusing to start) keeps the
    /// administrator's policy in force either way, and a person whose file once worked alone still gets its
    /// restrictions.
    pub fn tightened_by(mut self, extra: &Policy) -> (Policy, Tightening) {
        let mut report = Tightening::default();
        if extra.max_days_in_file {
            if extra.max_days < self.max_days {
                report.added.push(format!("max_days = {} (the administrator's: {})", extra.max_days, self.max_days));
                self.max_days = extra.max_days;
                self.max_days_in_file = true;
            } else if extra.max_days > self.max_days {
                report
                    .ignored
                    .push(format!("max_days = {}: longer than the administrator's {}", extra.max_days, self.max_days));
            }
        }
        if extra.timeout_in_file {
            let secs = extra.approval_timeout.as_secs();
            if extra.approval_timeout < self.approval_timeout {
                report.added.push(format!("approval_timeout_secs = {secs}"));
                self.approval_timeout = extra.approval_timeout;
                self.timeout_in_file = true;
            } else if extra.approval_timeout > self.approval_timeout {
                report.ignored.push(format!(
                    "approval_timeout_secs = {secs}: longer than the administrator's {}",
                    self.approval_timeout.as_secs()
                ));
            }
        }
        match extra.gate_reads_in_file {
            Some(true) if !self.gate_reads => {
                report.added.push("gate_reads = true".into());
                self.gate_reads = true;
                self.gate_reads_in_file = Some(true);
            }
            Some(false) if self.gate_reads => {
                report.ignored.push("gate_reads = false: the administrator gates reads".into());
            }
            _ => {}
        }
        for tool in &extra.always_ask {
            if !self.always_ask.contains(tool) {
                report.added.push(format!("always_ask {tool}"));
                self.always_ask.push(tool.clone());
            }
        }
        for rule in &extra.deny {
            let mut rule = rule.clone();
            rule.index = self.deny.len();
            // Names stay unique across both files (the audit log names the rule); a clash falls back to the position.
            if rule.name.as_ref().is_some_and(|name| self.deny.iter().any(|d| d.name.as_ref() == Some(name))) {
                rule.name = None;
            }
            report.added.push(format!("deny rule {} (tool {})", rule.rule_name(), rule.tool));
            self.deny.push(rule);
        }
        for rule in &extra.allow {
            report.ignored.push(format!(
                "allow rule {} (tool {}): only the administrator's file may allow without asking",
                rule.rule_name(),
                rule.tool
            ));
        }
        (self, report)
    }
}

/// The allow rule's name inside a platform grant's id (`policy:allow[2]:update_cells` → `allow[2]`), for the
/// audit source `policy:<rule>`; `None` for any other id. Rule names cannot contain `:` (see `parse`).
pub fn platform_grant_rule(grant_id: &str) -> Option<&str> {
    let rest = grant_id.strip_prefix(PLATFORM_GRANT_PREFIX)?;
    rest.split_once(':').map(|(rule, _tool)| rule).filter(|rule| !rule.is_empty())
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use chrono::TimeZone;

    use super::*;

    const TOOLS: &[&str] = &["update_cells", "delete_file", "read_range", "transfer_ownership", "empty_trash"];

    fn at(year: i32, month: u32, day: u32) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(year, month, day, 0, 0, 0).unwrap()
    }

    fn policy(text: &str) -> Policy {
        Policy::parse(text, Path::new("/etc/gatehouse/policy.toml"), TOOLS).unwrap()
    }

    #[test]
    fn no_file_means_the_documented_defaults() {
        let policy = Policy::default();
        assert_eq!(policy.max_days(), 90);
        assert_eq!(policy.approval_timeout(), Duration::from_secs(120));
        assert!(!policy.gate_reads());
        assert!(policy.always_ask().is_empty() && policy.allow_rules().is_empty() && policy.deny_rules().is_empty());
        assert!(!policy.is_always_ask("transfer_ownership"));
        assert!(policy.platform_grants(&[("update_cells", "fp".into())], at(2026, 1, 1)).is_empty());
    }

    #[test]
    fn rules_are_named_by_position_unless_the_file_names_them() {
        let policy = policy(
            r#"
            [[allow]]
            tool = "update_cells"
            expires = "2027-06-30T00:00:00Z"
            [[allow]]
            name = "reports-bot"
            tool = "read_range"
            expires = "2027-06-30T00:00:00Z"
            [[deny]]
            tool = "delete_file"
            "#,
        );
        assert_eq!(policy.allow_rules()[0].rule_name(), "allow[0]");
        assert_eq!(policy.allow_rules()[1].rule_name(), "reports-bot");
        assert_eq!(policy.deny_rules()[0].rule_name(), "deny[0]");
    }

    #[test]
    fn a_deny_rule_matches_its_tool_its_agent_and_only_until_it_expires() {
        let policy = policy(
            r#"
            [[deny]]
            tool = "delete_file"
            agent = "nightly-report"
            expires = "2027-01-01T00:00:00Z"
            [[deny]]
            tool = "*"
            agent = "intruder"
            "#,
        );
        let [by_agent, every_tool] = policy.deny_rules() else { panic!("two rules expected") };
        let now = at(2026, 6, 1);
        assert!(by_agent.matches("delete_file", Some("nightly-report"), now));
        assert!(!by_agent.matches("delete_file", Some("claude-desktop"), now));
        assert!(!by_agent.matches("delete_file", None, now), "an unknown caller is not the named agent");
        assert!(!by_agent.matches("update_cells", Some("nightly-report"), now));
        assert!(!by_agent.matches("delete_file", Some("nightly-report"), at(2027, 1, 1)), "expiry is exclusive");
        assert!(every_tool.matches("update_cells", Some("intruder"), at(2099, 1, 1)), "no expiry = for good");
        assert!(every_tool.matches("read_range", Some("intruder"), now));
        let names: Vec<_> = policy.denies_for("delete_file", Some("intruder"), now).map(DenyRule::rule_name).collect();
        assert_eq!(names, ["deny[1]"]);
    }

    #[test]
    fn a_deny_rule_without_an_agent_matches_every_caller() {
        let policy = policy("[[deny]]\ntool = \"delete_file\"\n");
        let rule = &policy.deny_rules()[0];
        assert!(rule.matches("delete_file", None, at(2026, 1, 1)));
        assert!(rule.matches("delete_file", Some("anyone"), at(2026, 1, 1)));
    }

    #[test]
    fn the_deny_constraint_is_exposed_for_the_evaluator_and_ignored_by_matches() {
        let policy =
            policy("[[deny]]\ntool = \"update_cells\"\nconstraint = { kind = \"spreadsheet\", value = \"1AbC\" }\n");
        let rule = &policy.deny_rules()[0];
        assert_eq!(rule.constraint, Some(Constraint { kind: "spreadsheet".into(), value: "1AbC".into() }));
        assert!(rule.matches("update_cells", None, at(2026, 1, 1)));
    }

    #[test]
    fn always_ask_names_tools_or_every_tool() {
        let policy = policy("always_ask = [\"transfer_ownership\", \"empty_trash\"]\n");
        assert!(policy.is_always_ask("transfer_ownership") && policy.is_always_ask("empty_trash"));
        assert!(!policy.is_always_ask("update_cells"));
        assert!(self::policy("always_ask = [\"*\"]\n").is_always_ask("update_cells"));
    }

    #[test]
    fn platform_grants_expand_every_tool_and_carry_the_rule_and_the_current_fingerprint() {
        let policy = policy(
            r#"
            [[allow]]
            tool = "*"
            agent = "claude-desktop"
            expires = "2027-06-30T00:00:00Z"
            [[allow]]
            tool = "update_cells"
            constraint = { kind = "spreadsheet", value = "1AbC" }
            unattended = true
            expires = "2027-01-01T00:00:00+02:00"
            [[allow]]
            tool = "transfer_ownership"
            expires = "2027-01-01T00:00:00Z"
            "#,
        );
        let now = at(2026, 3, 1);
        let tools = [("update_cells", "fp-update".to_owned()), ("delete_file", "fp-delete".to_owned())];
        let grants = policy.platform_grants(&tools, now);
        let ids: Vec<_> = grants.iter().map(|grant| grant.id.as_str()).collect();
        assert_eq!(
            ids,
            ["policy:allow[0]:update_cells", "policy:allow[0]:delete_file", "policy:allow[1]:update_cells"]
        );
        for grant in &grants {
            assert_eq!(grant.owner, Owner::Platform);
            assert_eq!(grant.created, now);
            assert_eq!((grant.revoked, grant.last_used, grant.use_count), (None, None, 0));
            let expected_fingerprint = if grant.tool == "update_cells" { "fp-update" } else { "fp-delete" };
            assert_eq!(grant.fingerprint, expected_fingerprint);
        }
        assert_eq!(grants[0].agent, Some(crate::approval::model::Agent::registered("claude-desktop")));
        assert_eq!((grants[0].constraint.clone(), grants[0].unattended), (None, false));
        assert_eq!(grants[0].expires, Some(at(2027, 6, 30)));
        assert_eq!(grants[2].agent, None);
        assert_eq!(grants[2].constraint, Some(Constraint { kind: "spreadsheet".into(), value: "1AbC".into() }));
        assert!(grants[2].unattended);
        assert_eq!(grants[2].expires, Some(Utc.with_ymd_and_hms(2026, 12, 31, 22, 0, 0).unwrap()));
    }

    #[test]
    fn a_platform_grant_id_names_its_rule() {
        assert_eq!(platform_grant_rule("policy:allow[2]:update_cells"), Some("allow[2]"));
        assert_eq!(platform_grant_rule("policy:reports-bot:read_range"), Some("reports-bot"));
        assert_eq!(platform_grant_rule("6f1c2b9e-0000-4000-8000-000000000000"), None);
        assert_eq!(platform_grant_rule("policy:"), None);
    }
}
