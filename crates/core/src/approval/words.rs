//! Grants, *never allow* rules and audit records in plain words: one wording for every shell (the
//! `gatehouse` commands, the settings window), so the terminal and the window never describe the same
//! standing approval two ways.

use chrono::{DateTime, Utc};

use super::evaluator;
use super::model::{Agent, AnswerChannel, CallOutcome, Constraint, DecisionSource, Grant, Owner, Verdict};
use super::store::NeverAllow;

/// A moment as every shell prints it: `2026-11-30 05:11:53 UTC`.
pub fn time(at: DateTime<Utc>) -> String {
    at.format("%Y-%m-%d %H:%M:%S UTC").to_string()
}

/// An assistant as every shell names it, escaped (see [`crate::shown`]): “claude” for a registered
/// assistant, known by its token; “claude” (says it is) for a name the client gave of itself.
pub fn agent_words(agent: &Agent) -> String {
    let name = crate::shown::shown(&agent.name);
    match agent.self_reported {
        false => format!("“{name}”"),
        true => format!("“{name}” (says it is)"),
    }
}

/// Which assistants a grant is for: one identity (see [`agent_words`]), or any.
pub fn scope_words(agent: Option<&Agent>) -> String {
    match agent {
        Some(agent) if agent.self_reported => {
            format!("only an assistant that says it is “{}” (not a registered one)", crate::shown::shown(&agent.name))
        }
        Some(agent) => format!("only the registered assistant “{}”", crate::shown::shown(&agent.name)),
        None => "any assistant".to_owned(),
    }
}

/// Which assistants a never-allow rule refuses: every one of that name, however it is identified.
pub fn rule_scope_words(agent: Option<&str>) -> String {
    match agent {
        Some(agent) => format!("only the assistant “{}”", crate::shown::shown(agent)),
        None => "any assistant".to_owned(),
    }
}

/// Which calls of its tool a grant or rule covers.
pub fn limit_words(constraint: Option<&Constraint>) -> String {
    match constraint {
        // The value came from a call's arguments: escaped, like everything from outside.
        Some(constraint) => crate::shown::shown(&evaluator::constraint_words(constraint)).into_owned(),
        None => "any arguments".to_owned(),
    }
}

/// A constraint's words with its target's name, when one is known ("only this spreadsheet: “Budget 2026”"),
/// as the card offered it. The name comes from Drive, so it is escaped.
pub fn named(described: &str, name: Option<&str>) -> String {
    match name {
        Some(name) => format!("{described}: “{}”", crate::shown::shown(name)),
        None => described.to_owned(),
    }
}

/// A grant's limit in words, naming its target by the name it had when the grant was made, as the card
/// that made it did; the id alone when no name was known.
pub fn grant_limit_words(grant: &Grant) -> String {
    let described = limit_words(grant.constraint.as_ref());
    match &grant.constraint {
        Some(_) => named(&described, grant.target_name.as_deref()),
        None => described,
    }
}

/// Whose authority a grant carries: the account's email, or the administrator's policy.
pub fn owner_words(owner: &Owner) -> String {
    match owner {
        Owner::User(account) => crate::shown::shown(account).into_owned(),
        Owner::Platform => "the administrator's policy".to_owned(),
    }
}

/// How often a grant was used, and when last.
pub fn uses_words(grant: &Grant) -> String {
    match (grant.use_count, grant.last_used) {
        (0, _) => "0 (never used)".to_owned(),
        (count, None) => count.to_string(),
        (count, Some(last)) => format!("{count}, last {}", time(last)),
    }
}

/// Where a grant stands at a moment. Only [`GrantState::Active`] can cover a call (the decision re-checks
/// every other field too); the others are kept for the record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GrantState {
    Active,
    Expired,
    Revoked(DateTime<Utc>),
    /// A grant without an expiry never applies (docs/approvals.md): only a damaged or hand-made row has none.
    NoExpiry,
}

impl GrantState {
    pub fn of(grant: &Grant, now: DateTime<Utc>) -> GrantState {
        match (grant.revoked, grant.expires) {
            (Some(at), _) => GrantState::Revoked(at),
            (None, Some(expires)) if expires <= now => GrantState::Expired,
            (None, None) => GrantState::NoExpiry,
            (None, Some(_)) => GrantState::Active,
        }
    }

    pub fn is_active(self) -> bool {
        self == GrantState::Active
    }
}

impl std::fmt::Display for GrantState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GrantState::Active => f.write_str("active"),
            GrantState::Expired => f.write_str("expired"),
            GrantState::Revoked(at) => write!(f, "revoked {}", time(*at)),
            GrantState::NoExpiry => f.write_str("never applies (no expiry)"),
        }
    }
}

