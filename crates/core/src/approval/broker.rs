//! Pending approvals: each call waiting for the person is held here with what its card offers, until the
//! first answer, the timeout, or the caller giving up. Answers come from the person's side only (the tray card,
//! `gatehouse approvals`), never from the MCP connection.
//!
//! The first answer wins because answering removes the card: a second answer finds nothing to answer. Each
//! card has its own channel, so many pending calls can never be answered for one another.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::sync::{broadcast, oneshot};

use super::card::{CardOffer, RawAnswer};
use super::form::{FormAnswerError, FormCard};
use super::model::AnswerChannel;
use super::preview::PreviewState;
use super::sentence::Sentence;

/// What a card shows, and what the answer may choose from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PendingCard {
    /// A small number, unique in this process, for `gatehouse approvals allow ID`.
    pub id: u64,
    pub agent: Option<crate::approval::model::Agent>,
    pub tool: String,
    /// The tool in plain words ("Update cells").
    pub title: String,
    /// The target by name, or its id when the name is unknown.
    pub target: Option<String>,
    /// The call's arguments as the card previews them (secrets redacted).
    pub arguments: Value,
    pub offer: CardOffer,
    /// The call repeats one the person already answered (so no *Always allow*).
    pub retry: bool,
    /// Why *Always allow* is not offered, in words, when it is not.
    #[serde(default)]
    pub why_not_grantable: Option<String>,
    pub created: DateTime<Utc>,
    /// When the call stops waiting.
    pub deadline: DateTime<Utc>,
    /// Google's approval form, when this card asks it (see [`super::form`]); `None` for Gatehouse's own cards.
    #[serde(default)]
    pub form: Option<FormCard>,
    /// What the call will do, in the person's words (see [`super::sentence`]); empty for a form's card.
    #[serde(default)]
    pub sentence: Sentence,
    /// The preview of the change (see [`super::preview`]), filled in when it arrives after the card showed.
    #[serde(default)]
    pub preview: PreviewState,
    /// Why the person is asked again about a call they already answered, when they are: its target changed
    /// since the preview they saw.
    #[serde(default)]
    pub asked_again: Option<String>,
}

impl PendingCard {
    /// The card as a page shows it: every text in it from outside (the assistant's name, the target's name,
    /// each string and key of the arguments, the offered limit's words) escaped by [`crate::shown::shown`],
    /// so a direction mark or a line break shows as what it is instead of reordering or splitting what the
    /// person reads. Only for showing: an answer is checked against the card as the broker keeps it.
    pub fn shown(&self) -> PendingCard {
        let text = |text: &str| crate::shown::shown(text).into_owned();
        let agent = |agent: &crate::approval::model::Agent| crate::approval::model::Agent {
            name: text(&agent.name),
            self_reported: agent.self_reported,
        };
        let mut offer = self.offer.clone();
        offer.agent = offer.agent.as_ref().map(agent);
        if let Some(constraint) = &mut offer.constraint {
            constraint.label = text(&constraint.label);
        }
        PendingCard {
            agent: self.agent.as_ref().map(agent),
            tool: text(&self.tool),
            title: text(&self.title),
            target: self.target.as_deref().map(text),
            arguments: shown_value(&self.arguments),
            offer,
            why_not_grantable: self.why_not_grantable.as_deref().map(text),
            form: self.form.as_ref().map(FormCard::shown),
            sentence: self.sentence.shown(),
            preview: self.preview.shown(),
            ..self.clone()
        }
    }
}

/// `value` with every string and key escaped (see [`PendingCard::shown`]).
fn shown_value(value: &Value) -> Value {
    match value {
        Value::String(text) => Value::String(crate::shown::shown(text).into_owned()),
        Value::Array(items) => Value::Array(items.iter().map(shown_value).collect()),
        Value::Object(map) => Value::Object(
            map.iter().map(|(key, value)| (crate::shown::shown(key).into_owned(), shown_value(value))).collect(),
        ),
        other => other.clone(),
    }
}

/// A change of the pending set, for a tray or a terminal that shows it.
#[derive(Debug, Clone, PartialEq)]
pub enum BrokerEvent {
    Added(Box<PendingCard>),
    /// A pending card changed: its preview arrived (or could not be read).
    Updated(Box<PendingCard>),
    /// Answered, timed out or abandoned.
    Removed(u64),
}

