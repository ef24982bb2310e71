//! What an approval card offers, and the strict reading of the person's answer (docs/approvals.md, "The card
//! and its answer").
//!
//! The answer only *selects* among what the card offered: every field of the grant it makes comes from the
//! pending call and the offer, never from the answer, so a tampered or confused answer can at worst be
//! refused, never widen what is allowed.

use chrono::{DateTime, TimeDelta, Utc};
use serde::{Deserialize, Deserializer, Serialize};

use super::model::{Agent, Constraint, Grant, Owner};

/// The durations, in days, a card may offer for *Always allow*, before the policy's maximum is applied.
pub const CARD_DURATIONS: [u32; 3] = [1, 7, 30];

/// Which assistants an *Always allow* covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Scope {
    /// This assistant only (offered only when the agent is known).
    #[serde(rename = "AGENT")]
    Agent,
    /// Any assistant.
    #[serde(rename = "TOOL")]
    Tool,
}

/// Which arguments an *Always allow* covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Limit {
    /// Only arguments within the offered constraint (offered only when there is exactly one).
    #[serde(rename = "CONSTRAINED")]
    Constrained,
    /// Any arguments.
    #[serde(rename = "ANY")]
    Any,
}

impl Scope {
    /// The word an answer uses for it. Answers are matched exactly (case-sensitive): one spelling per value
    /// keeps "select among what was offered" literal. The CLI maps `--scope agent|tool` to these.
    pub const fn as_str(self) -> &'static str {
        match self {
            Scope::Agent => "AGENT",
            Scope::Tool => "TOOL",
        }
    }

    fn from_answer(text: &str) -> Option<Scope> {
        [Scope::Agent, Scope::Tool].into_iter().find(|scope| scope.as_str() == text)
    }
}

impl Limit {
    /// The word an answer uses for it, matched exactly (see [`Scope::as_str`]). The CLI maps
    /// `--constrained` (or its absence) to these.
    pub const fn as_str(self) -> &'static str {
        match self {
            Limit::Constrained => "CONSTRAINED",
            Limit::Any => "ANY",
        }
    }

    fn from_answer(text: &str) -> Option<Limit> {
        [Limit::Constrained, Limit::Any].into_iter().find(|limit| limit.as_str() == text)
    }
}

/// The constraint a card offers, with the words it shows for it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OfferedConstraint {
    pub constraint: Constraint,
    /// In words, e.g. `only the spreadsheet “Budget 2026”`.
    pub label: String,
}

/// What a card offers besides *Allow once* and *Deny*. Built only by [`offer`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CardOffer {
    /// Whether *Always allow…* is offered at all.
    pub grantable: bool,
    /// The calling assistant when known (its name never blank), registered or self-reported: the `AGENT`
    /// scope needs it, and covers only that identity.
    pub agent: Option<Agent>,
    /// The offered durations in days, ascending: those of [`CARD_DURATIONS`] within the maximum; empty when
    /// not grantable.
    pub durations: Vec<u32>,
    /// The constraint `CONSTRAINED` stands for; `None` when not offered.
    pub constraint: Option<OfferedConstraint>,
}

/// Builds a card's offer. `grantable` says whether the call may get *Always allow* at all (a grant store is
/// available, no evaluator vetoes, the tool is not *always ask*, the call is not a retry); it is also off
/// when `max_days` leaves no duration to offer. `proposed` holds each evaluator's proposed constraint with
/// its words: `CONSTRAINED` is offered only when exactly one evaluator proposed one, since several can't
/// agree on one.
pub fn offer(grantable: bool, agent: Option<&Agent>, max_days: u32, proposed: Vec<(Constraint, String)>) -> CardOffer {
    let durations: Vec<u32> =
        if grantable { CARD_DURATIONS.into_iter().filter(|days| *days <= max_days).collect() } else { Vec::new() };
    let grantable = !durations.is_empty();
    let constraint = match <[(Constraint, String); 1]>::try_from(proposed) {
        Ok([(constraint, label)]) if grantable && !constraint.kind.is_empty() && !constraint.value.is_empty() => {
            Some(OfferedConstraint { constraint, label })
        }
        _ => None,
    };
    let agent = agent.filter(|agent| !agent.name.trim().is_empty()).cloned();
    CardOffer { grantable, agent, durations, constraint }
}

