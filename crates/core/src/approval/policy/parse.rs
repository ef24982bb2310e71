//! Reading the policy file's text: TOML into raw, span-carrying values, then every rule checked, so each
//! error names the line and column it comes from.

use std::collections::HashSet;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::Deserialize;
use toml::Spanned;

use super::{
    AllowRule, DEFAULT_APPROVAL_TIMEOUT, DEFAULT_MAX_DAYS, DenyRule, EVERY_TOOL, MAX_APPROVAL_TIMEOUT_SECS, Policy,
};
use crate::approval::model::Constraint;

/// Why the policy file could not be used. Gatehouse does not start with a policy it cannot read.
#[derive(Debug, thiserror::Error)]
pub enum PolicyError {
    #[error(
        "The policy file {} is not valid at line {line}, column {column}: {reason}. Fix the line or remove it; \
         Gatehouse does not start with a policy it cannot read.",
        path.display()
    )]
    Invalid { path: PathBuf, line: usize, column: usize, reason: String },
    /// An error TOML could not place (rare): the reason alone.
    #[error(
        "The policy file {} is not valid: {reason}. Fix it or remove it; Gatehouse does not start with a \
         policy it cannot read.",
        path.display()
    )]
    InvalidFile { path: PathBuf, reason: String },
    #[error(
        "{variable} names the policy file {}, which does not exist. Point {variable} at the policy file, or \
         unset it to use the administrator's location.",
        path.display()
    )]
    Missing { variable: &'static str, path: PathBuf },
    #[error(
        "Gatehouse could not read the policy file {}: {source}. Make it a text file readable by the user \
         running Gatehouse, or remove it; Gatehouse does not start with a policy it cannot read.",
        path.display()
    )]
    Unreadable { path: PathBuf, source: std::io::Error },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPolicy {
    max_days: Option<Spanned<i64>>,
    approval_timeout_secs: Option<Spanned<i64>>,
    gate_reads: Option<bool>,
    #[serde(default)]
    always_ask: Vec<Spanned<String>>,
    #[serde(default)]
    allow: Vec<RawAllow>,
    #[serde(default)]
    deny: Vec<RawDeny>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawAllow {
    name: Option<Spanned<String>>,
    tool: Spanned<String>,
    agent: Option<Spanned<String>>,
    /// The rule is for a client that only says it is `agent` (over stdio), not for the registered
    /// assistant of that name (the default). Deny rules have no such key: they refuse the name however
    /// the assistant is identified.
    agent_self_reported: Option<Spanned<bool>>,
    constraint: Option<RawConstraint>,
    #[serde(default)]
    unattended: bool,
    expires: Spanned<toml::Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDeny {
    name: Option<Spanned<String>>,
    tool: Spanned<String>,
    agent: Option<Spanned<String>>,
    constraint: Option<RawConstraint>,
    expires: Option<Spanned<toml::Value>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConstraint {
    kind: Spanned<String>,
    value: Spanned<String>,
}

/// A semantic error before it is placed in the file.
struct Problem {
    span: Range<usize>,
    reason: String,
}

impl Problem {
    fn at<T>(value: &Spanned<T>, reason: impl Into<String>) -> Self {
        Problem { span: value.span(), reason: reason.into() }
    }
}

impl Policy {
    /// Reads a policy file's text. `origin` is only used to name the file in errors; `known_tools` are the
    /// names a rule may use besides `"*"`, so a misspelt tool is an error rather than a rule that never
    /// matches.
    pub fn parse(text: &str, origin: &Path, known_tools: &[&str]) -> Result<Policy, PolicyError> {
        let raw: RawPolicy = toml::from_str(text).map_err(|error| {
            let reason = clean_reason(error.message());
            match error.span() {
                Some(span) => invalid_at(text, origin, span.start, reason),
                None => PolicyError::InvalidFile { path: origin.to_path_buf(), reason },
            }
        })?;
        build(raw, known_tools).map_err(|problem| invalid_at(text, origin, problem.span.start, problem.reason))
    }
}

fn build(raw: RawPolicy, known_tools: &[&str]) -> Result<Policy, Problem> {
    let max_days_in_file = raw.max_days.is_some();
    let max_days = match raw.max_days {
        None => DEFAULT_MAX_DAYS,
        Some(days) => u32::try_from(*days.get_ref()).ok().filter(|days| *days >= 1).ok_or_else(|| {
            Problem::at(
                &days,
                format!("max_days is {}, but it must be a whole number of days from 1 to {}", days.get_ref(), u32::MAX),
            )
        })?,
    };
    let timeout_in_file = raw.approval_timeout_secs.is_some();
    let approval_timeout = match raw.approval_timeout_secs {
        None => DEFAULT_APPROVAL_TIMEOUT,
        Some(secs) => u64::try_from(*secs.get_ref())
            .ok()
            .filter(|secs| (1..=MAX_APPROVAL_TIMEOUT_SECS).contains(secs))
            .map(Duration::from_secs)
            .ok_or_else(|| {
                Problem::at(
                    &secs,
                    format!(
                        "approval_timeout_secs is {}, but it must be a whole number of seconds from 1 to \
                         {MAX_APPROVAL_TIMEOUT_SECS}",
                        secs.get_ref()
                    ),
                )
            })?,
    };
    let always_ask =
        raw.always_ask.into_iter().map(|tool| checked_tool(tool, known_tools, true)).collect::<Result<Vec<_>, _>>()?;

    let mut names = RuleNames::default();
    let mut allow = Vec::with_capacity(raw.allow.len());
    for (index, rule) in raw.allow.into_iter().enumerate() {
        let name = names.claim(rule.name)?;
        allow.push(AllowRule {
            name,
            index,
            tool: checked_tool(rule.tool, known_tools, false)?,
            agent: allowed_agent(rule.agent, rule.agent_self_reported)?,
            constraint: rule.constraint.map(checked_constraint).transpose()?,
            unattended: rule.unattended,
            expires: checked_expiry(rule.expires)?,
        });
    }
    let mut deny = Vec::with_capacity(raw.deny.len());
    for (index, rule) in raw.deny.into_iter().enumerate() {
        let name = names.claim(rule.name)?;
        deny.push(DenyRule {
            name,
            index,
            tool: checked_tool(rule.tool, known_tools, true)?,
            agent: checked_agent(rule.agent)?,
            constraint: rule.constraint.map(checked_constraint).transpose()?,
            expires: rule.expires.map(checked_expiry).transpose()?,
        });
    }
    Ok(Policy {
        max_days,
        approval_timeout,
        gate_reads: raw.gate_reads.unwrap_or(false),
        always_ask,
        allow,
        deny,
        timeout_in_file,
        max_days_in_file,
        gate_reads_in_file: raw.gate_reads,
        person: Default::default(),
    })
}

/// Every rule's name is unique: the audit log names the rule that decided a call. A given name cannot hold
/// `[`, so it never clashes with a positional one (`allow[0]`), and cannot hold `:`, which separates it in a
/// platform grant's id.
#[derive(Default)]
struct RuleNames {
    taken: HashSet<String>,
}

impl RuleNames {
    fn claim(&mut self, given: Option<Spanned<String>>) -> Result<Option<String>, Problem> {
        let Some(given) = given else { return Ok(None) };
        let name = given.get_ref();
        let well_formed = !name.is_empty()
            && name.len() <= 64
            && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
        if !well_formed {
            return Err(Problem::at(
                &given,
                format!(
                    "the rule name {name:?} is not usable: use 1 to 64 letters, digits, `-`, `_` or `.`, since \
                     the audit log records it"
                ),
            ));
        }
        if !self.taken.insert(name.clone()) {
            return Err(Problem::at(
                &given,
                format!("another rule is already named `{name}`: give each rule its own name"),
            ));
        }
        Ok(Some(given.into_inner()))
    }
}

/// A rule's tool: one of `known_tools`, `*`, or, where `google_ok` (deny rules and `always_ask`: they only hold
/// calls back), one of Google's own tools by the name Gatehouse offers it under (`google_drive_create_file`),
/// which is known only once Google lists it. An allow rule can't name one: its grant is tied to the tool's
/// definition, which a policy read at start doesn't have.
fn checked_tool(tool: Spanned<String>, known_tools: &[&str], google_ok: bool) -> Result<String, Problem> {
    let name = tool.get_ref();
    if name.trim().is_empty() {
        return Err(Problem::at(&tool, "the tool name is empty: name a tool, or \"*\" for every tool"));
    }
    if crate::google::mcp::naming::parse_name(name).is_some() && !known_tools.contains(&name.as_str()) {
        if google_ok {
            return Ok(tool.into_inner());
        }
        return Err(Problem::at(
            &tool,
            format!(
                "`{name}` is one of Google's own tools, which an allow rule can't name (Gatehouse learns its definition only from Google, while it runs): let the person answer its cards, or use a deny rule or always_ask for it"
            ),
        ));
    }
    if name != EVERY_TOOL && !known_tools.contains(&name.as_str()) {
        let hint = closest(name, known_tools).map(|known| format!(" (did you mean `{known}`?)")).unwrap_or_default();
        return Err(Problem::at(&tool, format!("there is no tool named `{name}`{hint}")));
    }
    Ok(tool.into_inner())
}

fn checked_agent(agent: Option<Spanned<String>>) -> Result<Option<String>, Problem> {
    use crate::approval::model::{AgentNameError, check_agent_name};
    let Some(agent) = agent else { return Ok(None) };
    match check_agent_name(agent.get_ref()) {
        Ok(name) => Ok(Some(name.to_owned())),
        Err(AgentNameError::Empty) => {
            Err(Problem::at(&agent, "the agent is empty: name the assistant, or leave `agent` out for any assistant"))
        }
        Err(why) => Err(Problem::at(&agent, format!("the agent's name can't be used: {why}"))),
    }
}

/// An allow rule's agent: the registered assistant of that name, or with `agent_self_reported = true` a
/// client that only says it is that name (see [`crate::approval::model::Agent`]).
fn allowed_agent(
    agent: Option<Spanned<String>>,
    self_reported: Option<Spanned<bool>>,
) -> Result<Option<crate::approval::model::Agent>, Problem> {
    let name = checked_agent(agent)?;
    match (name, self_reported) {
        (None, Some(flag)) => Err(Problem::at(
            &flag,
            "agent_self_reported needs an `agent`: name the assistant the rule is for, or remove agent_self_reported",
        )),
        (None, None) => Ok(None),
        (Some(name), flag) => {
            Ok(Some(crate::approval::model::Agent { name, self_reported: flag.is_some_and(|flag| *flag.get_ref()) }))
        }
    }
}

fn checked_constraint(raw: RawConstraint) -> Result<Constraint, Problem> {
    for (part, field) in [(&raw.kind, "kind"), (&raw.value, "value")] {
        if part.get_ref().trim().is_empty() {
            return Err(Problem::at(
                part,
                format!("the constraint's {field} is empty: give both kind and value, or leave `constraint` out"),
            ));
        }
    }
    Ok(Constraint { kind: raw.kind.into_inner(), value: raw.value.into_inner() })
}

/// An expiry is an RFC 3339 date and time with its offset, quoted or as a TOML date-time.
fn checked_expiry(expires: Spanned<toml::Value>) -> Result<DateTime<Utc>, Problem> {
    const EXAMPLE: &str = "write a date and time with its time zone, such as \"2027-06-30T00:00:00Z\"";
    let text = match expires.get_ref() {
        toml::Value::String(text) => text.clone(),
        toml::Value::Datetime(datetime) if datetime.offset.is_some() && datetime.time.is_some() => datetime.to_string(),
        toml::Value::Datetime(datetime) => {
            return Err(Problem::at(&expires, format!("expires = {datetime} has no time or no time zone: {EXAMPLE}")));
        }
        other => {
            return Err(Problem::at(
                &expires,
                format!(
                    "expires is {} {}, not a date and time: {EXAMPLE}",
                    article(other.type_str()),
                    other.type_str()
                ),
            ));
        }
    };
    DateTime::parse_from_rfc3339(&text).map(|datetime| datetime.with_timezone(&Utc)).map_err(|error| {
        Problem::at(&expires, format!("expires = {text:?} is not an RFC 3339 date and time ({error}): {EXAMPLE}"))
    })
}

/// "a" or "an" before a TOML type's name.
fn article(word: &str) -> &'static str {
    if word.starts_with(['a', 'e', 'i', 'o', 'u']) { "an" } else { "a" }
}

/// The known tool within two edits of a misspelt one, for the error's hint.
fn closest<'a>(name: &str, known_tools: &[&'a str]) -> Option<&'a str> {
    known_tools
        .iter()
        .map(|known| (edit_distance(name, known), *known))
        .filter(|(distance, _)| *distance <= 2)
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, known)| known)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for (i, a_char) in a.chars().enumerate() {
        let mut current = vec![i + 1; b.len() + 1];
        for (j, b_char) in b.iter().enumerate() {
            let substitution = previous[j] + usize::from(a_char != *b_char);
            current[j + 1] = substitution.min(previous[j + 1] + 1).min(current[j] + 1);
        }
        previous = current;
    }
    previous[b.len()]
}

