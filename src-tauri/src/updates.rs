//! The app's own updates, through Tauri's updater plugin: it fetches the update manifest, downloads the new
//! installer, checks its minisign signature against the release key compiled into the app (`plugins.updater`
//! in tauri.conf.json, empty in the repository: docs/updates.md) and installs it.
//!
//! When to look and what to show are the core's ([`gatehouse_core::updates::Tracker`]); this module only wires
//! it to the plugin, the tray's update item and the Gatehouse window. An install starts only from the window's
//! *Install update* button (the `updates_install` command, which only the settings window may call); the
//! plugin's own commands are granted to no window.

use std::sync::Mutex;

use chrono::Utc;
use gatehouse_core::updates::{Offer, Problem, Tracker, View};
use tauri::{AppHandle, Emitter, Manager, Runtime, State};
use tauri_plugin_updater::{Update, UpdaterExt};
use url::Url;

/// Sent to the settings window whenever the update state changes.
pub const CHANGED_EVENT: &str = "updates-changed";

/// Where updates come from: the key they must be signed with and the manifest's addresses.
#[derive(Debug, Clone)]
pub struct Source {
    /// The minisign public key, as `tauri signer generate` writes it (base64 of the `.pub` file).
    pub pubkey: String,
    pub endpoints: Vec<Url>,
}

impl Source {
    /// This build's (`plugins.updater` of the compiled configuration); `None` when it has no key or no address,
    /// and then the app never looks.
    pub fn from_config<R: Runtime>(app: &AppHandle<R>) -> Option<Self> {
        let config = app.config().plugins.0.get("updater")?;
        let pubkey = config.get("pubkey")?.as_str()?.trim().to_owned();
        let endpoints: Vec<Url> = config
            .get("endpoints")?
            .as_array()?
            .iter()
            .filter_map(|endpoint| endpoint.as_str()?.parse().ok())
            .collect();
        (!pubkey.is_empty() && !endpoints.is_empty()).then_some(Self { pubkey, endpoints })
    }
}

/// The app's update state, in its managed state.
pub struct Updates {
    source: Option<Source>,
    tracker: Mutex<Tracker>,
    /// The plugin's handle on what the last look found: what *Install* downloads.
    found: Mutex<Option<Update>>,
}

impl Updates {
    pub fn new(source: Option<Source>) -> Self {
        let tracker = Tracker::new(env!("CARGO_PKG_VERSION"), source.is_some(), Utc::now());
        Self { source, tracker: Mutex::new(tracker), found: Mutex::new(None) }
    }