/// How waiting ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Waited {
    Answered(RawAnswer, AnswerChannel),
    TimedOut,
    /// Nobody answered: every pending card was dismissed at once, for this reason.
    Dismissed(Dismissal),
}

/// Why every pending card was dismissed unanswered: each is refused, and logged with its own source, never
/// as the person's *Deny*.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dismissal {
    /// The person paused every assistant.
    Paused,
    /// Gatehouse is quitting.
    ShuttingDown,
}

/// Why an answer was not taken.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AnswerError {
    #[error(
        "There is no pending approval {0}: it was already answered, it timed out, or the assistant stopped waiting. Run `gatehouse approvals` to see what is pending."
    )]
    NotPending(u64),
    /// The answer does not fit the card (a form's field missing or wrong, *Always allow* on a form, a filled
    /// form on one of Gatehouse's own cards): nothing was answered, and the card still waits.
    #[error("Nothing was answered: {0}. The approval is still waiting; answer it again.")]
    Unfit(FormAnswerError),
}

/// Whether `answer` fits `card`: a form's card takes only answers its form reads ([`FormCard::read_answer`]),
/// and only a form's card takes a filled form.
fn fits(card: &PendingCard, answer: &RawAnswer) -> Result<(), AnswerError> {
    match (&card.form, answer) {
        (Some(form), answer) => form.read_answer(answer).map(drop).map_err(AnswerError::Unfit),
        (None, RawAnswer::Form(_)) => Err(AnswerError::Unfit(FormAnswerError::NotAForm)),
        (None, _) => Ok(()),
    }
}

struct Waiting {
    card: PendingCard,
    /// The process of the assistant whose call waits (see `crate::process`), when known: a terminal
    /// answer from it or one of its descendants is refused.
    origin: Option<u32>,
    reply: oneshot::Sender<Result<(RawAnswer, AnswerChannel), Dismissal>>,
}

/// The pending approvals of this process.
pub struct Broker {
    pending: Mutex<BTreeMap<u64, Waiting>>,
    next: AtomicU64,
    events: broadcast::Sender<BrokerEvent>,
}

impl Default for Broker {
    fn default() -> Self {
        Self { pending: Mutex::new(BTreeMap::new()), next: AtomicU64::new(1), events: broadcast::channel(256).0 }
    }
}

impl Broker {
    pub fn new() -> Self {
        Self::default()
    }

    /// Shows `card` (its `id` is assigned here) and waits for the first answer, at most `timeout`. If the
    /// caller stops waiting (the future is dropped), the card goes away.
    pub async fn ask(&self, card: PendingCard, timeout: Duration) -> Waited {
        self.ask_from(card, timeout, None).await
    }

    /// [`ask`](Broker::ask) for a call from the assistant process `origin` (when known).
    pub async fn ask_from(&self, card: PendingCard, timeout: Duration, origin: Option<u32>) -> Waited {
        self.ask_updating(card, timeout, origin, None).await.0
    }

    /// [`ask_from`](Broker::ask_from), the card's preview still on its way in `later`: when it comes, the card
    /// shows it ([`BrokerEvent::Updated`]); the answer is taken whenever it comes, with or without it. Also
    /// what the card showed of the preview when it was answered, which the answer covers.
    pub async fn ask_updating(
        &self,
        mut card: PendingCard,
        timeout: Duration,
        origin: Option<u32>,
        later: Option<futures::future::BoxFuture<'_, PreviewState>>,
    ) -> (Waited, PreviewState) {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        card.id = id;
        let mut shown = card.preview.clone();
        let (reply, answer) = oneshot::channel::<Result<(RawAnswer, AnswerChannel), Dismissal>>();
        self.lock().insert(id, Waiting { card: card.clone(), origin, reply });
        let _ = self.events.send(BrokerEvent::Added(Box::new(card)));
        let _cleanup = Withdraw { broker: self, id };
        let answer = tokio::time::timeout(timeout, answer);
        tokio::pin!(answer);
        if let Some(later) = later {
            tokio::select! {
                biased;
                answered = &mut answer => return (waited(answered), shown),
                arrived = later => {
                    shown = arrived.clone();
                    self.update(id, arrived);
                }
            }
        }
        (waited(answer.await), shown)
    }

