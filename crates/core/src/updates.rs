//! When the desktop app looks for a new version of itself, and what it tells the person about one.
//!
//! The app looks when it starts and then once a day while it runs; a look that failed (no network, a server
//! that answered nonsense) is tried again after an hour. A new version is *offered* — in the tray menu and the
//! Gatehouse window — and installed only when the person clicks *Install*: never on its own. An update whose
//! signature does not match the release key compiled into the app is refused, and the person is told so.
//!
//! Fetching the manifest, downloading, checking the signature (minisign) and installing are Tauri's updater
//! plugin's (the desktop app's `updates` module). This module is the decisions: a [`Tracker`] the shell tells
//! what happened and asks when to look next, whether *Install* may run, and what to show.

use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::Serialize;

/// How often a running app looks again after a look that worked.
pub const CHECK_EVERY: Duration = Duration::from_secs(24 * 60 * 60);

/// How soon a look that failed is tried again.
pub const RETRY_AFTER: Duration = Duration::from_secs(60 * 60);

/// A newer version the update server offers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Offer {
    pub version: String,
    /// The release notes, as the manifest has them.
    pub notes: Option<String>,
}

/// What went wrong with a look or an install, in the person's words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Problem {
    #[error("Gatehouse could not reach its update server ({0}). It will look again later.")]
    Unreachable(String),
    #[error("Gatehouse's update server gave an answer that could not be read ({0}). It will look again later.")]
    BadAnswer(String),
    #[error(
        "The update server has no new Gatehouse for this kind of installation ({0}). Get the new version where you got Gatehouse."
    )]
    NoPackage(String),
    #[error(
        "Gatehouse refused the update to {version}: it is not signed with Gatehouse's release key, so it may have been tampered with. Nothing was installed."
    )]
    BadSignature { version: String },
    #[error(
        "Gatehouse {version} was downloaded and its signature checked, but installing it did not finish ({detail}). The version you have keeps working; you can try again."
    )]
    InstallFailed { version: String, detail: String },
}

impl Problem {
    /// Whether the offer still stands after this problem: a refused signature withdraws it (that download is
    /// never offered again); a download or install that did not finish may be tried again.
    fn keeps_offer(&self) -> bool {
        matches!(self, Problem::Unreachable(_) | Problem::InstallFailed { .. })
    }
}

/// Where an update stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Status {
    /// This build was made without a release key and update server: it never looks (docs/updates.md).
    Off,
    /// It has not looked yet.
    NotChecked,
    Checking,
    UpToDate,
    Available(Offer),
    /// The person clicked *Install*: downloading, checking the signature, installing.
    Installing(Offer),
    /// Installed: the new version runs from the next start.
    Installed {
        version: String,
    },
    /// The last look or install went wrong; `offer` is what may still be installed.
    Failed {
        problem: Problem,
        offer: Option<Offer>,
    },
}

/// Why *Install* did not start.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotNow {
    #[error("There is no update to install: Gatehouse is up to date, or has not found one yet.")]
    NothingOffered,
    #[error("Gatehouse is installing the update already.")]
    Installing,
    #[error("This copy of Gatehouse was built without updates; get new versions where you got it.")]
    Off,
}

/// The update state of one running app: what it found, what it is doing, and when it looks next.
#[derive(Debug, Clone)]
pub struct Tracker {
    current: String,
    status: Status,
    /// What was offered when the running look began: a look that fails does not withdraw it.
    standing: Option<Offer>,
    last_checked: Option<DateTime<Utc>>,
    next_check: Option<DateTime<Utc>>,
}

