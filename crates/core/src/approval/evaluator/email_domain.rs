//! The `email_domain` evaluator, for sharing: a grant limited to `example.com` covers a call only when every
//! recipient is an email address at exactly that domain (no subdomains). A share with a whole domain or
//! with anyone who has the link names no address, so it proposes no constraint and satisfies none.
//!
//! The recipients come from the sharing tool's own reading of its arguments (the type a grant defaults to,
//! the spelling of the email field), so the evaluator judges the grants the tool would actually make.
//!
//! The `invitees` veto is the other rule about addresses: a call that makes Google email people outside the
//! signed-in person's organisation (a Calendar invitation) always asks, whatever grant exists. A grant
//! "only this calendar" is about where events go, not whom they reach; without the veto it would let an
//! assistant invite, and so mail, anyone. The `event_attendees` veto is the same rule for the people already
//! on an event: Google emails them a change or a cancellation, so an update or a delete of an event with
//! anyone outside on it always asks too. Those attendees are not in the call's arguments: the gate reads them
//! from Google before deciding ([`OnTheEvent`]), and what it can't read is a veto. Who is outside is
//! [`outside`]'s one rule, and [`mails_outsiders`] the one wording, for both.

use serde::de::DeserializeOwned;

use super::{Evaluator, Rule, Veto, VetoOnly, VetoOnlyRule};
use crate::approval::model::Constraint;

pub const KIND: &str = "email_domain";

/// One recipient of a share, as the tool will grant it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Recipient {
    /// A person or a group, by email address (a group is judged by its own address: its members are not
    /// visible here).
    Email(String),
    /// Anything not named by an address (`domain`, `anyone`): its permission type.
    Other(String),
}

type Recipients<A> = Box<dyn Fn(&A) -> Result<Vec<Recipient>, String> + Send + Sync>;

struct EmailDomainRule<A> {
    recipients: Recipients<A>,
}

/// The domain of an address, lowercased (domains ignore case); an error for text that is not an address.
fn domain_of(email: &str) -> Result<String, String> {
    let bad = || format!("{email:?} is not an email address, so its domain cannot be checked.");
    let (local, domain) = email.trim().rsplit_once('@').ok_or_else(bad)?;
    if local.is_empty() || domain.is_empty() || domain.contains(char::is_whitespace) {
        return Err(bad());
    }
    Ok(domain.to_lowercase())
}

/// What the recipients amount to: the domain of each address, or `None` when any recipient has no address.
fn domains(recipients: &[Recipient]) -> Result<Option<Vec<String>>, String> {
    if recipients.is_empty() {
        return Err("the call names no one to share with.".to_owned());
    }
    let mut domains = Vec::with_capacity(recipients.len());
    for recipient in recipients {
        match recipient {
            Recipient::Email(email) => domains.push(domain_of(email)?),
            Recipient::Other(_) => return Ok(None),
        }
    }
    Ok(Some(domains))
}

impl<A> Rule<A> for EmailDomainRule<A> {
    fn kind(&self) -> &'static str {
        KIND
    }

    fn propose(&self, args: &A) -> Result<Option<Constraint>, String> {
        let Some(domains) = domains(&(self.recipients)(args)?)? else { return Ok(None) };
        let first = &domains[0];
        Ok(domains
            .iter()
            .all(|domain| domain == first)
            .then(|| Constraint { kind: KIND.to_owned(), value: first.clone() }))
    }

    fn satisfies(&self, constraint: &Constraint, args: &A) -> Result<bool, String> {
        let domains = domains(&(self.recipients)(args)?)?;
        let wanted = constraint.value.trim().to_lowercase();
        Ok(constraint.kind == KIND
            && !wanted.is_empty()
            && domains.is_some_and(|domains| domains.iter().all(|domain| *domain == wanted)))
    }
}

/// The domains of personal Google accounts. Everyone can have an address there, so the domain keeps nobody
/// inside: for such an account every other address is outside.
pub const PERSONAL_DOMAINS: &[&str] = &["gmail.com", "googlemail.com"];

/// Who counts as outside the signed-in account's organisation, and why, for the card.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outside<'a> {
    /// The addresses outside, as given.
    pub addresses: Vec<&'a str>,
    /// The organisation's domain when there is one (a Workspace account); `None` for a personal account or
    /// when no account is known, where everyone but the account itself is outside.
    pub home: Option<String>,
    /// Why there is no home domain, in words (`None` when there is one).
    pub why_no_home: Option<&'static str>,
}