    /// Shows `preview` on pending card `id`, if it still waits.
    fn update(&self, id: u64, preview: PreviewState) {
        let card = {
            let mut pending = self.lock();
            let Some(waiting) = pending.get_mut(&id) else { return };
            waiting.card.preview = preview;
            waiting.card.clone()
        };
        let _ = self.events.send(BrokerEvent::Updated(Box::new(card)));
    }

    /// Answers pending card `id` on the card window. The first answer wins; any later one gets
    /// [`AnswerError::NotPending`].
    pub fn answer(&self, id: u64, answer: RawAnswer) -> Result<(), AnswerError> {
        self.answer_via(id, answer, AnswerChannel::Card)
    }

    /// Answers pending card `id` from `channel` (which the audit record names). Whether that channel may
    /// answer is its caller's to check first (see `crate::control::answers`). An answer that does not fit the
    /// card ([`AnswerError::Unfit`]) answers nothing: the card keeps waiting.
    pub fn answer_via(&self, id: u64, answer: RawAnswer, channel: AnswerChannel) -> Result<(), AnswerError> {
        let waiting = {
            let mut pending = self.lock();
            fits(&pending.get(&id).ok_or(AnswerError::NotPending(id))?.card, &answer)?;
            pending.remove(&id).ok_or(AnswerError::NotPending(id))?
        };
        let _ = self.events.send(BrokerEvent::Removed(id));
        waiting.reply.send(Ok((answer, channel))).map_err(|_| AnswerError::NotPending(id))
    }

    /// The assistant process whose call card `id` waits for: `None` when no such card waits, `Some(None)`
    /// when its process is not known.
    pub fn origin(&self, id: u64) -> Option<Option<u32>> {
        self.lock().get(&id).map(|waiting| waiting.origin)
    }

    /// The pending cards, oldest first.
    pub fn pending(&self) -> Vec<PendingCard> {
        self.lock().values().map(|waiting| waiting.card.clone()).collect()
    }

    /// One pending card.
    pub fn get(&self, id: u64) -> Option<PendingCard> {
        self.lock().get(&id).map(|waiting| waiting.card.clone())
    }

