//! The approval card window: it appears when a call waits for the person, shows the queue the core holds, and
//! goes away when nothing waits.
//!
//! The window is made hidden ahead of its first card, once cards become likely, and hidden (not destroyed)
//! when the queue empties, so a card shows at once (docs/benchmarks.md). Cards become likely at launch in a
//! home assistants used before or with an assistant set up to start Gatehouse (its own config file has our
//! entry), when the person opens the *Assistants* page (to connect one, give one a token or copy the snippet),
//! and when an assistant connects; a card arriving before any of these makes the window itself. Not at launch
//! on a fresh install no assistant is set up for: the window brings WebKit's processes (≈ 250 MB), which an app
//! no assistant uses should not hold.
//!
//! It is placed at the bottom-right of the primary monitor's work area, computed from the monitor: on Linux the
//! tray reports no position to place it against.

use std::sync::Arc;

use gatehouse_core::approval::Approvals;
use gatehouse_core::approval::broker::{BrokerEvent, PendingCard};
use tauri::{
    AppHandle, Emitter, Manager, PhysicalPosition, PhysicalRect, Runtime, WebviewUrl, WebviewWindow,
    WebviewWindowBuilder,
};
use tokio::sync::broadcast::error::RecvError;
use tokio::sync::{Notify, watch};

use crate::Cards;

/// The card window's label: the only window the card commands answer (capabilities/card.json).
pub const LABEL: &str = "card";

/// Sent to the card window with the whole queue (`Vec<PendingCard>`, oldest first) whenever it changes.
pub const QUEUE_EVENT: &str = "card-queue";

/// The card's size in logical pixels: small, yet roomy enough for its sentence, a preview of a few cells, the
/// target and three buttons, and for the whole *Always allow* choice without scrolling.
pub const WIDTH: f64 = 380.0;
pub const HEIGHT: f64 = 480.0;
/// The gap between the card and the screen's edges (and the panel).
pub const MARGIN: f64 = 16.0;

/// What tells the card task to make the card window before its first card (see the module documentation).
pub struct Ahead {
    /// The core's count of assistant connections ([`gatehouse_core::Engine::assistant_connections`]).
    pub connections: watch::Receiver<u64>,
    /// Assistants used this home before ([`gatehouse_core::Engine::used_by_assistants`]): make it at launch.
    pub used_before: bool,
    /// Finds a known assistant whose own config file already starts Gatehouse, by hand or by *Connect*
    /// ([`gatehouse_core::connect::set_up_in`]), and gives its name: make it at launch too. Run on a blocking
    /// thread, since some of those files are large.
    pub set_up_in: Option<SetUpIn>,
}

/// [`Ahead::set_up_in`]: the name of an assistant set up to start Gatehouse, if any.
pub type SetUpIn = Box<dyn FnOnce() -> Option<&'static str> + Send>;

/// Asks for the card window to be made now, ahead of its first card: the person is connecting an assistant
/// (the *Assistants* page). Does nothing where no card task prepares the window ([`watch`]).
pub fn prepare<R: Runtime>(app: &AppHandle<R>) {
    if let Some(asked) = app.try_state::<PrepareAsked>() {
        asked.0.notify_one();
    }
}

/// [`prepare`]'s signal to the card task, in the app's managed state.
struct PrepareAsked(Arc<Notify>);

/// Follows the core's pending approvals for as long as the app runs: shows the card when one arrives, tells the
/// card window about every change, keeps the tray's count, hides the card when nothing waits, and announces a
/// card not in view with an OS notification (crate::notify).
pub fn watch<R: Runtime>(app: AppHandle<R>, approvals: Arc<Approvals>) {
    watch_and_prepare(app, approvals, None);
}