/// What the Gatehouse window shows about updates.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct View {
    /// `off`, `not_checked`, `checking`, `up_to_date`, `available`, `installing`, `installed`, `failed`.
    pub state: &'static str,
    /// The version running now.
    pub current: String,
    /// The version offered or installed.
    pub version: Option<String>,
    pub notes: Option<String>,
    /// One sentence for the person, when there is something to say.
    pub message: Option<String>,
    /// *Install* may be clicked.
    pub can_install: bool,
    /// *Check now* may be clicked.
    pub can_check: bool,
    /// The window shows it at the top: an offer, an install, or what went wrong with one. A failed look in the
    /// background, with nothing offered, is not worth interrupting the person for (it is tried again).
    pub banner: bool,
    pub last_checked: Option<DateTime<Utc>>,
}

impl Tracker {
    /// The tracker of an app at version `current`; `configured`: the build has a release key and an update
    /// server, so it looks (at once, then daily).
    pub fn new(current: impl Into<String>, configured: bool, now: DateTime<Utc>) -> Self {
        let (status, next_check) = match configured {
            true => (Status::NotChecked, Some(now)),
            false => (Status::Off, None),
        };
        Self { current: current.into(), status, standing: None, last_checked: None, next_check }
    }

    pub fn status(&self) -> &Status {
        &self.status
    }

    /// How long until the next look is due (zero when it is due now); `None` when this build never looks.
    pub fn wait(&self, now: DateTime<Utc>) -> Option<Duration> {
        let next = self.next_check?;
        Some((next - now).to_std().unwrap_or(Duration::ZERO))
    }

    /// Starts a look when one is due, or whenever the person asks (`asked`, *Check now*). Returns whether the
    /// shell should look now: never while a look or an install runs, nor after an update was installed (the
    /// new version looks for itself once it starts), nor in a build without updates.
    pub fn begin_check(&mut self, now: DateTime<Utc>, asked: bool) -> bool {
        let busy =
            matches!(self.status, Status::Off | Status::Checking | Status::Installing(_) | Status::Installed { .. });
        let due = asked || self.wait(now).is_some_and(|wait| wait.is_zero());
        if busy || !due {
            return false;
        }
        self.standing = match &self.status {
            Status::Available(offer) | Status::Failed { offer: Some(offer), .. } => Some(offer.clone()),
            _ => None,
        };
        self.status = Status::Checking;
        true
    }

    /// What the look found: a newer version, none, or a problem (tried again after [`RETRY_AFTER`]).
    pub fn checked(&mut self, found: Result<Option<Offer>, Problem>, now: DateTime<Utc>) {
        let (status, again) = match found {
            Ok(Some(offer)) => (Status::Available(offer), CHECK_EVERY),
            Ok(None) => (Status::UpToDate, CHECK_EVERY),
            // A failed look does not withdraw what an earlier one offered.
            Err(problem) => (Status::Failed { problem, offer: self.standing.clone() }, RETRY_AFTER),
        };
        self.standing = None;
        self.status = status;
        self.last_checked = Some(now);
        self.next_check = Some(now + again);
    }

    /// The person clicked *Install*: the offer to download, check and install, and the tracker says it is
    /// installing. Refused when nothing is offered: nothing is ever installed without an offer the person saw.
    pub fn begin_install(&mut self) -> Result<Offer, NotNow> {
        let offer = match &self.status {
            Status::Available(offer) | Status::Failed { offer: Some(offer), .. } => offer.clone(),
            Status::Installing(_) => return Err(NotNow::Installing),
            Status::Off => return Err(NotNow::Off),
            _ => return Err(NotNow::NothingOffered),
        };
        self.status = Status::Installing(offer.clone());
        Ok(offer)
    }

    /// How the install ended.
    pub fn installed(&mut self, outcome: Result<(), Problem>) {
        let Status::Installing(offer) = &self.status else { return };
        self.status = match outcome {
            Ok(()) => Status::Installed { version: offer.version.clone() },
            Err(problem) => {
                let offer = problem.keeps_offer().then(|| offer.clone());
                Status::Failed { problem, offer }
            }
        };
    }