/// The addresses among `emails` outside the organisation of `account`: at another domain than the account's
/// (exactly: a subdomain is another domain), or, for a personal account (gmail.com) or when no account is
/// known, every address but the account's own. Text that is not an address counts as outside: what can't be
/// judged falls on the side that asks.
pub fn outside<'a>(account: Option<&str>, emails: impl IntoIterator<Item = &'a str>) -> Outside<'a> {
    let own = account.map(|account| account.trim().to_lowercase());
    let (home, why_no_home) = match own.as_deref().map(domain_of) {
        Some(Ok(domain)) if PERSONAL_DOMAINS.contains(&domain.as_str()) => {
            (None, Some("a personal Google account has no organisation to keep them inside"))
        }
        Some(Ok(domain)) => (Some(domain), None),
        _ => (None, Some("Gatehouse does not know the signed-in account")),
    };
    let addresses = emails
        .into_iter()
        .filter(|email| {
            let address = email.trim().to_lowercase();
            if own.as_deref() == Some(address.as_str()) {
                return false;
            }
            match (&home, domain_of(&address)) {
                (Some(home), Ok(domain)) => domain != *home,
                _ => true,
            }
        })
        .collect();
    Outside { addresses, home, why_no_home }
}

/// The kind of the invitation veto.
pub const INVITEES: &str = "invitees";

/// The kind of the veto for the people already on an event that a call changes or cancels.
pub const EVENT_ATTENDEES: &str = "event_attendees";

/// At most this many addresses are named on a card; the rest are counted.
const NAMED_AT_MOST: usize = 10;

/// At most this many characters of an address are shown (an attendee's address comes from the event, which
/// anyone who invited the person may have written).
const ADDRESS_SHOWN: usize = 80;

/// Whom Google emails about a call, for the words of the veto.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mailing {
    /// The call invites them (its own arguments name them).
    Invited,
    /// They are already on the event the call changes or cancels.
    OnTheEvent,
}

/// The one rule for a call that makes Google email people: the reason it must always ask when any of
/// `emails` is outside the account's organisation ([`outside`]), or `None` when nobody is. The card says how
/// many and, for the people already on an event (whom the call itself does not name), who they are.
fn mails_outsiders<'a>(
    account: Option<&str>,
    emails: impl IntoIterator<Item = &'a str>,
    mailing: Mailing,
) -> Option<String> {
    let outside = outside(account, emails);
    let count = outside.addresses.len();
    let (people, get, are) = match count {
        0 => return None,
        1 => ("1 person".to_owned(), "gets", "is"),
        n => (format!("{n} people"), "get", "are"),
    };
    const ASKS: &str = "so it asks every time, whatever you allowed before.";
    Some(match (mailing, &outside.home, outside.why_no_home) {
        (Mailing::Invited, Some(home), _) => {
            format!("This call invites {people} outside {home}, who {get} an email from Google, {ASKS}")
        }
        (Mailing::Invited, None, why) => format!(
            "This call invites {people}, who {get} an email from Google, and {}; {ASKS}",
            why.unwrap_or("nobody counts as inside")
        ),
        (Mailing::OnTheEvent, Some(home), _) => format!(
            "Google emails this change to everyone on the event, and {people} on it {are} outside {home} ({}); {ASKS}",
            named_addresses(&outside.addresses)
        ),
        (Mailing::OnTheEvent, None, why) => format!(
            "Google emails this change to everyone on the event: {people} ({}), and {}; {ASKS}",
            named_addresses(&outside.addresses),
            why.unwrap_or("nobody counts as inside")
        ),
    })
}

/// The addresses as a card names them: the first [`NAMED_AT_MOST`], each cut to [`ADDRESS_SHOWN`]
/// characters, then how many more.
fn named_addresses(addresses: &[&str]) -> String {
    let named: Vec<String> = addresses
        .iter()
        .take(NAMED_AT_MOST)
        .map(|address| {
            let cut = crate::shown::cut(address.trim(), ADDRESS_SHOWN);
            if cut.more == 0 { cut.text } else { format!("{}…", cut.text) }
        })
        .collect();
    match addresses.len().saturating_sub(NAMED_AT_MOST) {
        0 => named.join(", "),
        more => format!("{} and {more} more", named.join(", ")),
    }
}

/// The people already on the event a call changes or cancels, as the gate read them from Google before
/// deciding: Google emails each of them the change (`sendUpdates=all`). Reading them is the gate's (the
/// evaluators do no I/O); judging them is [`event_attendees_veto`]'s.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OnTheEvent {
    /// Their addresses, as the event lists them.
    Read(Vec<String>),
    /// They could not all be read (Google unreachable or slow, the event not found, a list Google cut
    /// short): why, in words. Whom Google would mail is then unknown, so the call asks.
    Unread(String),
}