/// A grant's expiry, or why it has none.
pub fn expiry_words(grant: &Grant) -> String {
    grant.expires.map(time).unwrap_or_else(|| "never set, so it never applies".into())
}

/// Where a never-allow rule stands at a moment. Only [`RuleState::Active`] refuses calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuleState {
    Active,
    Expired,
    Removed(DateTime<Utc>),
}

impl RuleState {
    pub fn of(rule: &NeverAllow, now: DateTime<Utc>) -> RuleState {
        match rule.removed {
            Some(at) => RuleState::Removed(at),
            None if rule.expires <= now => RuleState::Expired,
            None => RuleState::Active,
        }
    }

    pub fn is_active(self) -> bool {
        self == RuleState::Active
    }
}

impl std::fmt::Display for RuleState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RuleState::Active => f.write_str("active"),
            RuleState::Expired => f.write_str("expired"),
            RuleState::Removed(at) => write!(f, "removed {}", time(*at)),
        }
    }
}

/// A verdict as one word: `allowed` or `denied`.
pub fn verdict_words(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::Allowed => "allowed",
        Verdict::Denied => "denied",
    }
}

/// A verdict a person typed or picked (`allowed` / `denied`, any case), or what to give instead.
pub fn parse_verdict(text: &str) -> Result<Verdict, String> {
    match text.trim().to_ascii_lowercase().as_str() {
        "allowed" => Ok(Verdict::Allowed),
        "denied" => Ok(Verdict::Denied),
        _ => Err(format!("“{text}” is not a decision: choose allowed or denied")),
    }
}

/// `text` on one line, cut to `max` characters (with `…` when cut).
pub fn one_line(text: &str, max: usize) -> String {
    // Escaped (line breaks become a visible `\n`), so a value can't start a line of its own or draw.
    let crate::shown::Cut { text, more } = crate::shown::cut(text, max);
    if more == 0 { text } else { format!("{text}…") }
}

/// How a call ended: `ok`, `refused`, `error: <the message the assistant got>`, `pending: …` (still running)
/// or `interrupted: …` (Gatehouse stopped while it ran).
pub fn outcome_words(outcome: &CallOutcome) -> String {
    match outcome {
        CallOutcome::Ok => "ok".to_owned(),
        CallOutcome::Refused => "refused".to_owned(),
        CallOutcome::Error(message) => format!("error: {message}"),
        CallOutcome::Pending => "pending: still running".to_owned(),
        CallOutcome::Interrupted => {
            "interrupted: Gatehouse stopped while it ran, so it may have been done in part or whole".to_owned()
        }
    }
}

/// Who or what decided a call, for a person reading the activity log. A `deny:<id>` source is the person's
/// own never-allow rule when `is_never_rule(id)` says so (those ids are the rules' UUIDs), else a deny rule
/// of the administrator's policy.
pub fn source_words(source: &DecisionSource, is_never_rule: impl Fn(&str) -> bool) -> String {
    match source {
        DecisionSource::Person => "you, on the approval card".to_owned(),
        DecisionSource::Grant(id) => format!("your standing approval {}", short_id(id)),
        DecisionSource::Policy(rule) => format!("the administrator's policy (rule {rule})"),
        DecisionSource::Deny(id) if is_never_rule(id) => format!("your never-allow rule {}", short_id(id)),
        DecisionSource::Deny(rule) => format!("a never-allow rule of the administrator's policy (rule {rule})"),
        DecisionSource::Timeout => "nobody answered the approval card in time".to_owned(),
        DecisionSource::NotGated => "no approval needed (it only reads)".to_owned(),
        DecisionSource::Unattended => "refused: an unattended assistant, and no standing approval covers it".to_owned(),
        DecisionSource::Paused => "refused: every assistant was paused".to_owned(),
        DecisionSource::InvalidArguments => "refused: the tool did not accept its arguments".to_owned(),
        DecisionSource::Withdrawn => "withdrawn: the assistant stopped waiting before it was decided".to_owned(),
        DecisionSource::Shutdown => "not run: Gatehouse was closed before anyone answered".to_owned(),
        DecisionSource::AgentName => "refused: the assistant's name could not be accepted".to_owned(),
        DecisionSource::GoogleForm => "left to Google's own approval form".to_owned(),
    }
}

/// Where the person answered a card, in words ("on the approval card", "from a terminal: process 4242,
/// /usr/bin/gatehouse"), for the Activity page and `gatehouse audit`.
pub fn answer_channel_words(channel: &AnswerChannel) -> String {
    match channel {
        AnswerChannel::Card => "on the approval card".to_owned(),
        AnswerChannel::Terminal { pid: None, .. } => "from a terminal (`gatehouse approvals`)".to_owned(),
        AnswerChannel::Terminal { pid: Some(pid), exe: None } => format!("from a terminal: process {pid}"),
        AnswerChannel::Terminal { pid: Some(pid), exe: Some(exe) } => {
            format!("from a terminal: process {pid}, {}", one_line(exe, 120))
        }
    }
}