    /// The tray menu's update item, when there is something for the person to do: `None` hides it.
    pub fn tray_label(&self) -> Option<String> {
        match &self.status {
            Status::Available(offer) => Some(format!("Update available: Gatehouse {}…", offer.version)),
            Status::Installing(offer) => Some(format!("Installing Gatehouse {}…", offer.version)),
            Status::Installed { version } => Some(format!("Restart Gatehouse to use version {version}")),
            _ => None,
        }
    }

    /// What the Gatehouse window shows.
    pub fn view(&self) -> View {
        let (state, offer, message): (_, Option<&Offer>, Option<String>) = match &self.status {
            Status::Off => ("off", None, Some(NotNow::Off.to_string())),
            Status::NotChecked => ("not_checked", None, None),
            Status::Checking => ("checking", None, Some("Looking for updates…".to_owned())),
            Status::UpToDate => ("up_to_date", None, Some(format!("Gatehouse {} is up to date.", self.current))),
            Status::Available(offer) => (
                "available",
                Some(offer),
                Some(format!("Gatehouse {} is available (you have {}).", offer.version, self.current)),
            ),
            Status::Installing(offer) => {
                ("installing", Some(offer), Some(format!("Installing Gatehouse {}…", offer.version)))
            }
            Status::Installed { version } => (
                "installed",
                None,
                Some(format!("Gatehouse {version} is installed. Quit and start Gatehouse again to use it.")),
            ),
            Status::Failed { problem, offer } => ("failed", offer.as_ref(), Some(problem.to_string())),
        };
        let version = match &self.status {
            Status::Installed { version } => Some(version.clone()),
            _ => offer.map(|offer| offer.version.clone()),
        };
        View {
            state,
            current: self.current.clone(),
            version,
            notes: offer.and_then(|offer| offer.notes.clone()),
            message,
            can_install: matches!(self.status, Status::Available(_) | Status::Failed { offer: Some(_), .. }),
            can_check: matches!(
                self.status,
                Status::NotChecked | Status::UpToDate | Status::Available(_) | Status::Failed { .. }
            ),
            banner: match &self.status {
                Status::Available(_) | Status::Installing(_) | Status::Installed { .. } => true,
                Status::Failed { problem, offer } => {
                    offer.is_some() || matches!(problem, Problem::BadSignature { .. } | Problem::InstallFailed { .. })
                }
                _ => false,
            },
            last_checked: self.last_checked,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(hours: i64) -> DateTime<Utc> {
        DateTime::from_timestamp(1_800_000_000 + hours * 3600, 0).expect("a time")
    }

    fn offer(version: &str) -> Offer {
        Offer { version: version.to_owned(), notes: Some("Fixes.".to_owned()) }
    }

    #[test]
    fn a_build_without_a_release_key_never_looks_and_says_so() {
        let mut tracker = Tracker::new("0.1.0", false, at(0));
        assert_eq!(tracker.wait(at(0)), None);
        assert!(!tracker.begin_check(at(0), true), "not even when asked");
        assert_eq!(tracker.begin_install(), Err(NotNow::Off));
        let view = tracker.view();
        assert_eq!((view.state, view.can_check, view.can_install), ("off", false, false));
        assert!(view.message.unwrap_or_default().contains("built without updates"));
        assert_eq!(tracker.tray_label(), None);
    }

    #[test]
    fn it_looks_at_start_then_daily_and_an_hour_after_a_failed_look() {
        let mut tracker = Tracker::new("0.1.0", true, at(0));
        assert_eq!(tracker.wait(at(0)), Some(Duration::ZERO), "at start");
        assert!(tracker.begin_check(at(0), false));
        assert!(!tracker.begin_check(at(0), true), "one look at a time");
        tracker.checked(Ok(None), at(0));
        assert_eq!(tracker.status(), &Status::UpToDate);
        assert_eq!(tracker.wait(at(1)), Some(Duration::from_secs(23 * 3600)));
        assert!(!tracker.begin_check(at(23), false), "not due before a day has passed");
        assert!(tracker.begin_check(at(24), false), "due after a day");
        tracker.checked(Err(Problem::Unreachable("no network".into())), at(24));
        assert_eq!(tracker.wait(at(24)), Some(RETRY_AFTER));
        assert_eq!(tracker.tray_label(), None, "a failed look in the background does not nag in the tray");
        assert!(!tracker.view().banner, "nor in the window");
        assert!(tracker.begin_check(at(24), true), "the person may ask again at once");
    }

    #[test]
    fn an_offer_is_shown_in_the_tray_and_the_window_and_installed_only_when_clicked() {
        let mut tracker = Tracker::new("0.1.0", true, at(0));
        assert_eq!(tracker.begin_install(), Err(NotNow::NothingOffered), "nothing found yet");
        assert!(tracker.begin_check(at(0), false));
        tracker.checked(Ok(Some(offer("0.2.0"))), at(0));
        assert_eq!(tracker.tray_label().as_deref(), Some("Update available: Gatehouse 0.2.0…"));
        let view = tracker.view();
        assert_eq!((view.state, view.can_install, view.banner), ("available", true, true));
        assert_eq!(view.message.as_deref(), Some("Gatehouse 0.2.0 is available (you have 0.1.0)."));
        assert_eq!(view.notes.as_deref(), Some("Fixes."));
        // A day later the offer still stands until the person acts; nothing happens by itself.
        assert!(tracker.begin_check(at(24), false));
        tracker.checked(Ok(Some(offer("0.2.0"))), at(24));
        assert_eq!(tracker.status(), &Status::Available(offer("0.2.0")));

        assert_eq!(tracker.begin_install(), Ok(offer("0.2.0")));
        assert_eq!(tracker.begin_install(), Err(NotNow::Installing), "one install at a time");
        assert!(!tracker.begin_check(at(48), false), "no look while installing");
        tracker.installed(Ok(()));
        assert_eq!(tracker.tray_label().as_deref(), Some("Restart Gatehouse to use version 0.2.0"));
        assert!(!tracker.begin_check(at(72), true), "the new version looks for itself once it runs");
        assert_eq!(tracker.view().version.as_deref(), Some("0.2.0"));
    }

    #[test]
    fn a_bad_signature_withdraws_the_offer_and_says_nothing_was_installed() {
        let mut tracker = Tracker::new("0.1.0", true, at(0));
        assert!(tracker.begin_check(at(0), false));
        tracker.checked(Ok(Some(offer("0.2.0"))), at(0));
        tracker.begin_install().expect("offered");
        tracker.installed(Err(Problem::BadSignature { version: "0.2.0".into() }));
        let view = tracker.view();
        assert_eq!((view.state, view.can_install, view.banner), ("failed", false, true));
        let message = view.message.unwrap_or_default();
        assert!(
            message.contains("not signed with Gatehouse's release key") && message.contains("Nothing was installed")
        );
        assert_eq!(tracker.begin_install(), Err(NotNow::NothingOffered));
        assert_eq!(tracker.tray_label(), None);
        // The next daily look may find a properly signed release.
        assert_eq!(tracker.wait(at(0)).map(|wait| wait > Duration::ZERO), Some(true));
    }

    #[test]
    fn an_install_that_did_not_finish_may_be_tried_again() {
        let mut tracker = Tracker::new("0.1.0", true, at(0));
        assert!(tracker.begin_check(at(0), false));
        tracker.checked(Ok(Some(offer("0.2.0"))), at(0));
        tracker.begin_install().expect("offered");
        let problem = Problem::InstallFailed { version: "0.2.0".into(), detail: "cancelled".into() };
        tracker.installed(Err(problem));
        assert!(tracker.view().can_install);
        // A failed look meanwhile keeps the offer too.
        assert!(tracker.begin_check(at(1), true));
        tracker.checked(Err(Problem::Unreachable("offline".into())), at(1));
        assert_eq!(tracker.begin_install(), Ok(offer("0.2.0")));
    }
}