/// The veto for a call that makes Google email the people on an existing event: `Some` when any of them is
/// outside the account's organisation, or when they could not be read (`on_event` is `None` when the gate
/// did not read them: also a veto, so a decision taken without the read can never let a grant cover it).
pub fn event_attendees_veto(account: Option<&str>, on_event: Option<&OnTheEvent>) -> Option<Veto> {
    let unread = |why: &str| {
        format!(
            "Google emails this change to everyone on the event, and Gatehouse could not read who is on it ({why}); so it asks every time, whatever you allowed before."
        )
    };
    let reason = match on_event {
        Some(OnTheEvent::Read(emails)) => {
            mails_outsiders(account, emails.iter().map(String::as_str), Mailing::OnTheEvent)?
        }
        Some(OnTheEvent::Unread(why)) => unread(why),
        None => unread("the event was not read before deciding"),
    };
    Some(Veto { evaluator: EVENT_ATTENDEES, reason })
}

type EventOf<A> = Box<dyn for<'a> Fn(&'a A) -> (&'a str, &'a str) + Send + Sync>;

/// Names the event whose attendees Google emails about a call, for the gate to read before deciding; the
/// veto itself is [`event_attendees_veto`], over what was read.
struct EventAttendeesRule<A> {
    event: EventOf<A>,
}

impl<A> VetoOnlyRule<A> for EventAttendeesRule<A> {
    fn kind(&self) -> &'static str {
        EVENT_ATTENDEES
    }

    fn event_told(&self, args: &A) -> Option<(String, String)> {
        // Trimmed as the calendar tools trim the ids they send.
        let (calendar, event) = (self.event)(args);
        Some((calendar.trim().to_owned(), event.trim().to_owned()))
    }
}

type Invitees<A> = Box<dyn for<'a> Fn(&'a A) -> &'a [String] + Send + Sync>;

/// Vetoes standing approval for a call that invites anyone outside the account's organisation.
struct InviteesRule<A> {
    invitees: Invitees<A>,
}

impl<A> VetoOnlyRule<A> for InviteesRule<A> {
    fn kind(&self) -> &'static str {
        INVITEES
    }

    fn veto(&self, args: &A, account: Option<&str>) -> Option<String> {
        mails_outsiders(account, (self.invitees)(args).iter().map(String::as_str), Mailing::Invited)
    }
}