/// TOML's messages may end in a full stop or a newline; ours adds its own punctuation.
fn clean_reason(message: &str) -> String {
    message.trim().trim_end_matches('.').replace('\n', " ")
}

fn invalid_at(text: &str, origin: &Path, offset: usize, reason: String) -> PolicyError {
    let (line, column) = line_and_column(text, offset);
    PolicyError::Invalid { path: origin.to_path_buf(), line, column, reason }
}

/// 1-based line and column (in characters) of a byte offset, clamped into the text.
fn line_and_column(text: &str, offset: usize) -> (usize, usize) {
    let mut end = offset.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let before = &text[..end];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |newline| newline + 1);
    (line, before[line_start..].chars().count() + 1)
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;

    use super::*;

    const TOOLS: &[&str] = &["update_cells", "delete_file", "read_range", "transfer_ownership", "empty_trash"];
    const PATH: &str = "/etc/gatehouse/policy.toml";

    fn parse(text: &str) -> Result<Policy, PolicyError> {
        Policy::parse(text, Path::new(PATH), TOOLS)
    }

    /// The line, column and reason of an error the text must produce.
    fn error(text: &str) -> (usize, usize, String) {
        match parse(text) {
            Err(PolicyError::Invalid { path, line, column, reason }) => {
                assert_eq!(path, Path::new(PATH));
                (line, column, reason)
            }
            other => panic!("expected an error with a line, got {other:?}"),
        }
    }

    const DESIGN_EXAMPLE: &str = r#"max_days = 90                  # longest duration a card may offer
