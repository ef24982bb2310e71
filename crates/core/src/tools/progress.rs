//! How far a long call has come, for the client that asked to be told. An MCP client asks by sending a
//! `progressToken` in the call's `_meta`; the MCP layer then gives the call a [`Progress`] that sends each
//! step as a `notifications/progress`. Every other call gets [`Progress::none`], so a tool reports its steps
//! the same way whether anyone listens or not.

use std::sync::Arc;

use futures::future::BoxFuture;

/// One step of a call's progress: `progress` goes up with every step; `total` is where it ends, when known.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    pub progress: f64,
    pub total: Option<f64>,
    pub message: Option<String>,
}

type Sink = Arc<dyn Fn(Step) -> BoxFuture<'static, ()> + Send + Sync>;

/// Where a call's progress steps go: nowhere (the default), or to the client that asked for them.
#[derive(Clone, Default)]
pub struct Progress(Option<Sink>);

impl std::fmt::Debug for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() { "Progress(reported)" } else { "Progress(none)" })
    }
}

impl Progress {
    /// Progress nobody asked for: reporting a step does nothing.
    pub fn none() -> Self {
        Self(None)
    }

    /// Progress sent to `sink`, one step at a time: a step's future finishes before the next step is
    /// reported, so steps arrive in order and before the call's answer.
    pub fn to(sink: impl Fn(Step) -> BoxFuture<'static, ()> + Send + Sync + 'static) -> Self {
        Self(Some(Arc::new(sink)))
    }

    /// Whether anyone listens (a tool may skip work only needed for reporting).
    pub fn is_wanted(&self) -> bool {
        self.0.is_some()
    }

    /// Reports one step; a no-op when nobody asked.
    pub async fn report(&self, progress: f64, total: Option<f64>, message: impl Into<String>) {
        if let Some(sink) = &self.0 {
            sink(Step { progress, total, message: Some(message.into()) }).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;

    #[tokio::test]
    async fn steps_reach_the_sink_in_order_and_none_goes_nowhere() {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&seen);
        let progress = Progress::to(move |step| {
            let sink = Arc::clone(&sink);
            Box::pin(async move { sink.lock().unwrap().push(step) })
        });
        assert!(progress.is_wanted());
        progress.report(1.0, Some(2.0), "one").await;
        progress.report(2.0, Some(2.0), "two").await;
        let steps = seen.lock().unwrap().clone();
        assert_eq!(steps.iter().map(|s| s.progress).collect::<Vec<_>>(), vec![1.0, 2.0]);
        assert_eq!(steps[1].message.as_deref(), Some("two"));
        let none = Progress::none();
        assert!(!none.is_wanted());
        none.report(1.0, None, "unheard").await;
    }
}
