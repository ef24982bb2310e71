//! Re-sent requests. A client (or a transport) may send the same JSON-RPC request again — the same
//! connection, the same id, the same call. A gated call is run at most once per request: a re-send gets the
//! first run's reply (waiting for it while the first still runs or waits for the person), or a refusal
//! saying why, never a second run. The engine keeps this memory because it holds the reply; the gate's pause
//! and deny rules are asked before it (see [`crate::approval::Approvals::screen`]), so a rule added since the
//! first run refuses the re-send.
//!
//! The memory is bounded by time (the gate's retry window) and by count ([`MAX_REQUESTS`]); a reply longer
//! than [`MAX_KEPT_REPLY`] is not kept whole. What falls out of the memory is forgotten safely: a re-send
//! that finds nothing is decided as a new call (asked again as a retry, unless a standing approval covers it).

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use tokio::sync::watch;

use crate::approval::gate::CallKey;
use crate::reply::Reply;

/// At most this many requests are remembered, the oldest forgotten first.
pub const MAX_REQUESTS: usize = 256;

/// A reply longer than this (in bytes) is not kept: its re-send is refused with a sentence instead.
pub const MAX_KEPT_REPLY: usize = 64 * 1024;

/// What a re-send is answered with.
type Stored = Option<Reply>;

struct Entry {
    key: CallKey,
    at: Instant,
    reply: watch::Receiver<Stored>,
}

/// The requests seen lately and their replies.
pub struct Resends {
    window: Duration,
    seen: Mutex<HashMap<String, Entry>>,
}

/// What to do with a request.
pub enum Claim {
    /// Not seen before (or seen with a different call, or forgotten): decide and run it, then
    /// [`First::answered`] with its reply.
    First(First),
    /// A re-send of a request already under way or answered: wait for its reply with [`Resent::reply`].
    Resent(Resent),
}

/// The first run of a request. Dropped before [`First::answered`] (the assistant stopped waiting), its
/// re-sends are refused: the first may have been done in part.
pub struct First {
    reply: Option<watch::Sender<Stored>>,
}

/// A re-send, waiting for the first run's reply.
pub struct Resent {
    reply: watch::Receiver<Stored>,
}

impl Resends {
    /// A memory keeping each request for `window`.
    pub fn new(window: Duration) -> Self {
        Self { window, seen: Mutex::new(HashMap::new()) }
    }

    /// Claims `request` for the call `key`.
    pub fn claim(&self, request: &str, key: CallKey) -> Claim {
        let now = Instant::now();
        let mut seen = self.seen.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        seen.retain(|_, entry| now.duration_since(entry.at) < self.window);
        if let Some(entry) = seen.get(request)
            && entry.key == key
        {
            return Claim::Resent(Resent { reply: entry.reply.clone() });
        }
        // A new request, or the same id reused for another call: that is a new request, decided afresh.
        seen.remove(request);
        while seen.len() >= MAX_REQUESTS {
            let Some(oldest) = seen.iter().min_by_key(|(_, entry)| entry.at).map(|(id, _)| id.clone()) else { break };
            seen.remove(&oldest);
        }
        let (sender, receiver) = watch::channel(None);
        seen.insert(request.to_owned(), Entry { key, at: now, reply: receiver });
        Claim::First(First { reply: Some(sender) })
    }

    /// How many requests are remembered now.
    pub fn len(&self) -> usize {
        self.seen.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).len()
    }

    /// Whether no request is remembered.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl First {
    /// The first run's reply, for its re-sends.
    pub fn answered(mut self, reply: &Reply) {
        let kept = if reply.text.len() <= MAX_KEPT_REPLY {
            reply.clone()
        } else {
            Reply::error(
                "This request was already answered (its id was used before on this connection), and its reply was too long to keep, so it was not run again. Send it as a new request, with a new id, to run it again.",
            )
        };
        if let Some(sender) = self.reply.take() {
            sender.send_replace(Some(kept));
        }
    }
}

impl Drop for First {
    fn drop(&mut self) {
        if let Some(sender) = self.reply.take() {
            sender.send_replace(Some(Reply::error(
                "This request repeats one with the same id that the assistant stopped waiting for, so it was not run (the first was withdrawn, or may have been done in part). Send it as a new request, with a new id, to try again.",
            )));
        }
    }
}

impl Resent {
    /// The first run's reply, once it has one.
    pub async fn reply(mut self) -> Reply {
        match self.reply.wait_for(Option::is_some).await {
            Ok(reply) => reply.clone().unwrap_or_else(gone),
            Err(_) => gone(),
        }
    }
}

/// The words when the first run's reply can no longer come (it cannot happen: [`First`] always sends one).
fn gone() -> Reply {
    Reply::error(
        "This request repeats one with the same id whose reply was lost, so it was not run again. Send it as a new request, with a new id, to try again.",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(args: &str) -> CallKey {
        (Some(crate::approval::model::Agent::self_reported("claude")), "update_cells".into(), args.into())
    }

    #[test]
    fn the_memory_keeps_at_most_its_cap_and_forgets_the_oldest() {
        let resends = Resends::new(Duration::from_secs(600));
        let mut firsts = Vec::new();
        for i in 0..MAX_REQUESTS + 10 {
            match resends.claim(&format!("c/{i}"), key("a")) {
                Claim::First(first) => firsts.push(first),
                Claim::Resent(_) => panic!("request {i} was never sent before"),
            }
        }
        assert_eq!(resends.len(), MAX_REQUESTS);
        // The oldest were forgotten: claimed again, they are first runs (decided afresh, never run unasked).
        assert!(matches!(resends.claim("c/0", key("a")), Claim::First(_)));
        assert!(matches!(resends.claim(&format!("c/{}", MAX_REQUESTS + 9), key("a")), Claim::Resent(_)));
    }

    #[tokio::test]
    async fn a_resend_waits_for_the_first_reply_and_another_call_under_the_same_id_is_new() {
        let resends = Resends::new(Duration::from_secs(600));
        let Claim::First(first) = resends.claim("c/777", key("a")) else { panic!("first") };
        let Claim::Resent(resent) = resends.claim("c/777", key("a")) else { panic!("a re-send") };
        let waiting = tokio::spawn(resent.reply());
        first.answered(&Reply { text: "done".into(), is_error: false, notice: None, google: None });
        assert_eq!(waiting.await.unwrap().text, "done");
        assert!(matches!(resends.claim("c/777", key("b")), Claim::First(_)));
    }

    #[tokio::test]
    async fn a_resend_of_an_abandoned_or_overlong_request_is_refused_with_words() {
        let resends = Resends::new(Duration::from_secs(600));
        let Claim::First(first) = resends.claim("c/1", key("a")) else { panic!("first") };
        drop(first);
        let Claim::Resent(resent) = resends.claim("c/1", key("a")) else { panic!("a re-send") };
        let reply = resent.reply().await;
        assert!(reply.is_error && reply.text.contains("was not run"), "{}", reply.text);

        let Claim::First(first) = resends.claim("c/2", key("a")) else { panic!("first") };
        first.answered(&Reply { text: "x".repeat(MAX_KEPT_REPLY + 1), is_error: false, notice: None, google: None });
        let Claim::Resent(resent) = resends.claim("c/2", key("a")) else { panic!("a re-send") };
        let reply = resent.reply().await;
        assert!(reply.is_error && reply.text.contains("too long to keep"), "{}", reply.text);
    }
}