approval_timeout_secs = 120
gate_reads = false
always_ask = ["transfer_ownership", "empty_trash"]

[[allow]]                      # a platform grant
tool = "update_cells"          # "*" = every tool
agent = "claude-desktop"       # optional: any agent when absent; the registered assistant (HTTP token)
constraint = { kind = "spreadsheet", value = "1AbC..." }   # optional
unattended = true              # optional: also covers unattended calls
expires = "2027-06-30T00:00:00Z"

[[deny]]
tool = "delete_file"
agent = "nightly-report"       # optional
"#;

    #[test]
    fn the_example_in_the_design_reads_as_written() {
        let policy = parse(DESIGN_EXAMPLE).unwrap();
        assert_eq!(policy.max_days(), 90);
        assert_eq!(policy.approval_timeout(), Duration::from_secs(120));
        assert!(!policy.gate_reads());
        assert_eq!(policy.always_ask(), ["transfer_ownership", "empty_trash"]);
        assert_eq!(
            policy.allow_rules(),
            [AllowRule {
                name: None,
                index: 0,
                tool: "update_cells".into(),
                agent: Some(crate::approval::model::Agent::registered("claude-desktop")),
                constraint: Some(Constraint { kind: "spreadsheet".into(), value: "1AbC...".into() }),
                unattended: true,
                expires: Utc.with_ymd_and_hms(2027, 6, 30, 0, 0, 0).unwrap(),
            }]
        );
        assert_eq!(
            policy.deny_rules(),
            [DenyRule {
                name: None,
                index: 0,
                tool: "delete_file".into(),
                agent: Some("nightly-report".into()),
                constraint: None,
                expires: None,
            }]
        );
    }

    #[test]
    fn an_empty_file_is_the_defaults() {
        assert_eq!(parse("").unwrap(), Policy::default());
        assert_eq!(parse("# nothing yet\n").unwrap(), Policy::default());
    }

    #[test]
    fn settings_other_than_the_defaults_are_kept() {
        let policy = parse("max_days = 7\napproval_timeout_secs = 30\ngate_reads = true\n").unwrap();
        assert_eq!(
            (policy.max_days(), policy.approval_timeout(), policy.gate_reads()),
            (7, Duration::from_secs(30), true)
        );
    }

    #[test]
    fn an_unknown_key_is_an_error_naming_its_line_and_the_keys_expected() {
        let text = "[[allow]]\ntol = \"update_cells\"\nexpires = \"2027-06-30T00:00:00Z\"\n";
        let (line, column, reason) = error(text);
        assert_eq!((line, column), (2, 1));
        assert!(reason.contains("unknown field `tol`") && reason.contains("`tool`"), "{reason}");
        let message = parse(text).unwrap_err().to_string();
        assert!(message.starts_with("The policy file /etc/gatehouse/policy.toml is not valid at line 2, column 1:"));
        assert!(message.ends_with("Fix the line or remove it; Gatehouse does not start with a policy it cannot read."));
        assert_eq!(error("maxdays = 3\n").0, 1);
    }

    #[test]
    fn an_unknown_key_in_a_constraint_is_an_error() {
        let text = "[[deny]]\ntool = \"update_cells\"\nconstraint = { kind = \"spreadsheet\", id = \"1\" }\n";
        let (line, _, reason) = error(text);
        assert_eq!(line, 3);
        assert!(reason.contains("unknown field `id`"), "{reason}");
    }

    #[test]
    fn a_value_of_the_wrong_type_is_an_error_on_its_line() {
        let (line, _, reason) = error("max_days = 90\ngate_reads = \"yes\"\n");
        assert_eq!(line, 2);
        assert!(reason.contains("bool") || reason.contains("boolean"), "{reason}");
        assert_eq!(error("always_ask = \"empty_trash\"\n").0, 1);
        assert_eq!(
            error("\n[[allow]]\ntool = \"update_cells\"\nunattended = 1\nexpires = \"2027-06-30T00:00:00Z\"\n").0,
            4
        );
    }

    #[test]
    fn broken_toml_is_an_error_on_its_line() {
        let (line, _, _) = error("max_days = 90\nalways_ask = [\"empty_trash\"\n\n[[deny]]\n");
        assert!(line >= 2, "line {line}");
    }

    #[test]
    fn an_allow_rule_without_expires_is_an_error_in_its_table() {
        let text = "max_days = 30\n\n[[allow]]\ntool = \"update_cells\"\nagent = \"claude-desktop\"\n";
        let (line, _, reason) = error(text);
        assert!(reason.contains("missing field `expires`"), "{reason}");
        assert_eq!(line, 3, "the line of its [[allow]]");
    }

    #[test]
    fn a_date_that_is_not_rfc_3339_is_an_error_naming_its_line_and_column() {
        let text = "[[allow]]\ntool = \"update_cells\"\nexpires = \"30/06/2027\"\n";
        let (line, column, reason) = error(text);
        assert_eq!((line, column), (3, 11));
        assert!(reason.contains("\"30/06/2027\" is not an RFC 3339 date and time"), "{reason}");
        let (line, _, reason) = error("[[deny]]\ntool = \"delete_file\"\nexpires = 2027-06-30\n");
        assert_eq!(line, 3);
        assert!(reason.contains("no time zone"), "{reason}");
        let (_, _, reason) = error("[[deny]]\ntool = \"delete_file\"\nexpires = 2027-06-30T00:00:00\n");
        assert!(reason.contains("no time zone"), "{reason}");
        let (_, _, reason) = error("[[deny]]\ntool = \"delete_file\"\nexpires = 20270630\n");
        assert!(reason.starts_with("expires is an integer, not a date and time"), "{reason}");
    }

    #[test]
    fn an_unquoted_toml_date_time_with_an_offset_is_accepted() {
        let policy = parse("[[allow]]\ntool = \"update_cells\"\nexpires = 2027-06-30T02:00:00+02:00\n").unwrap();
        assert_eq!(policy.allow_rules()[0].expires, Utc.with_ymd_and_hms(2027, 6, 30, 0, 0, 0).unwrap());
    }

    #[test]
    fn an_empty_tool_name_is_an_error() {
        let (line, _, reason) = error("[[deny]]\ntool = \"\"\n");
        assert_eq!(line, 2);
        assert!(reason.contains("tool name is empty"), "{reason}");
        assert!(error("always_ask = [\" \"]\n").2.contains("tool name is empty"));
    }

    #[test]
    fn an_unknown_tool_name_is_an_error_naming_the_tool_and_the_line() {
        let text = "max_days = 30\n\n[[allow]]\ntool = \"updte_cells\"\nexpires = \"2027-06-30T00:00:00Z\"\n";
        let (line, column, reason) = error(text);
        assert_eq!((line, column), (4, 8));
        assert_eq!(reason, "there is no tool named `updte_cells` (did you mean `update_cells`?)");
        let (line, _, reason) = error("always_ask = [\"empty_trash\",\n  \"format_disk\"]\n");
        assert_eq!((line, reason.as_str()), (2, "there is no tool named `format_disk`"));
    }

    #[test]
    fn googles_own_tools_can_be_denied_and_always_asked_about_but_not_allowed() {
        let policy =
            parse("always_ask = [\"google_drive_copy_file\"]\n\n[[deny]]\ntool = \"google_drive_create_file\"\n")
                .unwrap();
        assert!(policy.is_always_ask("google_drive_copy_file"));
        assert!(policy.deny_rules()[0].matches("google_drive_create_file", None, Utc::now()));
        let text = "[[allow]]\ntool = \"google_drive_create_file\"\nexpires = \"2027-06-30T00:00:00Z\"\n";
        let (line, _, reason) = error(text);
        assert_eq!(line, 2);
        assert!(reason.contains("one of Google's own tools, which an allow rule can't name"), "{reason}");
        // A name outside the rule (no such product) is still an unknown tool.
        assert!(error("[[deny]]\ntool = \"google_photos_list\"\n").2.starts_with("there is no tool named"));
    }

    #[test]
    fn max_days_must_be_at_least_one() {
        let (line, _, reason) = error("gate_reads = true\nmax_days = 0\n");
        assert_eq!(line, 2);
        assert!(reason.contains("max_days is 0"), "{reason}");
        assert!(error("max_days = -3\n").2.contains("max_days is -3"));
        assert!(error("max_days = 4294967296\n").2.contains("from 1 to 4294967295"));
        assert_eq!(parse("max_days = 1\n").unwrap().max_days(), 1);
    }

    #[test]
    fn the_approval_timeout_must_be_above_zero_and_at_most_a_day() {
        let (line, _, reason) = error("approval_timeout_secs = 0\n");
        assert_eq!(line, 1);
        assert!(reason.contains("approval_timeout_secs is 0"), "{reason}");
        assert!(error("approval_timeout_secs = 86401\n").2.contains("from 1 to 86400"));
        assert_eq!(parse("approval_timeout_secs = 86400\n").unwrap().approval_timeout(), Duration::from_secs(86_400));
    }

    #[test]
    fn a_constraint_with_an_empty_kind_or_value_is_an_error() {
        let (line, column, reason) =
            error("[[deny]]\ntool = \"update_cells\"\nconstraint = { kind = \"\", value = \"1AbC\" }\n");
        assert_eq!((line, column), (3, 23));
        assert!(reason.contains("constraint's kind is empty"), "{reason}");
        let (line, _, reason) = error(
            "[[allow]]\ntool = \"update_cells\"\nexpires = \"2027-06-30T00:00:00Z\"\n\
             constraint = { kind = \"spreadsheet\", value = \"  \" }\n",
        );
        assert_eq!(line, 4);
        assert!(reason.contains("constraint's value is empty"), "{reason}");
        assert!(
            error("[[deny]]\ntool = \"update_cells\"\nconstraint = { kind = \"spreadsheet\" }\n").2.contains("value")
        );
    }

    #[test]
    fn an_allow_rules_agent_is_the_registered_assistant_unless_it_says_self_reported() {
        use crate::approval::model::Agent;
        let text =
            "[[allow]]\ntool = \"update_cells\"\nagent = \"claude-desktop\"\nexpires = \"2027-01-01T00:00:00Z\"\n";
        assert_eq!(parse(text).unwrap().allow_rules()[0].agent, Some(Agent::registered("claude-desktop")));
        let said = text.replace("expires", "agent_self_reported = true\nexpires");
        assert_eq!(parse(&said).unwrap().allow_rules()[0].agent, Some(Agent::self_reported("claude-desktop")));
        let (line, _, reason) = error(
            "[[allow]]\ntool = \"update_cells\"\nagent_self_reported = true\nexpires = \"2027-01-01T00:00:00Z\"\n",
        );
        assert_eq!(line, 3);
        assert!(reason.contains("needs an `agent`"), "{reason}");
        let (_, _, reason) = error("[[deny]]\ntool = \"delete_file\"\nagent = \"x\"\nagent_self_reported = true\n");
        assert!(reason.contains("agent_self_reported"), "a deny rule refuses the name however it is known: {reason}");
        let (line, _, reason) = error("[[deny]]\ntool = \"delete_file\"\nagent = \"a\\u001b[8mb\"\n");
        assert_eq!(line, 3);
        assert!(reason.contains("control character"), "{reason}");
    }

    #[test]
    fn an_empty_agent_is_an_error() {
        let (line, _, reason) = error("[[deny]]\ntool = \"delete_file\"\nagent = \"\"\n");
        assert_eq!(line, 3);
        assert!(reason.contains("agent is empty"), "{reason}");
    }

    #[test]
    fn rule_names_must_be_usable_and_unique() {
        let text = "[[deny]]\nname = \"a b\"\ntool = \"delete_file\"\n";
        assert_eq!(error(text).0, 2);
        assert!(error("[[deny]]\nname = \"x:y\"\ntool = \"delete_file\"\n").2.contains("not usable"));
        let twice = "[[deny]]\nname = \"same\"\ntool = \"delete_file\"\n[[allow]]\nname = \"same\"\n\
                     tool = \"read_range\"\nexpires = \"2027-06-30T00:00:00Z\"\n";
        let (line, _, reason) = error(twice);
        assert!(reason.contains("already named `same`"), "{reason}");
        assert!(line == 2 || line == 5, "line {line}");
        let positional = "[[deny]]\nname = \"deny[1]\"\ntool = \"delete_file\"\n[[deny]]\ntool = \"read_range\"\n";
        assert!(error(positional).2.contains("not usable"), "a given name cannot pass for a positional one");
    }

    #[test]
    fn an_error_column_counts_characters_not_bytes() {
        assert_eq!(line_and_column("ab\n“é” = 1", 3 + "“é” ".len()), (2, 5));
        assert_eq!(line_and_column("abc", 99), (1, 4));
        assert_eq!(line_and_column("“x", 1), (1, 1));
    }

    #[test]
    fn a_misspelt_tool_is_matched_only_when_close() {
        assert_eq!(closest("delet_file", TOOLS), Some("delete_file"));
        assert_eq!(closest("send_email", TOOLS), None);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }
}