/// [`watch`], and also makes the card window (hidden, placed, its page loading) as soon as `ahead` says cards
/// are likely, so the first card only has to be shown. Making the window in the same task that shows cards
/// means the two never race to make it twice; a card arriving while the page still loads is shown and told the
/// queue like any other, and the page asks for the queue itself once it has loaded.
///
/// The core serves from the moment it starts, before the app has made its tray and windows and called this:
/// an assistant that was waiting for the app may already have a card waiting then. So the queue as it is
/// when this starts is shown first; only what changes after comes as events.
pub fn watch_and_prepare<R: Runtime>(app: AppHandle<R>, approvals: Arc<Approvals>, ahead: Option<Ahead>) {
    // Subscribed before the queue is first read, so nothing added in between is missed.
    let mut events = approvals.broker().subscribe();
    let asked = Arc::new(Notify::new());
    if ahead.is_some() {
        app.manage(PrepareAsked(asked.clone()));
    }
    let mut ahead = ahead;
    tauri::async_runtime::spawn(async move {
        let mut notices = crate::notify::Notices::default();
        let waiting = approvals.broker().pending();
        // A card added between the subscription and this read is in both: its event is passed over, so the
        // card window is told each queue once.
        let mut shown_at_start: Vec<u64> = waiting.iter().map(|card| card.id).collect();
        if !waiting.is_empty() {
            tracing::info!(waiting = waiting.len(), "cards were waiting before the app could show them");
            crate::tray::set_waiting(&app, waiting.len());
            show(&app, &waiting);
            // Shown is not seen: a card the window holds but the person is not looking at is announced
            // like one that arrives later.
            for card in &waiting {
                notices.announce(&app, card);
            }
        }
        loop {
            let event = tokio::select! {
                // A waiting card goes first: it makes the window itself if needed.
                biased;
                event = events.recv() => event,
                why = cards_likely(&mut ahead, &asked) => {
                    ahead = None;
                    if let Some(why) = why {
                        tracing::debug!("making the card window ahead of its first card: {why}");
                        let _ = window(&app);
                    }
                    continue;
                }
            };
            let (arrived, added) = match event {
                Ok(BrokerEvent::Added(card)) if shown_at_start.contains(&card.id) => {
                    shown_at_start.retain(|id| *id != card.id);
                    continue;
                }
                Ok(BrokerEvent::Added(card)) => (true, Some(card)),
                Ok(BrokerEvent::Removed(_)) => (false, None),
                // A card's preview arrived: the page fills it in where the card already is.
                Ok(BrokerEvent::Updated(_)) => (false, None),
                // Missed some: the queue itself is the truth, so show it as it is.
                Err(RecvError::Lagged(missed)) => {
                    tracing::debug!(missed, "the card fell behind the approvals; showing the queue as it is now");
                    (true, None)
                }
                Err(RecvError::Closed) => break,
            };
            let pending = approvals.broker().pending();
            notices.retain(&pending);
            crate::tray::set_waiting(&app, pending.len());
            if pending.is_empty() {
                hide(&app);
            } else if arrived {
                show(&app, &pending);
            } else {
                tell(&app, &pending);
            }
            if let Some(card) = added {
                notices.announce(&app, &card);
            }
        }
    });
}

/// Shows the card when something waits (the tray's *Approvals waiting*, a second launch of the app); says
/// whether it did.
pub fn show_if_pending<R: Runtime>(app: &AppHandle<R>) -> bool {
    let Some(cards) = app.try_state::<Cards>() else { return false };
    let pending = cards.pending();
    if pending.is_empty() {
        return false;
    }
    show(app, &pending);
    true
}

/// Resolves once, when `ahead` says cards became likely, with why (for the log); `None` when the core is gone
/// first. Never resolves once `ahead` is `None`.
async fn cards_likely(ahead: &mut Option<Ahead>, asked: &Notify) -> Option<String> {
    let Some(ahead) = ahead else { return std::future::pending().await };
    if ahead.used_before {
        return Some("assistants used this home before".into());
    }
    // Taken, so it runs once: a card event arriving first drops this future, but that card makes the window.
    let set_up_in = ahead.set_up_in.take();
    let set_up = async move {
        let found = match set_up_in {
            Some(find) => tauri::async_runtime::spawn_blocking(find).await.ok().flatten(),
            None => None,
        };
        match found {
            Some(assistant) => format!("{assistant} is set up to start Gatehouse"),
            None => std::future::pending().await,
        }
    };
    tokio::select! {
        connected = ahead.connections.wait_for(|count| *count > 0) => {
            connected.is_ok().then(|| "an assistant connected".into())
        }
        () = asked.notified() => Some("the person is connecting an assistant".into()),
        why = set_up => Some(why),
    }
}

