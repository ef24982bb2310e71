//! The `email_domain` evaluator, for sharing: a grant limited to `example.com` covers a call only when every
//! recipient is an email address at exactly that domain (no subdomains). A share with a whole domain or
//! with anyone who has the link names no address, so it proposes no constraint and satisfies none.
//!
//! The recipients come from the sharing tool's own reading of its arguments (the type a grant defaults to,
//! the spelling of the email field), so the evaluator judges the grants the tool would actually make.

use serde::de::DeserializeOwned;

use super::{Evaluator, Rule, unknown_constraint};
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

    fn describe(&self, constraint: &Constraint) -> String {
        if constraint.kind == KIND {
            format!("only people at {}", constraint.value)
        } else {
            unknown_constraint(constraint)
        }
    }
}

impl<A: DeserializeOwned + 'static> Evaluator<A> {
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
        assert_eq!(e.standing_approval(&args), Ok(()));
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
            assert_eq!(e.standing_approval(&args).unwrap_err().evaluator, KIND);
        }
    }

    #[test]
    fn the_card_names_the_domain() {
        let e = Evaluator::email_domain(recipients).bind("share");
        assert_eq!(e.describe(&domain("example.com")), "only people at example.com");
    }
}
