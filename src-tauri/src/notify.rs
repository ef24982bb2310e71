//! OS notifications for a card the person may not see: one queued behind the card on screen ("2 of 3"), or
//! one that arrived while the card window did not get the focus (another app in front, another workspace).
//! Clicking the notification opens the card.
//!
//! A notification only announces: answers still come from the card window (or `gatehouse approvals`, when the person turned on *Answer from a terminal*). Without
//! a notification server (a bare window manager, a headless session) nothing is shown and the card works as
//! before, so every failure here is logged at debug and dropped.

use std::collections::HashMap;
use std::time::Duration;

use chrono::{DateTime, Utc};
use gatehouse_core::approval::broker::PendingCard;
use tauri::{AppHandle, Manager, Runtime};
use tokio::sync::oneshot;

use crate::{Cards, card};

/// How long the desktop gets to give the card the focus before the card counts as out of view. Window
/// managers grant focus asynchronously, so asking at once would nearly always say "not focused".
pub const SETTLE: Duration = Duration::from_millis(300);

/// The action a click on the notification's body sends (the Desktop Notifications spec's default action).
pub const OPEN_ACTION: &str = "default";

/// What a notification says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    /// One line: who wants to do what.
    pub summary: String,
    /// The target, the place in the queue and the time left, as plain text (escaped when sent).
    pub body: String,
}

/// Whether a card needs announcing: it is not the one on screen (`position`, 0 = the card the window shows),
/// or the card window is not visible or not focused.
pub fn out_of_view(position: usize, visible: bool, focused: bool) -> bool {
    position > 0 || !visible || !focused
}

/// The words of a notification for `card`, the `position`-th (0-based) of `waiting` cards, at `now`. Worded
/// like the card itself (ui/card.js): the assistant by name, the action in plain words, the target by name.
pub fn words(card: &PendingCard, position: usize, waiting: usize, now: DateTime<Utc>) -> Notice {
    let who = match &card.agent {
        Some(agent) => gatehouse_core::approval::words::agent_words(agent),
        None => "An assistant".to_owned(),
    };
    // The card's sentence, when it has one (escaped by `Sentence::text`); its title otherwise.
    let action = match card.sentence.0.is_empty() {
        true => lowercase_first(&card.title),
        false => gatehouse_core::shown::cut_line(&card.sentence.text(), 160, "the card shows all"),
    };
    let summary = format!("{who} wants to {action}");
    let mut lines = Vec::new();
    // Google's form is answered on the card (its fields need typing); the notification only says it waits.
    if let Some(form) = &card.form {
        lines.push(match form.has_fields() {
            true => "Google asks for your approval, with a form to fill in on the card.".to_owned(),
            false => "Google asks for your approval.".to_owned(),
        });
    }
    if let Some(target) = &card.target {
        lines.push(format!("Target: {}", gatehouse_core::shown::cut_line(target, 120, "the card shows all")));
    }
    let left = (card.deadline - now).num_seconds();
    lines.push(match left {
        ..=0 => "Time is up: it will not run.".to_owned(),
        1..=59 => format!("Answer within {left} s, or it will not run."),
        _ => format!("Answer within {} min, or it will not run.", (left + 59) / 60),
    });
    lines.push(match waiting {
        0 | 1 => "Click to open the approval card.".to_owned(),
        _ => format!("Approval {} of {waiting} waiting. Click to open the approval card.", position + 1),
    });
    Notice { summary, body: lines.join("\n") }
}