    fn tracker(&self) -> std::sync::MutexGuard<'_, Tracker> {
        self.tracker.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn found(&self) -> std::sync::MutexGuard<'_, Option<Update>> {
        self.found.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// The plugin, as the app registers it. Its configuration is read from `plugins.updater`.
pub fn plugin<R: Runtime>() -> tauri::plugin::TauriPlugin<R, tauri_plugin_updater::Config> {
    tauri_plugin_updater::Builder::new().build()
}

/// Looks when the core says a look is due (at start, then daily; an hour after a failed look), until the app
/// quits. Nothing is installed from here.
pub fn watch<R: Runtime>(app: AppHandle<R>) {
    tauri::async_runtime::spawn(async move {
        loop {
            let Some(wait) = app.try_state::<Updates>().and_then(|updates| updates.tracker().wait(Utc::now())) else {
                return;
            };
            tokio::time::sleep(wait).await;
            check(&app, false).await;
        }
    });
}

/// Looks for an update now if one is due (or `asked`), and tells the tray and the window what it found.
pub async fn check<R: Runtime>(app: &AppHandle<R>, asked: bool) -> Option<View> {
    let updates = app.try_state::<Updates>()?;
    if !updates.tracker().begin_check(Utc::now(), asked) {
        return Some(updates.tracker().view());
    }
    changed(app, &updates);
    let found = match updates.source.as_ref() {
        Some(source) => look(app, source).await,
        None => Ok(None),
    };
    let offer = found.as_ref().ok().and_then(|update| update.as_ref()).map(|update| Offer {
        version: update.version.clone(),
        notes: update.body.clone().filter(|notes| !notes.trim().is_empty()),
    });
    let outcome = match found {
        Ok(update) => {
            *updates.found() = update;
            Ok(offer)
        }
        Err(problem) => Err(problem),
    };
    if let Err(problem) = &outcome {
        tracing::info!("looking for an update failed: {problem}");
    }
    updates.tracker().checked(outcome, Utc::now());
    changed(app, &updates);
    Some(updates.tracker().view())
}

async fn look<R: Runtime>(app: &AppHandle<R>, source: &Source) -> Result<Option<Update>, Problem> {
    let updater = app
        .updater_builder()
        .pubkey(source.pubkey.clone())
        .endpoints(source.endpoints.clone())
        .and_then(|builder| builder.build())
        .map_err(|error| Problem::BadAnswer(error.to_string()))?;
    updater.check().await.map_err(looking_failed)
}

/// What went wrong looking, in the person's words.
fn looking_failed(error: tauri_plugin_updater::Error) -> Problem {
    use tauri_plugin_updater::Error;
    match error {
        Error::Reqwest(error) => Problem::Unreachable(error.without_url().to_string()),
        Error::Network(detail) => Problem::Unreachable(detail),
        Error::TargetNotFound(target) => Problem::NoPackage(target),
        Error::TargetsNotFound(targets) => Problem::NoPackage(targets.join(", ")),
        other => Problem::BadAnswer(other.to_string()),
    }
}

/// What went wrong downloading, checking or installing `version`, in the person's words.
fn installing_failed(error: tauri_plugin_updater::Error, version: &str) -> Problem {
    use tauri_plugin_updater::Error;
    let version = version.to_owned();
    match error {
        // The signature is not the release key's, or was made for another version than the one announced.
        Error::Minisign(_)
        | Error::Base64(_)
        | Error::SignatureUtf8(_)
        | Error::SignedVersionMismatch { .. }
        | Error::MissingSignedVersion => Problem::BadSignature { version },
        Error::Reqwest(error) => Problem::Unreachable(error.without_url().to_string()),
        Error::Network(detail) => Problem::Unreachable(detail),
        other => Problem::InstallFailed { version, detail: other.to_string() },
    }
}

/// The person clicked *Install update*: downloads what was offered and checks its signature (a download that
/// fails the check is refused, and the person told). Returns the checked bytes and the plugin's update to
/// install them with; the tracker says *installing* until [`install`] finishes.
pub async fn download_checked<R: Runtime>(app: &AppHandle<R>) -> Result<(Update, Vec<u8>), String> {
    let updates = app.try_state::<Updates>().ok_or("Updates are not set up in this window.")?;
    let offer = updates.tracker().begin_install().map_err(|error| error.to_string())?;
    changed(app, &updates);
    let update = updates.found().clone().filter(|update| update.version == offer.version);
    let downloaded = match update {
        Some(update) => match update.download(|_, _| {}, || {}).await {
            Ok(bytes) => Ok((update, bytes)),
            Err(error) => Err(installing_failed(error, &offer.version)),
        },
        None => Err(Problem::InstallFailed {
            version: offer.version.clone(),
            detail: "the update server's answer is no longer at hand; look again".to_owned(),
        }),
    };
    match downloaded {
        Ok(downloaded) => Ok(downloaded),
        Err(problem) => {
            tracing::warn!("the update to {} was not installed: {problem}", offer.version);
            let said = problem.to_string();
            updates.tracker().installed(Err(problem));
            changed(app, &updates);
            Err(said)
        }
    }
}

/// Installs the checked download (the plugin checks the signature once more first). On Linux it asks for the
/// administrator's password (pkexec) to install the package; on Windows the installer takes over and the app
/// exits; elsewhere the new version runs from the next start.
pub async fn install<R: Runtime>(app: &AppHandle<R>, update: Update, bytes: Vec<u8>) -> Result<View, String> {
    let updates = app.try_state::<Updates>().ok_or("Updates are not set up in this window.")?;
    let version = update.version.clone();
    let installed = tauri::async_runtime::spawn_blocking(move || update.install(bytes)).await;
    let outcome = match installed {
        Ok(Ok(())) => Ok(()),
        Ok(Err(error)) => Err(installing_failed(error, &version)),
        Err(error) => Err(Problem::InstallFailed { version: version.clone(), detail: error.to_string() }),
    };
    let said = outcome.as_ref().err().map(Problem::to_string);
    match &said {
        Some(problem) => tracing::warn!("the update to {version} was not installed: {problem}"),
        None => tracing::info!("Gatehouse {version} is installed; it runs from the next start"),
    }
    updates.tracker().installed(outcome);
    changed(app, &updates);
    match said {
        Some(said) => Err(said),
        None => Ok(updates.tracker().view()),
    }
}

/// Tells the tray and the settings window that the update state changed.
fn changed<R: Runtime>(app: &AppHandle<R>, updates: &Updates) {
    let (label, view) = {
        let tracker = updates.tracker();
        (tracker.tray_label(), tracker.view())
    };
    crate::tray::set_update(app, label.as_deref());
    if let Err(error) = app.emit_to(crate::settings::LABEL, CHANGED_EVENT, view) {
        tracing::debug!("the settings window was not told about the update: {error}");
    }
}

/// What the window's update banner shows.
#[tauri::command]
pub fn updates_status(updates: State<'_, Updates>) -> View {
    updates.tracker().view()
}

/// *Install update*: downloads the offered update, checks its signature and installs it. Refused in words when
/// nothing is offered or the signature is not the release key's.
#[tauri::command]
pub async fn updates_install<R: Runtime>(app: AppHandle<R>) -> crate::Result<View> {
    let (update, bytes) = download_checked(&app).await?;
    Ok(install(&app, update, bytes).await?)
}