impl CardOffer {
    /// The scopes offered, `AGENT` first; empty when not grantable.
    pub fn scopes(&self) -> Vec<Scope> {
        if !self.grantable {
            return Vec::new();
        }
        let agent = self.agent.is_some().then_some(Scope::Agent);
        agent.into_iter().chain([Scope::Tool]).collect()
    }

    /// The argument limits offered, `CONSTRAINED` first; empty when not grantable.
    pub fn limits(&self) -> Vec<Limit> {
        if !self.grantable {
            return Vec::new();
        }
        let constrained = self.constraint.is_some().then_some(Limit::Constrained);
        constrained.into_iter().chain([Limit::Any]).collect()
    }

    /// Every *Always allow* choice the card offers (scopes × durations × limits).
    pub fn choices(&self) -> Vec<Choice> {
        let mut choices = Vec::new();
        for scope in self.scopes() {
            for &days in &self.durations {
                for limit in self.limits() {
                    choices.push(Choice { scope, days, limit });
                }
            }
        }
        choices
    }
}

/// An *Always allow* selection, valid for the offer it was read against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Choice {
    pub scope: Scope,
    pub days: u32,
    pub limit: Limit,
}

impl Choice {
    /// The choice as a UI or the CLI sends it.
    pub fn to_raw(&self) -> RawChoice {
        RawChoice {
            scope: self.scope.as_str().to_owned(),
            days: self.days.to_string(),
            limit: self.limit.as_str().to_owned(),
        }
    }
}

/// The person's answer, once read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Answer {
    AllowOnce,
    Deny,
    Always(Choice),
}

/// An *Always allow* selection as it arrives from the tray, a notification or `gatehouse approvals`, before
/// anything in it is trusted. `scope` is `AGENT` or `TOOL`, `limit` `CONSTRAINED` or `ANY`, both exact;
/// `days` is the decimal number of days exactly as offered (`7`, not `07` or ` 7`), and may arrive as a
/// JSON number or string.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RawChoice {
    pub scope: String,
    #[serde(deserialize_with = "days_as_text")]
    pub days: String,
    pub limit: String,
}

/// An answer as it arrives, before it is read against the card's offer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum RawAnswer {
    AllowOnce,
    Deny,
    Always(RawChoice),
    /// A Google form filled in and accepted (`{"Form": {"field": value}}`): only a form's card takes it,
    /// read by [`super::form::FormCard::read_answer`].
    Form(serde_json::Map<String, serde_json::Value>),
}

/// Why an *Always allow* answer was not accepted, in words: each names what the card did not offer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InvalidChoice {
    #[error(
        "the card did not offer Always allow for this call (only Allow once and Deny), so no standing approval was made"
    )]
    NotGrantable,
    #[error("the scope {given:?} was not offered: the card offered {}", words(offered.iter().map(|s| s.as_str())))]
    Scope { given: String, offered: Vec<Scope> },
    #[error("the scope AGENT (this assistant only) was not offered: the assistant did not say its name")]
    AgentUnknown,
    #[error("{given:?} days was not offered: the card offered {} days", words(offered.iter().map(u32::to_string)))]
    Days { given: String, offered: Vec<u32> },
    #[error("the limit {given:?} was not offered: the card offered {}", words(offered.iter().map(|l| l.as_str())))]
    Limit { given: String, offered: Vec<Limit> },
    #[error("CONSTRAINED was not offered: no single constraint was proposed for this call")]
    NoConstraint,
    #[error("the card was offered for the assistant {offered:?}, but the call came from {call:?}")]
    AgentMismatch { offered: Option<String>, call: Option<String> },
    #[error("{days} days from {now} is beyond the calendar Gatehouse can record")]
    ExpiryOutOfRange { now: DateTime<Utc>, days: u32 },
}