/// The first 8 characters of an id: enough to tell grants apart on screen, and what the terminal accepts.
pub fn short_id(id: &str) -> &str {
    id.char_indices().nth(8).map_or(id, |(end, _)| &id[..end])
}

#[cfg(test)]
mod tests {
    use chrono::TimeDelta;

    use super::*;

    fn grant(expires: Option<DateTime<Utc>>, revoked: Option<DateTime<Utc>>) -> Grant {
        Grant {
            id: "6f1c2b9e-0000-4000-8000-000000000000".into(),
            owner: Owner::User("ada@example.com".into()),
            tool: "update_cells".into(),
            agent: None,
            constraint: None,
            target_name: None,
            unattended: false,
            created: Utc::now(),
            expires,
            revoked,
            last_used: None,
            use_count: 0,
            fingerprint: String::new(),
        }
    }

    #[test]
    fn a_grant_is_active_only_before_its_expiry_and_unrevoked() {
        let now = Utc::now();
        let later = now + TimeDelta::days(1);
        assert_eq!(GrantState::of(&grant(Some(later), None), now), GrantState::Active);
        assert_eq!(GrantState::of(&grant(Some(now), None), now), GrantState::Expired);
        assert_eq!(GrantState::of(&grant(None, None), now).to_string(), "never applies (no expiry)");
        let revoked = GrantState::of(&grant(Some(later), Some(now)), now);
        assert!(!revoked.is_active());
        assert_eq!(revoked.to_string(), format!("revoked {}", time(now)));
    }

    #[test]
    fn sources_say_who_decided() {
        let never = "0b5e7c1d-1111-4000-8000-000000000000";
        let is_never = |id: &str| id == never;
        assert_eq!(
            source_words(&DecisionSource::Grant("6f1c2b9e-0000".into()), is_never),
            "your standing approval 6f1c2b9e"
        );
        assert_eq!(source_words(&DecisionSource::Deny(never.into()), is_never), "your never-allow rule 0b5e7c1d");
        assert!(source_words(&DecisionSource::Deny("deny[0]".into()), is_never).contains("administrator"));
        assert_eq!(short_id("abc"), "abc");
        assert_eq!(parse_verdict(" Denied"), Ok(Verdict::Denied));
        assert!(parse_verdict("maybe").unwrap_err().contains("allowed or denied"));
        // A line break is shown, escaped, rather than turned into a space: the value stays on one line either way.
        assert_eq!(one_line("a\nbcdef", 4), "a\\nbc…");
        assert_eq!(one_line("x\u{1b}[8m", 10), "x\\u{1b}[8m");
    }

    #[test]
    fn a_constrained_grant_is_named_by_the_title_it_was_made_with() {
        let mut grant = Grant {
            id: "g".into(),
            owner: Owner::User("ana@example.com".into()),
            tool: "update_cells".into(),
            agent: None,
            constraint: Some(Constraint { kind: "spreadsheet".into(), value: "1AbC".into() }),
            target_name: Some("Budget\n2026".into()),
            unattended: false,
            created: Utc::now(),
            expires: None,
            revoked: None,
            last_used: None,
            use_count: 0,
            fingerprint: "f".into(),
        };
        let words = grant_limit_words(&grant);
        assert!(words.contains("1AbC") && words.ends_with(": “Budget\\n2026”"), "{words}");
        grant.target_name = None;
        assert_eq!(grant_limit_words(&grant), limit_words(grant.constraint.as_ref()));
        grant.constraint = None;
        assert_eq!(grant_limit_words(&grant), "any arguments");
    }

    #[test]
    fn limits_are_said_by_their_kind() {
        assert_eq!(limit_words(None), "any arguments");
        let constraint = Constraint { kind: "spreadsheet".into(), value: "1AbC".into() };
        assert_eq!(limit_words(Some(&constraint)), "only this spreadsheet (1AbC)");
        // The id comes from a call's arguments: escaped.
        let marked = Constraint { kind: "file".into(), value: "a\nb".into() };
        assert_eq!(limit_words(Some(&marked)), "only this file (a\\nb)");
        assert_eq!(scope_words(Some(&Agent::registered("claude"))), "only the registered assistant “claude”");
        assert_eq!(
            scope_words(Some(&Agent::self_reported("claude"))),
            "only an assistant that says it is “claude” (not a registered one)"
        );
        assert_eq!(agent_words(&Agent::self_reported("claude\n")), "“claude\\n” (says it is)");
        assert_eq!(rule_scope_words(Some("claude")), "only the assistant “claude”");
    }
}
