//! Which terminal answers a host takes. An answer from `gatehouse approvals allow|deny|always` arrives on the
//! control socket, which any program of this OS user can reach, an assistant's shell commands included; so:
//!
//! 1. while the desktop app hosts, cards are answered on the card only (a notification opens the card), unless the
//!    person turned on *Answer from a terminal* on the Advanced page (a setting the control socket cannot
//!    change, see [`crate::settings::Key::AnswerFromTerminal`]);
//! 2. everywhere (a headless host too), an answer from the assistant whose call the card is about, or from a
//!    process it started, is refused: the card's origin (see [`Origin`](crate::process::Origin)) must not be
//!    the answering process or one of its ancestors.
//!
//! The one rule is [`refusal`]; the control server calls it before passing an answer on.

use crate::process;

/// Where to answer instead while the desktop app hosts, as its refusals say it.
pub const WHERE_TO_ANSWER: &str =
    "Answer on the Gatehouse card next to the tray, or turn on *Answer from a terminal* on Gatehouse's Advanced page";

/// Where to answer instead on a headless host (no card to answer on).
pub const WHERE_TO_ANSWER_HEADLESS: &str =
    "Answer with `gatehouse approvals` in a terminal you opened yourself, not one the assistant started";

/// What is known about one terminal answer.
#[derive(Debug, Clone, Copy)]
pub struct TerminalAnswer {
    /// The card.
    pub id: u64,
    /// The answering process (the control socket's peer), when the OS says.
    pub pid: Option<u32>,
    /// The process of the assistant whose call waits, when known.
    pub origin: Option<u32>,
    /// The host is the desktop app.
    pub desktop: bool,
    /// The person turned on *Answer from a terminal*.
    pub terminal_allowed: bool,
}

/// Why the answer must not be taken, in words that say where to answer; `None` when it may.
pub fn refusal(answer: &TerminalAnswer) -> Option<String> {
    let id = answer.id;
    if answer.desktop && !answer.terminal_allowed {
        return Some(format!(
            "Approval {id} was not answered: while the Gatehouse app is open, approvals are answered on its card, not from a terminal. {WHERE_TO_ANSWER}."
        ));
    }
    let instead = if answer.desktop {
        "Answer on the Gatehouse card next to the tray, or from a terminal you opened yourself"
    } else {
        WHERE_TO_ANSWER_HEADLESS
    };
    let (Some(pid), Some(origin)) = (answer.pid, answer.origin) else {
        // Not known (macOS: the OS is not asked there yet): nothing to compare.
        return None;
    };
    match process::descends_from(pid, origin) {
        Some(false) => None,
        Some(true) => Some(format!(
            "Approval {id} was not answered: the answer came from the assistant whose call it is about (process {origin}), or from a program it started. An assistant can't approve its own changes. {instead}."
        )),
        // The walk broke (a process on the way ended): not knowing, refuse.
        None => Some(format!(
            "Approval {id} was not answered: Gatehouse could not tell whether the answer came from the assistant whose call it is about (a process on the way ended). Try again. {instead}."
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(pid: Option<u32>, origin: Option<u32>, desktop: bool, terminal_allowed: bool) -> TerminalAnswer {
        TerminalAnswer { id: 3, pid, origin, desktop, terminal_allowed }
    }

    #[test]
    fn the_desktop_takes_terminal_answers_only_when_the_person_allows_them() {
        let refused = refusal(&answer(None, None, true, false)).unwrap();
        assert!(refused.contains(WHERE_TO_ANSWER), "{refused}");
        assert_eq!(refusal(&answer(None, None, true, true)), None);
        assert_eq!(refusal(&answer(None, None, false, false)), None, "a headless host has no card");
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn an_answer_from_the_assistant_or_its_children_is_refused_everywhere() {
        let me = std::process::id();
        let parent = process::parent_of(me).unwrap();
        for desktop in [false, true] {
            let refused = refusal(&answer(Some(me), Some(parent), desktop, true)).unwrap();
            assert!(refused.contains("An assistant can't approve its own changes"), "{refused}");
            assert!(refusal(&answer(Some(me), Some(me), desktop, true)).is_some(), "the assistant itself");
        }
        let mut unrelated = std::process::Command::new("sleep").arg("5").spawn().unwrap();
        assert_eq!(refusal(&answer(Some(me), Some(unrelated.id()), false, false)), None);
        unrelated.kill().unwrap();
        unrelated.wait().unwrap();
    }
}