/// Reads an *Always allow* selection against the card's offer. Any value the card did not offer makes the
/// whole choice invalid (the caller then runs the call once, since the person did approve it, and logs
/// the reason).
pub fn parse_choice(offer: &CardOffer, raw: &RawChoice) -> Result<Choice, InvalidChoice> {
    if !offer.grantable {
        return Err(InvalidChoice::NotGrantable);
    }
    let scope = Scope::from_answer(&raw.scope)
        .ok_or_else(|| InvalidChoice::Scope { given: raw.scope.clone(), offered: offer.scopes() })?;
    if scope == Scope::Agent && offer.agent.is_none() {
        return Err(InvalidChoice::AgentUnknown);
    }
    let days = offer
        .durations
        .iter()
        .copied()
        .find(|days| days.to_string() == raw.days)
        .ok_or_else(|| InvalidChoice::Days { given: raw.days.clone(), offered: offer.durations.clone() })?;
    let limit = Limit::from_answer(&raw.limit)
        .ok_or_else(|| InvalidChoice::Limit { given: raw.limit.clone(), offered: offer.limits() })?;
    if limit == Limit::Constrained && offer.constraint.is_none() {
        return Err(InvalidChoice::NoConstraint);
    }
    Ok(Choice { scope, days, limit })
}

/// Reads a whole answer. An invalid *Always allow* becomes *Allow once*, with the reason to log: the person
/// did approve the call, just not a standing approval the card could make.
pub fn parse_answer(offer: &CardOffer, raw: &RawAnswer) -> (Answer, Option<InvalidChoice>) {
    match raw {
        RawAnswer::AllowOnce => (Answer::AllowOnce, None),
        // The broker takes a filled form only on a form's card; on any other it approves nothing.
        RawAnswer::Deny | RawAnswer::Form(_) => (Answer::Deny, None),
        RawAnswer::Always(raw) => match parse_choice(offer, raw) {
            Ok(choice) => (Answer::Always(choice), None),
            Err(invalid) => (Answer::AllowOnce, Some(invalid)),
        },
    }
}

/// The pending call a card was shown for: all a grant made from the card may hold comes from here and from
/// the offer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CardCall<'a> {
    /// The signed-in account the grant will belong to.
    pub owner_email: &'a str,
    pub tool: &'a str,
    /// The calling assistant, as the card showed it.
    pub agent: Option<&'a Agent>,
    /// The fingerprint of the tool's current definition.
    pub fingerprint: &'a str,
}

/// Makes the grant a valid choice selects. The choice is checked against the offer again, and the call's
/// agent against the offer's, so a choice read against another card cannot slip through. The grant is
/// owned by the person, for the call's tool, for the call's agent only with `AGENT` scope, with the offered
/// constraint only with `CONSTRAINED`, expiring `days` after `now`, and never `unattended`.
pub fn grant_from_choice(
    call: &CardCall<'_>,
    offer: &CardOffer,
    choice: &Choice,
    now: DateTime<Utc>,
    id: String,
) -> Result<Grant, InvalidChoice> {
    let choice = parse_choice(offer, &choice.to_raw())?;
    let agent = match choice.scope {
        Scope::Tool => None,
        Scope::Agent => match (call.agent, offer.agent.as_ref()) {
            (Some(call_agent), Some(offered)) if call_agent == offered => Some(call_agent.clone()),
            (call_agent, offered) => {
                return Err(InvalidChoice::AgentMismatch {
                    offered: offered.map(|agent| agent.name.clone()),
                    call: call_agent.map(|agent| agent.name.clone()),
                });
            }
        },
    };
    let constraint = match choice.limit {
        Limit::Any => None,
        Limit::Constrained => offer.constraint.as_ref().map(|offered| offered.constraint.clone()),
    };
    let expires = now
        .checked_add_signed(TimeDelta::days(i64::from(choice.days)))
        .ok_or(InvalidChoice::ExpiryOutOfRange { now, days: choice.days })?;
    Ok(Grant {
        id,
        owner: Owner::User(call.owner_email.to_owned()),
        tool: call.tool.to_owned(),
        agent,
        constraint,
        target_name: None,
        unattended: false,
        created: now,
        expires: Some(expires),
        revoked: None,
        last_used: None,
        use_count: 0,
        fingerprint: call.fingerprint.to_owned(),
    })
}

/// "1, 7 or 30"; "nothing" when empty.
fn words<T: AsRef<str>>(items: impl Iterator<Item = T>) -> String {
    let items: Vec<T> = items.collect();
    match items.as_slice() {
        [] => "nothing".to_owned(),
        [only] => only.as_ref().to_owned(),
        [rest @ .., last] => {
            let rest: Vec<&str> = rest.iter().map(AsRef::as_ref).collect();
            format!("{} or {}", rest.join(", "), last.as_ref())
        }
    }
}

