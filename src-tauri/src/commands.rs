//! What the card window may ask the core and answer it. Only the `card` window may call these
//! (capabilities/card.json); the MCP side never reaches them, so an assistant can't answer its own card.

use std::sync::Arc;

use gatehouse_core::approval::Approvals;
use gatehouse_core::approval::broker::{AnswerError, PendingCard};
use gatehouse_core::approval::card::{RawAnswer, parse_choice};
use tauri::State;

/// The approvals the card shows and answers, in the app's managed state.
pub struct Cards {
    approvals: Arc<Approvals>,
}

impl Cards {
    pub fn new(approvals: Arc<Approvals>) -> Self {
        Self { approvals }
    }

    pub fn approvals(&self) -> &Arc<Approvals> {
        &self.approvals
    }

    /// The waiting cards, oldest first, as the card page shows them (escaped: see [`PendingCard::shown`]).
    pub fn pending(&self) -> Vec<PendingCard> {
        self.approvals.broker().pending().iter().map(PendingCard::shown).collect()
    }

    /// Passes the person's answer to card `id` to the core. An *Always allow* choice the card did not offer is
    /// refused here, before anything is answered, so the person can choose again (the core would otherwise
    /// run the call once and keep no standing approval).
    pub fn answer(&self, id: u64, answer: RawAnswer) -> Result<(), String> {
        let broker = self.approvals.broker();
        let card = broker.get(id).ok_or_else(|| not_waiting(id))?;
        if let RawAnswer::Always(choice) = &answer {
            parse_choice(&card.offer, choice).map_err(|invalid| {
                format!("Nothing was answered: {invalid}. Choose again among the options the card shows.")
            })?;
        }
        // An answer that does not fit Google's form says which field is wrong, and the card keeps waiting;
        // otherwise someone or something else ended the card meanwhile.
        broker.answer(id, answer).map_err(|error| match error {
            AnswerError::NotPending(_) => not_waiting(id),
            unfit @ AnswerError::Unfit(_) => unfit.to_string(),
        })
    }
}

/// The card's words for an approval that is gone (the core's mention the terminal's commands).
fn not_waiting(id: u64) -> String {
    format!(
        "Approval {id} is not waiting any more: it was already answered, it timed out, or the assistant stopped waiting."
    )
}

/// The waiting approvals, oldest first.
#[tauri::command]
pub fn card_pending(cards: State<'_, Cards>) -> Vec<PendingCard> {
    cards.pending()
}

/// Answers approval `id`: `"AllowOnce"`, `"Deny"`, or `{"Always": {"scope", "days", "limit"}}` chosen among
/// what its card offers; on a card of Google's form, `{"Form": {field: value}}` (checked against the form).
#[tauri::command]
pub fn card_answer(cards: State<'_, Cards>, id: u64, answer: RawAnswer) -> crate::Result<()> {
    Ok(cards.answer(id, answer)?)
}