/// The card window, made hidden and placed the first time. Built hidden and shown once placed, so it never
/// flashes elsewhere. The page asks for the queue itself when it loads, so nothing is lost while it does.
fn window<R: Runtime>(app: &AppHandle<R>) -> Option<WebviewWindow<R>> {
    if let Some(window) = app.get_webview_window(LABEL) {
        return Some(window);
    }
    let built = WebviewWindowBuilder::new(app, LABEL, WebviewUrl::App("card.html".into()))
        .title("Gatehouse — approval needed")
        .inner_size(WIDTH, HEIGHT)
        .min_inner_size(300.0, 220.0)
        // Ctrl+= / Ctrl+- / Ctrl+0 zoom the card, as in a browser.
        .zoom_hotkeys_enabled(true)
        .always_on_top(true)
        .visible(false)
        .build();
    match built {
        Ok(window) => {
            realize(&window);
            place(&window);
            Some(window)
        }
        Err(error) => {
            tracing::error!(
                "the approval card could not be opened ({error}); to answer with `gatehouse approvals` in a terminal, turn on *Answer from a terminal* on the Advanced page"
            );
            None
        }
    }
}

/// Realizes the card's widgets (GTK makes their windows and WebKit its drawing area) while the window is still
/// hidden, so the first card only has to map them (docs/benchmarks.md has the figures).
fn realize<R: Runtime>(window: &WebviewWindow<R>) {
    #[cfg(target_os = "linux")]
    let realized = window.with_webview(|webview| {
        use gtk::prelude::WidgetExt;
        webview.inner().realize();
    });
    #[cfg(not(target_os = "linux"))]
    let realized: tauri::Result<()> = Ok(());
    if let Err(error) = realized {
        tracing::debug!("the card window is realized when first shown ({error})");
    }
}

/// Puts the (hidden) card in the bottom-right corner of the primary monitor's work area.
fn place<R: Runtime>(window: &WebviewWindow<R>) {
    match window.primary_monitor() {
        Ok(Some(monitor)) => {
            let scale = monitor.scale_factor();
            // A window never shown yet may report no size (GTK): then it is at least the size it was made.
            let made = (logical_to_physical(WIDTH, scale), logical_to_physical(HEIGHT, scale));
            let size =
                window.outer_size().map(|size| (size.width.max(made.0), size.height.max(made.1))).unwrap_or(made);
            let at = bottom_right(*monitor.work_area(), size, logical_to_physical(MARGIN, scale));
            if let Err(error) = window.set_position(at) {
                tracing::debug!(
                    "the card could not be placed in the corner ({error}); it opens where the desktop puts it"
                );
            }
        }
        Ok(None) | Err(_) => tracing::debug!("no primary monitor reported; the card opens where the desktop puts it"),
    }
}

/// Makes the card visible with `pending` in it, creating the window if nothing made it ahead.
fn show<R: Runtime>(app: &AppHandle<R>, pending: &[PendingCard]) {
    let Some(window) = window(app) else { return };
    let already_visible = window.is_visible().unwrap_or(false);
    tracing::info!(waiting = pending.len(), already_visible, "showing the approval card");
    if !already_visible {
        // Again: the monitors may have changed since the window was made.
        place(&window);
    }
    if let Err(error) = window.show() {
        tracing::error!(
            "the approval card could not be shown ({error}); to answer with `gatehouse approvals` in a terminal, turn on *Answer from a terminal* on the Advanced page"
        );
    }
    if !already_visible && let Err(error) = window.set_focus() {
        tracing::debug!("the card could not take the keyboard focus: {error}");
    }
    tell(app, pending);
    confirm_on_screen(app);
}

/// How long a card just shown may take to reach the screen before it is shown again.
const ON_SCREEN_WITHIN: std::time::Duration = std::time::Duration::from_secs(1);

/// Makes sure a card just shown did reach the screen, and shows it again if not: a person whose card never
/// appears is left with an assistant that waits for nothing they can see. Seen under load on X11: the window
/// rendered its card but stayed unmapped (the desktop tests met it in two of four full runs).
fn confirm_on_screen<R: Runtime>(app: &AppHandle<R>) {
    let app = app.clone();
    tauri::async_runtime::spawn(async move {
        tokio::time::sleep(ON_SCREEN_WITHIN).await;
        let waiting = app.try_state::<Cards>().is_some_and(|cards| !cards.pending().is_empty());
        let Some(window) = app.get_webview_window(LABEL).filter(|_| waiting) else { return };
        if let Some(OnScreen { mapped: false, withdrawn }) = on_screen(&window).await {
            tracing::warn!(withdrawn, "the approval card was shown but is not on screen; showing it again");
            if let Err(error) = window.hide().and_then(|()| window.show()) {
                tracing::error!("the approval card could not be shown again ({error})");
            }
        }
    });
}