/// "Update cells" → "update cells", for the middle of a sentence.
fn lowercase_first(title: &str) -> String {
    let mut chars = title.chars();
    match chars.next() {
        Some(first) => first.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// The notifications of the cards still waiting, by card id: each open one is closed when its card goes
/// (answered, timed out, withdrawn), so none lingers offering a card that is no longer there.
#[derive(Default)]
pub struct Notices {
    open: HashMap<u64, oneshot::Sender<()>>,
}

impl Notices {
    /// Announces `card` (which just arrived) if, once the desktop has had [`SETTLE`] to focus the card
    /// window, it is still waiting and not in view.
    pub fn announce<R: Runtime>(&mut self, app: &AppHandle<R>, card: &PendingCard) {
        let (withdraw, mut withdrawn) = oneshot::channel();
        self.open.insert(card.id, withdraw);
        let app = app.clone();
        let id = card.id;
        tauri::async_runtime::spawn(async move {
            tokio::select! {
                () = tokio::time::sleep(SETTLE) => {}
                _ = &mut withdrawn => return,
            }
            let Some(cards) = app.try_state::<Cards>() else { return };
            let pending = cards.pending();
            let Some(position) = pending.iter().position(|waiting| waiting.id == id) else { return };
            let (visible, focused) = match app.get_webview_window(card::LABEL) {
                Some(window) => (window.is_visible().unwrap_or(false), window.is_focused().unwrap_or(false)),
                None => (false, false),
            };
            if !out_of_view(position, visible, focused) {
                return;
            }
            let notice = words(&pending[position], position, pending.len(), Utc::now());
            show(app, id, notice, withdrawn).await;
        });
    }

    /// Closes the notifications of cards no longer in `pending`.
    pub fn retain(&mut self, pending: &[PendingCard]) {
        self.open.retain(|id, _| pending.iter().any(|card| card.id == *id));
    }
}

/// Brings the card to the front: what a click on a notification asks for.
fn open_card<R: Runtime>(app: &AppHandle<R>) {
    if !card::show_if_pending(app) {
        tracing::debug!("a notification was clicked, but its card is no longer waiting");
        return;
    }
    // show() focuses only a card it had to make visible; one already open but behind other windows comes
    // forward too.
    if let Some(window) = app.get_webview_window(card::LABEL)
        && let Err(error) = window.set_focus()
    {
        tracing::debug!("the card could not take the keyboard focus: {error}");
    }
}

/// Shows `notice` and follows it until it is clicked, closed by the person or the server, or `withdrawn`
/// (its card went): then it is closed.
#[cfg(all(unix, not(target_os = "macos")))]
async fn show<R: Runtime>(app: AppHandle<R>, id: u64, notice: Notice, withdrawn: oneshot::Receiver<()>) {
    use notify_rust::{Notification, NotificationResponse, Timeout, Urgency};

    let sent = Notification::new()
        .appname("Gatehouse")
        .summary(&notice.summary)
        // Servers that take markup would read "<" or "&" in a file's name as markup.
        .body(&escape_markup(&notice.body))
        .icon("dialog-question")
        .action(OPEN_ACTION, "Open the card")
        .urgency(Urgency::Normal)
        .timeout(Timeout::Default)
        .show_async()
        .await;
    let handle = match sent {
        Ok(handle) => handle,
        Err(error) => {
            tracing::debug!(card = id, "no notification was shown for the waiting card: {error}");
            return;
        }
    };
    let mut clicked = false;
    tokio::select! {
        () = handle.wait_for_action_async(|response| clicked = matches!(response, NotificationResponse::Default)) => {}
        _ = withdrawn => {
            handle.close_async().await;
            return;
        }
    }
    if clicked {
        open_card(&app);
    }
}

/// Elsewhere a notification is shown without following clicks: it still says that a card waits.
#[cfg(not(all(unix, not(target_os = "macos"))))]
async fn show<R: Runtime>(app: AppHandle<R>, id: u64, notice: Notice, withdrawn: oneshot::Receiver<()>) {
    let _ = (app, withdrawn);
    let shown = tauri::async_runtime::spawn_blocking(move || {
        notify_rust::Notification::new().appname("Gatehouse").summary(&notice.summary).body(&notice.body).show()
    })
    .await;
    match shown {
        Ok(Ok(_)) => {}
        Ok(Err(error)) => tracing::debug!(card = id, "no notification was shown for the waiting card: {error}"),
        Err(error) => tracing::debug!(card = id, "no notification was shown for the waiting card: {error}"),
    }
}

/// The body as text in the spec's markup subset.
#[cfg(all(unix, not(target_os = "macos")))]
fn escape_markup(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use gatehouse_core::approval::card::offer;
    use serde_json::Value;

    use super::*;

    fn card(agent: Option<&str>, target: Option<&str>, seconds_left: i64) -> PendingCard {
        let now = Utc::now();
        PendingCard {
            id: 7,
            agent: agent.map(gatehouse_core::approval::model::Agent::registered),
            tool: "update_cells".into(),
            title: "Update cells".into(),
            target: target.map(str::to_owned),
            arguments: Value::Null,
            offer: offer(true, agent.map(gatehouse_core::approval::model::Agent::registered).as_ref(), 90, Vec::new()),
            retry: false,
            why_not_grantable: None,
            created: now,
            deadline: now + chrono::Duration::seconds(seconds_left),
            form: None,
            sentence: Default::default(),
            preview: Default::default(),
            asked_again: None,
        }
    }

    #[test]
    fn a_card_behind_another_or_in_a_window_without_focus_is_announced() {
        assert!(!out_of_view(0, true, true), "the card on screen, focused: in view");
        assert!(out_of_view(1, true, true), "queued behind the one on screen");
        assert!(out_of_view(0, true, false), "another window has the focus");
        assert!(out_of_view(0, false, false), "the card window could not be shown");
    }

    #[test]
    fn the_notification_says_who_wants_to_do_what_where_and_for_how_long() {
        let now = Utc::now();
        let first = card(Some("claude"), Some("Budget 2026"), 120);
        let notice = words(&first, 0, 1, now);
        assert_eq!(notice.summary, "“claude” wants to update cells");
        assert_eq!(
            notice.body,
            "Target: Budget 2026\nAnswer within 2 min, or it will not run.\nClick to open the approval card."
        );

        let queued = words(&card(None, None, 30), 1, 3, now);
        assert_eq!(queued.summary, "An assistant wants to update cells");
        assert_eq!(
            queued.body,
            "Answer within 30 s, or it will not run.\nApproval 2 of 3 waiting. Click to open the approval card."
        );
        assert!(words(&card(None, None, -1), 0, 1, now).body.starts_with("Time is up"));
    }

    #[test]
    fn a_google_form_is_announced_as_google_asking_and_is_filled_on_the_card() {
        let google = gatehouse_core::google::mcp::form::GoogleForm {
            key: "approval".into(),
            message: "Send it?".into(),
            requested_schema: serde_json::from_value(serde_json::json!({
                "type": "object", "properties": {"to": {"type": "string", "format": "email"}}
            }))
            .unwrap(),
        };
        let form = gatehouse_core::approval::form::FormCard::from_form(&google, false).unwrap();
        // The time is taken before the card is made, as the other tests do: a later one reads "29 s".
        let now = Utc::now();
        let asked = PendingCard { form: Some(form.clone()), ..card(Some("claude"), None, 30) };
        let notice = words(&asked, 0, 1, now);
        assert_eq!(
            notice.body,
            "Google asks for your approval, with a form to fill in on the card.\nAnswer within 30 s, or it will not run.\nClick to open the approval card."
        );
        let empty = PendingCard {
            form: Some(gatehouse_core::approval::form::FormCard { fields: Vec::new(), ..form }),
            ..asked
        };
        assert!(words(&empty, 0, 1, Utc::now()).body.starts_with("Google asks for your approval.\n"));
    }

    #[cfg(all(unix, not(target_os = "macos")))]
    #[test]
    fn names_with_markup_characters_are_shown_as_written() {
        assert_eq!(escape_markup("Q&A <draft>"), "Q&amp;A &lt;draft&gt;");
    }
}