    /// Changes from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<BrokerEvent> {
        self.events.subscribe()
    }

    /// Dismisses every pending card unanswered (quitting, or pausing every assistant): each call is refused.
    pub fn dismiss_all(&self, why: Dismissal) {
        let drained = std::mem::take(&mut *self.lock());
        for (id, waiting) in drained {
            let _ = self.events.send(BrokerEvent::Removed(id));
            let _ = waiting.reply.send(Err(why));
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<u64, Waiting>> {
        // A panic while holding the lock leaves the map consistent (every operation is one insert or remove).
        self.pending.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// What the card's channel gave: the answer and where it came from, or why the card went away.
type Delivered = Result<Result<(RawAnswer, AnswerChannel), Dismissal>, oneshot::error::RecvError>;

/// How waiting for an answer ended.
fn waited(answered: Result<Delivered, tokio::time::error::Elapsed>) -> Waited {
    match answered {
        Ok(Ok(Ok((answer, channel)))) => Waited::Answered(answer, channel),
        Ok(Ok(Err(dismissal))) => Waited::Dismissed(dismissal),
        // The sender is gone only when the broker itself was dropped (shutdown): not approved.
        Ok(Err(_)) => Waited::Dismissed(Dismissal::ShuttingDown),
        Err(_) => Waited::TimedOut,
    }
}

/// Removes a card whose caller stopped waiting or timed out.
struct Withdraw<'a> {
    broker: &'a Broker,
    id: u64,
}

impl Drop for Withdraw<'_> {
    fn drop(&mut self) {
        if self.broker.lock().remove(&self.id).is_some() {
            let _ = self.broker.events.send(BrokerEvent::Removed(self.id));
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::approval::card::offer;

    fn card(tool: &str) -> PendingCard {
        let claude = crate::approval::model::Agent::self_reported("claude");
        PendingCard {
            id: 0,
            agent: Some(claude.clone()),
            tool: tool.into(),
            title: tool.into(),
            target: None,
            arguments: Value::Null,
            offer: offer(true, Some(&claude), 90, Vec::new()),
            retry: false,
            why_not_grantable: None,
            created: Utc::now(),
            deadline: Utc::now(),
            form: None,
            sentence: Sentence::default(),
            preview: PreviewState::None,
            asked_again: None,
        }
    }

    #[test]
    fn a_card_as_shown_has_every_outside_text_escaped_and_nothing_else_changed() {
        let forged = crate::approval::model::Agent::self_reported("claude\u{202e}\n");
        let label = "only this spreadsheet: “Budget\u{2066}”".to_owned();
        let constraint = crate::approval::model::Constraint { kind: "spreadsheet".into(), value: "S1".into() };
        let raw = PendingCard {
            agent: Some(forged.clone()),
            target: Some("“Budget\u{1b}[8m” (spreadsheet S1)".into()),
            arguments: serde_json::json!({ "a\u{200f}": ["x\ny", 1, null], "n": 2 }),
            offer: offer(true, Some(&forged), 90, vec![(constraint, label)]),
            ..card("update_cells")
        };
        let shown = raw.shown();
        assert_eq!(shown.agent.as_ref().map(|agent| agent.name.as_str()), Some("claude\\u{202e}\\n"));
        assert!(shown.agent.as_ref().is_some_and(|agent| agent.self_reported));
        assert_eq!(shown.offer.agent, shown.agent);
        assert_eq!(shown.target.as_deref(), Some("“Budget\\u{1b}[8m” (spreadsheet S1)"));
        assert_eq!(shown.arguments, serde_json::json!({ "a\\u{200f}": ["x\\ny", 1, null], "n": 2 }));
        assert_eq!(shown.offer.constraint.as_ref().unwrap().label, "only this spreadsheet: “Budget\\u{2066}”");
        assert_eq!(
            shown.offer.constraint.as_ref().unwrap().constraint,
            raw.offer.constraint.as_ref().unwrap().constraint
        );
        assert_eq!(
            (shown.id, shown.deadline, shown.offer.durations.clone()),
            (raw.id, raw.deadline, raw.offer.durations.clone())
        );
    }

    async fn wait_for_pending(broker: &Broker, count: usize) -> Vec<PendingCard> {
        for _ in 0..200 {
            let pending = broker.pending();
            if pending.len() == count {
                return pending;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        panic!("expected {count} pending cards, have {:?}", broker.pending());
    }

    #[tokio::test]
    async fn the_first_answer_wins_and_later_ones_change_nothing() {
        let broker = Arc::new(Broker::new());
        let waiter = tokio::spawn({
            let broker = broker.clone();
            async move { broker.ask(card("update_cells"), Duration::from_secs(10)).await }
        });
        let id = wait_for_pending(&broker, 1).await[0].id;
        broker.answer(id, RawAnswer::Deny).unwrap();
        assert_eq!(broker.answer(id, RawAnswer::AllowOnce), Err(AnswerError::NotPending(id)));
        assert_eq!(waiter.await.unwrap(), Waited::Answered(RawAnswer::Deny, AnswerChannel::Card));
        assert!(broker.pending().is_empty());
    }

    #[tokio::test]
    async fn an_answer_that_does_not_fit_a_form_answers_nothing_and_the_card_keeps_waiting() {
        let request: rmcp::model::InputRequest = serde_json::from_value(serde_json::json!({
            "method": "elicitation/create",
            "params": {"mode": "form", "message": "Share it?", "requestedSchema": {"type": "object",
                "properties": {"with": {"type": "string", "format": "email"}}, "required": ["with"]}}
        }))
        .unwrap();
        let google = crate::google::mcp::form::GoogleForm::from_input_request("approval", &request).unwrap();
        let form = FormCard::from_form(&google, false).unwrap();
        let broker = Arc::new(Broker::new());
        let waiter = tokio::spawn({
            let broker = broker.clone();
            let card = PendingCard { form: Some(form), ..card("share_file") };
            async move { broker.ask(card, Duration::from_secs(10)).await }
        });
        let ordinary = tokio::spawn({
            let broker = broker.clone();
            async move { broker.ask(card("update_cells"), Duration::from_secs(10)).await }
        });
        let pending = wait_for_pending(&broker, 2).await;
        let (form_id, own_id) = match pending[0].form {
            Some(_) => (pending[0].id, pending[1].id),
            None => (pending[1].id, pending[0].id),
        };
        let filled = |with: &str| {
            let mut content = serde_json::Map::new();
            content.insert("with".into(), Value::String(with.into()));
            RawAnswer::Form(content)
        };
        let always = RawAnswer::Always(crate::approval::card::RawChoice {
            scope: "TOOL".into(),
            days: "1".into(),
            limit: "ANY".into(),
        });
        for unfit in [RawAnswer::AllowOnce, filled("not an address"), always] {
            let refused = broker.answer(form_id, unfit.clone());
            assert!(matches!(refused, Err(AnswerError::Unfit(_))), "{unfit:?}: {refused:?}");
        }
        let refused = broker.answer(form_id, filled("bob")).unwrap_err().to_string();
        assert!(refused.contains("the field “with” takes an email address"), "{refused}");
        assert_eq!(
            broker.answer(own_id, filled("bob@example.com")),
            Err(AnswerError::Unfit(FormAnswerError::NotAForm)),
            "a filled form answers no card of Gatehouse's own"
        );
        assert_eq!(broker.pending().len(), 2, "nothing was answered");
        broker.answer(form_id, filled("bob@example.com")).unwrap();
        assert_eq!(waiter.await.unwrap(), Waited::Answered(filled("bob@example.com"), AnswerChannel::Card));
        broker.answer(own_id, RawAnswer::Deny).unwrap();
        assert_eq!(ordinary.await.unwrap(), Waited::Answered(RawAnswer::Deny, AnswerChannel::Card));
    }

    #[tokio::test]
    async fn many_pending_calls_are_each_answered_for_themselves() {
        let broker = Arc::new(Broker::new());
        let waiters: Vec<_> = (0..50usize)
            .map(|i| {
                let broker = broker.clone();
                tokio::spawn(async move { (i, broker.ask(card(&format!("tool{i}")), Duration::from_secs(10)).await) })
            })
            .collect();
        let pending = wait_for_pending(&broker, 50).await;
        for card in &pending {
            let number: usize = card.tool.trim_start_matches("tool").parse().unwrap();
            let answer = if number.is_multiple_of(2) { RawAnswer::AllowOnce } else { RawAnswer::Deny };
            broker.answer(card.id, answer).unwrap();
        }
        for waiter in waiters {
            let (i, waited) = waiter.await.unwrap();
            let expected = if i.is_multiple_of(2) { RawAnswer::AllowOnce } else { RawAnswer::Deny };
            assert_eq!(waited, Waited::Answered(expected, AnswerChannel::Card), "call {i}");
        }
    }

    #[tokio::test]
    async fn no_answer_in_time_is_not_approved_and_the_card_goes_away() {
        let broker = Broker::new();
        let mut events = broker.subscribe();
        assert_eq!(broker.ask(card("delete_file"), Duration::from_millis(20)).await, Waited::TimedOut);
        assert!(broker.pending().is_empty());
        assert!(matches!(events.recv().await.unwrap(), BrokerEvent::Added(_)));
        assert!(matches!(events.recv().await.unwrap(), BrokerEvent::Removed(_)));
    }

    #[tokio::test]
    async fn a_caller_that_stops_waiting_takes_its_card_away() {
        let broker = Arc::new(Broker::new());
        let waiter = tokio::spawn({
            let broker = broker.clone();
            async move { broker.ask(card("update_cells"), Duration::from_secs(10)).await }
        });
        wait_for_pending(&broker, 1).await;
        waiter.abort();
        let _ = waiter.await;
        assert!(broker.pending().is_empty());
    }

    #[tokio::test]
    async fn dismiss_all_ends_every_pending_card_with_its_reason() {
        let broker = Arc::new(Broker::new());
        let waiters: Vec<_> = (0..3)
            .map(|_| {
                let broker = broker.clone();
                tokio::spawn(async move { broker.ask(card("update_cells"), Duration::from_secs(10)).await })
            })
            .collect();
        wait_for_pending(&broker, 3).await;
        broker.dismiss_all(Dismissal::ShuttingDown);
        for waiter in waiters {
            assert_eq!(waiter.await.unwrap(), Waited::Dismissed(Dismissal::ShuttingDown));
        }
        assert!(broker.pending().is_empty());
    }
}