/// Whether the card window is on screen, as the toolkit knows it: its widget mapped, and its window not
/// withdrawn by the display server.
#[derive(Debug, Clone, Copy)]
struct OnScreen {
    mapped: bool,
    withdrawn: bool,
}

/// The card window's [`OnScreen`], read on the toolkit's thread; `None` where the platform doesn't say.
async fn on_screen<R: Runtime>(window: &WebviewWindow<R>) -> Option<OnScreen> {
    #[cfg(target_os = "linux")]
    {
        let (send, read) = tokio::sync::oneshot::channel();
        let asked = window.with_webview(move |webview| {
            use gtk::prelude::WidgetExt;
            let toplevel = webview.inner().toplevel();
            let withdrawn = toplevel
                .as_ref()
                .and_then(WidgetExt::window)
                .is_some_and(|gdk| gdk.state().contains(gtk::gdk::WindowState::WITHDRAWN));
            let mapped = toplevel.as_ref().is_some_and(WidgetExt::is_mapped) && !withdrawn;
            let _ = send.send(OnScreen { mapped, withdrawn });
        });
        if asked.is_err() {
            return None;
        }
        read.await.ok()
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = window;
        None
    }
}

/// Sends the queue to the card window, if it is open.
fn tell<R: Runtime>(app: &AppHandle<R>, pending: &[PendingCard]) {
    // What the page shows is escaped by the core (see `PendingCard::shown`): the page renders text as text.
    let shown: Vec<PendingCard> = pending.iter().map(PendingCard::shown).collect();
    if app.get_webview_window(LABEL).is_some()
        && let Err(error) = app.emit_to(LABEL, QUEUE_EVENT, &shown)
    {
        tracing::warn!("the card window could not be told about the approvals: {error}");
    }
}

fn hide<R: Runtime>(app: &AppHandle<R>) {
    if let Some(window) = app.get_webview_window(LABEL) {
        tracing::info!("hiding the approval card: nothing waits");
        tell(app, &[]);
        if let Err(error) = window.hide() {
            tracing::warn!("the approval card could not be hidden: {error}");
        }
    }
}

fn logical_to_physical(value: f64, scale: f64) -> u32 {
    (value * scale).round().clamp(0.0, f64::from(u32::MAX)) as u32
}

/// Where a window of `size` (physical pixels) goes so it sits `margin` from the bottom-right corner of
/// `work_area` (the monitor less its panels). A window larger than the area keeps its top-left corner on it.
pub fn bottom_right(work_area: PhysicalRect<i32, u32>, size: (u32, u32), margin: u32) -> PhysicalPosition<i32> {
    let axis = |start: i32, extent: u32, window: u32| {
        let free = i64::from(extent) - i64::from(window) - i64::from(margin);
        let at = i64::from(start) + free.max(0);
        i32::try_from(at).unwrap_or(start)
    };
    PhysicalPosition::new(
        axis(work_area.position.x, work_area.size.width, size.0),
        axis(work_area.position.y, work_area.size.height, size.1),
    )
}

#[cfg(test)]
mod tests {
    use tauri::PhysicalSize;

    use super::*;

    fn area(x: i32, y: i32, width: u32, height: u32) -> PhysicalRect<i32, u32> {
        PhysicalRect { position: PhysicalPosition::new(x, y), size: PhysicalSize::new(width, height) }
    }

    #[test]
    fn the_card_sits_in_the_bottom_right_corner_of_the_work_area() {
        // 1920x1080 with a 32 px panel at the bottom: the card stays above the panel.
        assert_eq!(bottom_right(area(0, 0, 1920, 1048), (380, 300), 16), PhysicalPosition::new(1524, 732));
        // A second monitor to the right, at 200 %.
        let scale = 2.0;
        let size = (logical_to_physical(WIDTH, scale), logical_to_physical(HEIGHT, scale));
        let margin = logical_to_physical(MARGIN, scale);
        assert_eq!(
            bottom_right(area(1920, 0, 3840, 2160), size, margin),
            PhysicalPosition::new(1920 + 3840 - 760 - 32, 2160 - 960 - 32)
        );
        // A panel on the left or at the top moves the area, not the corner.
        assert_eq!(bottom_right(area(64, 40, 1856, 1040), (380, 300), 16), PhysicalPosition::new(1524, 764));
    }

    #[test]
    fn a_card_larger_than_the_screen_keeps_its_top_left_corner_on_it() {
        assert_eq!(bottom_right(area(100, 50, 300, 200), (380, 300), 16), PhysicalPosition::new(100, 50));
    }
}