/// `days` as text whether it arrives as a JSON number or a string, so the exact comparison in
/// [`parse_choice`] decides.
fn days_as_text<'de, D: Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Days {
        Whole(u64),
        Negative(i64),
        Text(String),
    }
    Ok(match Days::deserialize(deserializer)? {
        Days::Whole(days) => days.to_string(),
        Days::Negative(days) => days.to_string(),
        Days::Text(days) => days,
    })
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;
    use proptest::prelude::*;

    use super::*;

    fn budget() -> (Constraint, String) {
        let constraint = Constraint { kind: "spreadsheet".into(), value: "1AbC".into() };
        (constraint, "only the spreadsheet “Budget 2026”".into())
    }

    fn full_offer() -> CardOffer {
        offer(true, Some(&claude()), 90, vec![budget()])
    }

    fn raw(scope: &str, days: &str, limit: &str) -> RawChoice {
        RawChoice { scope: scope.into(), days: days.into(), limit: limit.into() }
    }

    fn now() -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 3, 1, 12, 0, 0).unwrap()
    }

    static CLAUDE: std::sync::LazyLock<Agent> = std::sync::LazyLock::new(claude);

    fn claude() -> Agent {
        Agent::registered("claude-desktop")
    }

    fn call() -> CardCall<'static> {
        CardCall { owner_email: "ana@example.com", tool: "update_cells", agent: Some(&CLAUDE), fingerprint: "fp1" }
    }

    #[test]
    fn durations_above_the_maximum_are_not_offered() {
        assert_eq!(offer(true, None, 90, vec![]).durations, [1, 7, 30]);
        assert_eq!(offer(true, None, 30, vec![]).durations, [1, 7, 30]);
        assert_eq!(offer(true, None, 29, vec![]).durations, [1, 7]);
        assert_eq!(offer(true, None, 1, vec![]).durations, [1]);
        let none_left = offer(true, Some(&claude()), 0, vec![budget()]);
        assert!(!none_left.grantable && none_left.durations.is_empty() && none_left.choices().is_empty());
        assert!(matches!(
            parse_choice(&offer(true, None, 7, vec![]), &raw("TOOL", "30", "ANY")),
            Err(InvalidChoice::Days { .. })
        ));
    }

    #[test]
    fn a_card_that_is_not_grantable_offers_nothing_to_always_allow() {
        let offer = offer(false, Some(&claude()), 90, vec![budget()]);
        assert!(!offer.grantable);
        assert!(offer.durations.is_empty() && offer.constraint.is_none());
        assert!(offer.scopes().is_empty() && offer.limits().is_empty() && offer.choices().is_empty());
        assert_eq!(parse_choice(&offer, &raw("TOOL", "1", "ANY")), Err(InvalidChoice::NotGrantable));
    }

    #[test]
    fn constrained_is_offered_only_when_exactly_one_evaluator_proposes() {
        let one = offer(true, None, 90, vec![budget()]);
        assert_eq!(
            one.constraint.as_ref().map(|offered| offered.label.as_str()),
            Some("only the spreadsheet “Budget 2026”")
        );
        assert_eq!(one.limits(), [Limit::Constrained, Limit::Any]);
        let other = (Constraint { kind: "folder".into(), value: "F1".into() }, "only the folder “Reports”".into());
        for proposed in [vec![], vec![budget(), other], vec![budget(), budget()]] {
            let offer = offer(true, None, 90, proposed);
            assert_eq!(offer.constraint, None);
            assert_eq!(offer.limits(), [Limit::Any]);
            assert_eq!(parse_choice(&offer, &raw("TOOL", "7", "CONSTRAINED")), Err(InvalidChoice::NoConstraint));
        }
        let empty = (Constraint { kind: "spreadsheet".into(), value: String::new() }, "only …".into());
        assert_eq!(offer(true, None, 90, vec![empty]).constraint, None, "an empty constraint would constrain nothing");
    }

    #[test]
    fn agent_scope_needs_a_known_agent() {
        for agent in [None, Some(""), Some("  ")] {
            let agent = agent.map(Agent::registered);
            let offer = offer(true, agent.as_ref(), 90, vec![]);
            assert_eq!(offer.agent, None);
            assert_eq!(offer.scopes(), [Scope::Tool]);
            assert_eq!(parse_choice(&offer, &raw("AGENT", "7", "ANY")), Err(InvalidChoice::AgentUnknown));
        }
        let known = offer(true, Some(&claude()), 90, vec![]);
        assert_eq!(known.scopes(), [Scope::Agent, Scope::Tool]);
        assert_eq!(
            parse_choice(&known, &raw("AGENT", "7", "ANY")),
            Ok(Choice { scope: Scope::Agent, days: 7, limit: Limit::Any })
        );
    }

    #[test]
    fn any_value_not_offered_invalidates_the_whole_choice() {
        let offer = full_offer();
        assert!(parse_choice(&offer, &raw("AGENT", "30", "CONSTRAINED")).is_ok());
        for scope in ["agent", "Tool", "BOTH", "", " TOOL"] {
            assert!(
                matches!(parse_choice(&offer, &raw(scope, "7", "ANY")), Err(InvalidChoice::Scope { .. })),
                "{scope:?}"
            );
        }
        for days in ["90", "0", "2", "31", "-1", "07", " 7", "7.0", "+7", "", "seven", "4294967297"] {
            assert!(
                matches!(parse_choice(&offer, &raw("TOOL", days, "ANY")), Err(InvalidChoice::Days { .. })),
                "{days:?}"
            );
        }
        for limit in ["any", "ALL", "", "CONSTRAINED "] {
            assert!(
                matches!(parse_choice(&offer, &raw("TOOL", "7", limit)), Err(InvalidChoice::Limit { .. })),
                "{limit:?}"
            );
        }
    }

    #[test]
    fn an_invalid_choice_says_in_words_what_was_not_offered() {
        let offer = offer(true, None, 29, vec![]);
        let days = parse_choice(&offer, &raw("TOOL", "30", "ANY")).unwrap_err().to_string();
        assert_eq!(days, "\"30\" days was not offered: the card offered 1 or 7 days");
        let scope = parse_choice(&offer, &raw("EVERYONE", "1", "ANY")).unwrap_err().to_string();
        assert_eq!(scope, "the scope \"EVERYONE\" was not offered: the card offered TOOL");
        let limit = parse_choice(&full_offer(), &raw("TOOL", "1", "SOME")).unwrap_err().to_string();
        assert_eq!(limit, "the limit \"SOME\" was not offered: the card offered CONSTRAINED or ANY");
        assert!(InvalidChoice::NoConstraint.to_string().contains("CONSTRAINED was not offered"));
        assert_eq!(words(["1", "7", "30"].into_iter()), "1, 7 or 30");
        assert_eq!(words(std::iter::empty::<&str>()), "nothing");
    }

    #[test]
    fn an_invalid_always_allow_answer_runs_the_call_once_with_the_reason() {
        let offer = full_offer();
        let (answer, invalid) = parse_answer(&offer, &RawAnswer::Always(raw("TOOL", "90", "ANY")));
        assert_eq!(answer, Answer::AllowOnce);
        assert!(matches!(invalid, Some(InvalidChoice::Days { .. })));
        assert_eq!(parse_answer(&offer, &RawAnswer::Deny), (Answer::Deny, None));
        assert_eq!(parse_answer(&offer, &RawAnswer::AllowOnce), (Answer::AllowOnce, None));
        let (answer, invalid) = parse_answer(&offer, &RawAnswer::Always(raw("TOOL", "7", "ANY")));
        assert_eq!(
            (answer, invalid),
            (Answer::Always(Choice { scope: Scope::Tool, days: 7, limit: Limit::Any }), None)
        );
    }

    #[test]
    fn every_field_of_the_grant_comes_from_the_call_and_the_offer() {
        let offer = full_offer();
        let choice = parse_choice(&offer, &raw("AGENT", "30", "CONSTRAINED")).unwrap();
        let grant = grant_from_choice(&call(), &offer, &choice, now(), "g-1".into()).unwrap();
        assert_eq!(
            grant,
            Grant {
                id: "g-1".into(),
                owner: Owner::User("ana@example.com".into()),
                tool: "update_cells".into(),
                agent: Some(claude()),
                constraint: Some(budget().0),
                target_name: None,
                unattended: false,
                created: now(),
                expires: Some(Utc.with_ymd_and_hms(2026, 3, 31, 12, 0, 0).unwrap()),
                revoked: None,
                last_used: None,
                use_count: 0,
                fingerprint: "fp1".into(),
            }
        );
        let choice = parse_choice(&offer, &raw("TOOL", "1", "ANY")).unwrap();
        let grant = grant_from_choice(&call(), &offer, &choice, now(), "g-2".into()).unwrap();
        assert_eq!((grant.agent, grant.constraint), (None, None));
        assert_eq!(grant.expires, Some(now() + TimeDelta::days(1)));
    }

    #[test]
    fn a_card_never_creates_an_unattended_grant() {
        let offer = full_offer();
        for choice in offer.choices() {
            let grant = grant_from_choice(&call(), &offer, &choice, now(), "g".into()).unwrap();
            assert!(!grant.unattended, "{choice:?}");
        }
        assert_eq!(offer.choices().len(), 2 * 3 * 2);
    }

    #[test]
    fn a_choice_read_against_another_card_makes_no_grant() {
        let narrow = offer(true, None, 7, vec![]);
        let wide_choice = Choice { scope: Scope::Agent, days: 30, limit: Limit::Constrained };
        assert!(grant_from_choice(&call(), &narrow, &wide_choice, now(), "g".into()).is_err());
        let someone = Agent::registered("someone-else");
        let other_agent = CardCall { agent: Some(&someone), ..call() };
        let choice = Choice { scope: Scope::Agent, days: 7, limit: Limit::Any };
        assert_eq!(
            grant_from_choice(&other_agent, &full_offer(), &choice, now(), "g".into()),
            Err(InvalidChoice::AgentMismatch {
                offered: Some("claude-desktop".into()),
                call: Some("someone-else".into())
            })
        );
    }

    #[test]
    fn an_expiry_beyond_the_calendar_is_refused_not_a_panic() {
        let offer = full_offer();
        let choice = Choice { scope: Scope::Tool, days: 30, limit: Limit::Any };
        let end = DateTime::<Utc>::MAX_UTC;
        assert!(matches!(
            grant_from_choice(&call(), &offer, &choice, end, "g".into()),
            Err(InvalidChoice::ExpiryOutOfRange { .. })
        ));
    }

    #[test]
    fn raw_answers_take_days_as_a_number_or_as_text() {
        let number: RawChoice = serde_json::from_str(r#"{"scope":"TOOL","days":7,"limit":"ANY"}"#).unwrap();
        let text: RawChoice = serde_json::from_str(r#"{"scope":"TOOL","days":"7","limit":"ANY"}"#).unwrap();
        assert_eq!(number, text);
        let negative: RawChoice = serde_json::from_str(r#"{"scope":"TOOL","days":-7,"limit":"ANY"}"#).unwrap();
        assert!(parse_choice(&full_offer(), &negative).is_err());
        assert!(serde_json::from_str::<RawChoice>(r#"{"scope":"TOOL","days":7.5,"limit":"ANY"}"#).is_err());
    }

    fn arb_constraint() -> impl Strategy<Value = (Constraint, String)> {
        ("[a-z_]{0,8}", "[A-Za-z0-9]{0,6}", ".{0,12}")
            .prop_map(|(kind, value, label)| (Constraint { kind, value }, label))
    }

    fn arb_text(words: &'static [&'static str]) -> impl Strategy<Value = String> {
        prop_oneof![proptest::sample::select(words).prop_map(str::to_owned), "[A-Za-z ]{0,12}", ".{0,12}",]
    }

    fn arb_days() -> impl Strategy<Value = String> {
        prop_oneof![
            proptest::sample::select(&[0u32, 1, 2, 6, 7, 8, 29, 30, 31, 90, 365][..]).prop_map(|days| days.to_string()),
            any::<u32>().prop_map(|days| days.to_string()),
            any::<i64>().prop_map(|days| days.to_string()),
            proptest::sample::select(&["07", " 7", "7 ", "+7", "1.0", "", "seven"][..]).prop_map(str::to_owned),
            ".{0,6}",
        ]
    }

    fn arb_agent() -> impl Strategy<Value = Option<String>> {
        prop_oneof![
            Just(None),
            Just(Some(String::new())),
            Just(Some("claude-desktop".to_owned())),
            "[a-z ]{0,8}".prop_map(Some)
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// Whatever arrives, a choice is accepted exactly when every value in it was offered, and the grant it
        /// makes holds only what the call and the offer hold.
        #[test]
        fn an_answer_selects_only_among_what_the_card_offered(
            grantable in any::<bool>(),
            agent in arb_agent(),
            max_days in 0u32..=120,
            proposed in proptest::collection::vec(arb_constraint(), 0..=3),
            scope in arb_text(&["AGENT", "TOOL", "agent", "tool", "ANY"]),
            days in arb_days(),
            limit in arb_text(&["CONSTRAINED", "ANY", "constrained", "any", "TOOL"]),
            seconds in 0i64..4_000_000_000,
        ) {
            let agent_known = agent.as_deref().is_some_and(|agent| !agent.trim().is_empty());
            let constraint_offered =
                proposed.len() == 1 && !proposed[0].0.kind.is_empty() && !proposed[0].0.value.is_empty();
            let agent = agent.map(Agent::self_reported);
            let offer = offer(grantable, agent.as_ref(), max_days, proposed.clone());
            let raw = RawChoice { scope: scope.clone(), days: days.clone(), limit: limit.clone() };

            // The oracle, from the rules alone: every value offered, or the whole choice is invalid.
            let any_duration = grantable && max_days >= 1;
            let scope_offered = scope == "TOOL" || (scope == "AGENT" && agent_known);
            let days_offered = CARD_DURATIONS.iter().any(|offered| *offered <= max_days && offered.to_string() == days);
            let limit_offered = limit == "ANY" || (limit == "CONSTRAINED" && constraint_offered);
            let expected_ok = any_duration && scope_offered && days_offered && limit_offered;

            let parsed = parse_choice(&offer, &raw);
            prop_assert_eq!(parsed.is_ok(), expected_ok, "offer {:?}, answer {:?}: {:?}", offer, raw, parsed);
            let Ok(choice) = parsed else { return Ok(()) };
            prop_assert!(offer.choices().contains(&choice));

            let now = DateTime::<Utc>::from_timestamp(seconds, 0).unwrap();
            let call = CardCall {
                owner_email: "ana@example.com",
                tool: "update_cells",
                agent: agent.as_ref(),
                fingerprint: "fp",
            };
            let grant = grant_from_choice(&call, &offer, &choice, now, "id".into()).unwrap();
            prop_assert!(grant.agent.is_none() || grant.agent == offer.agent);
            prop_assert!(grant.agent.is_some() == (choice.scope == Scope::Agent));
            match &grant.constraint {
                None => prop_assert_eq!(choice.limit, Limit::Any),
                Some(constraint) => {
                    prop_assert_eq!(choice.limit, Limit::Constrained);
                    prop_assert_eq!(constraint, &proposed[0].0);
                }
            }
            let lasted = grant.expires.unwrap() - now;
            prop_assert!(offer.durations.iter().any(|days| lasted == TimeDelta::days(i64::from(*days))));
            prop_assert!(!grant.unattended);
            prop_assert_eq!(grant.owner, Owner::User("ana@example.com".into()));
            prop_assert_eq!(grant.tool, "update_cells");
            prop_assert_eq!(grant.fingerprint, "fp");
            prop_assert_eq!((grant.created, grant.revoked, grant.last_used, grant.use_count), (now, None, None, 0));
        }

        /// Every choice a card lists is accepted by the parser and makes a grant.
        #[test]
        fn every_listed_choice_is_accepted(
            grantable in any::<bool>(),
            agent in arb_agent(),
            max_days in 0u32..=120,
            proposed in proptest::collection::vec(arb_constraint(), 0..=2),
        ) {
            let agent = agent.map(Agent::registered);
            let offer = offer(grantable, agent.as_ref(), max_days, proposed);
            let call = CardCall { owner_email: "a@b.c", tool: "t", agent: agent.as_ref(), fingerprint: "f" };
            for choice in offer.choices() {
                prop_assert_eq!(parse_choice(&offer, &choice.to_raw()), Ok(choice));
                prop_assert!(grant_from_choice(&call, &offer, &choice, Utc::now(), "id".into()).is_ok());
            }
        }
    }
}