impl<A: DeserializeOwned + 'static> Evaluator<A> {
    /// Vetoes standing approval when a call invites anyone outside the signed-in account's organisation
    /// (see [`outside`]): `invitees` reads the addresses Google will email. It proposes no constraint, so it
    /// sits beside the tool's target evaluator (an event's calendar) without taking its place on the card.
    pub fn invitees(invitees: impl for<'a> Fn(&'a A) -> &'a [String] + Send + Sync + 'static) -> Self {
        Self::from_rule(VetoOnly(InviteesRule { invitees: Box::new(invitees) }))
    }

    /// Vetoes standing approval when the people already on the event `event` names (calendar id, event id)
    /// include anyone outside the signed-in account's organisation, or can't be read: the call changes or
    /// cancels the event, and Google emails them about it. The gate reads them before deciding
    /// ([`ArgEvaluator::event_told`](super::ArgEvaluator::event_told)); the arguments alone never veto.
    pub fn event_attendees(event: impl for<'a> Fn(&'a A) -> (&'a str, &'a str) + Send + Sync + 'static) -> Self {
        Self::from_rule(VetoOnly(EventAttendeesRule { event: Box::new(event) }))
    }

    /// Limits grants to shares whose every recipient is an address at one domain. `recipients` lists them as
    /// the tool will grant them, or says in words why it can't (the tool would refuse the call).
    pub fn email_domain(recipients: impl Fn(&A) -> Result<Vec<Recipient>, String> + Send + Sync + 'static) -> Self {
        Self::from_rule(EmailDomainRule { recipients: Box::new(recipients) })
    }
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;
    use serde_json::json;

    use super::*;

    /// Recipients as a list of `"email"` or `{"type": …}`.
    #[derive(Deserialize)]
    struct Args {
        to: Vec<serde_json::Value>,
    }

    fn recipients(args: &Args) -> Result<Vec<Recipient>, String> {
        Ok(args
            .to
            .iter()
            .map(|r| match r.as_str() {
                Some(email) => Recipient::Email(email.to_owned()),
                None => Recipient::Other(r["type"].as_str().unwrap_or_default().to_owned()),
            })
            .collect())
    }

    fn domain(value: &str) -> Constraint {
        Constraint { kind: KIND.to_owned(), value: value.to_owned() }
    }

    #[test]
    fn one_domain_is_proposed_and_checked_ignoring_case() {
        let e = Evaluator::email_domain(recipients).bind("share");
        let args = json!({ "to": ["ann@Example.com", "bob@example.COM"] });
        assert_eq!(e.propose(&args).unwrap(), Some(domain("example.com")));
        assert!(e.satisfies(&domain("example.com"), &args).unwrap());
        assert!(e.satisfies(&domain("EXAMPLE.com"), &args).unwrap());
        assert!(!e.satisfies(&domain("other.com"), &args).unwrap());
        assert!(!e.satisfies(&domain("com"), &args).unwrap(), "no suffix matching");
        let sub = json!({ "to": ["ann@mail.example.com"] });
        assert!(!e.satisfies(&domain("example.com"), &sub).unwrap(), "a subdomain is another domain");
        assert!(!e.satisfies(&Constraint { kind: "file".into(), value: "example.com".into() }, &args).unwrap());
    }

    #[test]
    fn several_domains_propose_nothing_and_satisfy_no_single_one() {
        let e = Evaluator::email_domain(recipients).bind("share");
        let args = json!({ "to": ["ann@example.com", "eve@evil.example"] });
        assert_eq!(e.propose(&args).unwrap(), None);
        assert!(!e.satisfies(&domain("example.com"), &args).unwrap());
        assert_eq!(e.standing_approval(&args, None), Ok(()));
    }

    #[test]
    fn a_recipient_without_an_address_proposes_nothing_and_satisfies_nothing() {
        let e = Evaluator::email_domain(recipients).bind("share");
        let args = json!({ "to": ["ann@example.com", { "type": "anyone" }] });
        assert_eq!(e.propose(&args).unwrap(), None);
        assert!(!e.satisfies(&domain("example.com"), &args).unwrap());
    }

    #[test]
    fn no_recipient_or_a_non_address_cannot_be_judged() {
        let e = Evaluator::email_domain(recipients).bind("share");
        for args in [json!({ "to": [] }), json!({ "to": ["ann"] }), json!({ "to": ["ann@"] })] {
            assert!(e.propose(&args).is_err(), "{args}");
            assert!(e.satisfies(&domain("example.com"), &args).is_err(), "{args}");
            assert_eq!(e.standing_approval(&args, None).unwrap_err().evaluator, KIND);
        }
    }

    #[derive(Deserialize)]
    struct Invite {
        #[serde(default)]
        attendees: Vec<String>,
    }

    fn invitees() -> std::sync::Arc<dyn crate::approval::evaluator::ArgEvaluator> {
        Evaluator::invitees(|a: &Invite| &a.attendees).bind("create_event")
    }

    #[test]
    fn colleagues_and_oneself_may_be_invited_under_a_grant() {
        let e = invitees();
        let args = json!({ "attendees": ["bob@Example.com", " ada@example.com "] });
        assert_eq!(e.standing_approval(&args, Some("ada@example.com")), Ok(()));
        assert_eq!(e.standing_approval(&json!({}), Some("ada@example.com")), Ok(()));
        assert!(!e.constrains());
        assert_eq!(e.propose(&args).unwrap(), None);
    }

    #[test]
    fn outsiders_veto_and_the_card_says_how_many_and_why() {
        let e = invitees();
        let args = json!({ "attendees": ["bob@example.com", "eve@evil.example", "mal@mail.example.com"] });
        let veto = e.standing_approval(&args, Some("ada@example.com")).unwrap_err();
        assert_eq!(veto.evaluator, INVITEES);
        assert!(veto.reason.contains("invites 2 people outside example.com, who get an email from Google"), "{veto}");
        let one = json!({ "attendees": ["not an address"] });
        let veto = e.standing_approval(&one, Some("ada@example.com")).unwrap_err();
        assert!(veto.reason.contains("invites 1 person outside example.com"), "{veto}");
    }

    #[test]
    fn a_personal_account_or_an_unknown_one_has_nobody_inside() {
        let e = invitees();
        let args = json!({ "attendees": ["bob@gmail.com"] });
        for account in [Some("ada@gmail.com"), Some("ada@googlemail.com")] {
            let veto = e.standing_approval(&args, account).unwrap_err();
            assert!(veto.reason.contains("personal Google account"), "{veto}");
        }
        assert_eq!(e.standing_approval(&json!({ "attendees": ["ADA@gmail.com"] }), Some("ada@gmail.com")), Ok(()));
        let veto = e.standing_approval(&args, None).unwrap_err();
        assert!(veto.reason.contains("does not know the signed-in account"), "{veto}");
    }

    #[test]
    fn the_people_on_an_event_veto_when_any_is_outside_and_the_card_names_them() {
        let read = |emails: &[&str]| OnTheEvent::Read(emails.iter().map(|email| (*email).to_owned()).collect());
        let ada = Some("ada@example.com");
        assert_eq!(event_attendees_veto(ada, Some(&read(&[]))), None);
        assert_eq!(event_attendees_veto(ada, Some(&read(&["ADA@example.com", "bob@example.com"]))), None);
        let veto = event_attendees_veto(ada, Some(&read(&["bob@example.com", "eve@evil.example"]))).unwrap();
        assert_eq!(veto.evaluator, EVENT_ATTENDEES);
        assert!(
            veto.reason.contains("and 1 person on it is outside example.com (eve@evil.example)"),
            "{}",
            veto.reason
        );
        // A personal account: everyone else is outside, and the card names each.
        let veto = event_attendees_veto(Some("ada@gmail.com"), Some(&read(&["ada@gmail.com", "bob@gmail.com"])));
        let reason = veto.unwrap().reason;
        assert!(reason.contains("1 person (bob@gmail.com)") && reason.contains("personal Google account"), "{reason}");
        // Many: the first ten named, the rest counted; a long address cut.
        let many: Vec<String> = (0..12).map(|i| format!("p{i}@evil.example")).collect();
        let reason = event_attendees_veto(ada, Some(&OnTheEvent::Read(many))).unwrap().reason;
        assert!(
            reason.contains("12 people on it are outside") && reason.contains("p9@evil.example and 2 more"),
            "{reason}"
        );
        assert!(!reason.contains("p10@"), "{reason}");
        let long = format!("{}@evil.example", "x".repeat(200));
        let reason = event_attendees_veto(ada, Some(&read(&[long.as_str()]))).unwrap().reason;
        assert!(reason.contains(&format!("({}…)", "x".repeat(80))), "{reason}");
    }

    #[test]
    fn attendees_unread_or_not_read_at_all_are_a_veto() {
        let unread = OnTheEvent::Unread("Google did not answer within 5 seconds".into());
        let veto = event_attendees_veto(Some("ada@example.com"), Some(&unread)).unwrap();
        assert!(veto.reason.contains("could not read who is on it (Google did not answer within 5 seconds)"), "{veto}");
        let veto = event_attendees_veto(Some("ada@example.com"), None).unwrap();
        assert!(veto.reason.contains("the event was not read before deciding"), "{veto}");
    }

    #[derive(Deserialize)]
    struct EventCall {
        calendar_id: String,
        event_id: String,
    }

    #[test]
    fn the_event_evaluator_names_the_event_as_the_tool_sends_it_and_never_vetoes_on_the_arguments() {
        let e = Evaluator::event_attendees(|a: &EventCall| (a.calendar_id.as_str(), a.event_id.as_str()))
            .bind("delete_event");
        let args = json!({ "calendar_id": " primary ", "event_id": "e1 " });
        assert_eq!(e.event_told(&args), Some(("primary".to_owned(), "e1".to_owned())));
        assert_eq!(e.standing_approval(&args, Some("ada@example.com")), Ok(()));
        assert!(!e.constrains());
        assert_eq!(e.propose(&args).unwrap(), None);
        assert_eq!(e.event_told(&json!({ "calendar_id": "primary" })), None, "unparsed arguments name nothing");
        // Through the combined decision: naming an event and nothing read is a veto.
        let evaluators = [e];
        let veto = super::super::standing_approval_read(&evaluators, &args, Some("ada@example.com"), None);
        assert_eq!(veto.unwrap_err().evaluator, EVENT_ATTENDEES);
        let nobody = OnTheEvent::Read(Vec::new());
        assert_eq!(
            super::super::standing_approval_read(&evaluators, &args, Some("ada@example.com"), Some(&nobody)),
            Ok(())
        );
    }

    #[test]
    fn the_card_names_the_domain() {
        assert_eq!(super::super::constraint_words(&domain("example.com")), "only people at example.com");
    }
}
