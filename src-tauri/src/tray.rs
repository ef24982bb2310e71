//! The tray icon and its menu: whose files the assistants work in, how many approvals wait, the Gatehouse
//! window, pausing every assistant, and quitting. On Linux a tray reports no clicks, only its menu, so everything is in the menu.

use tauri::image::Image;
use tauri::menu::{CheckMenuItem, Menu, MenuEvent, MenuItem, PredefinedMenuItem};
use tauri::tray::TrayIconBuilder;
use tauri::{AppHandle, Manager, Runtime};

use crate::Cards;
use crate::startup::Mode;

/// A shield with a gate in it (icons/make_icons.py draws it).
const ICON: Image<'_> = tauri::include_image!("../icons/tray.png");

const WAITING: &str = "waiting";
const OPEN: &str = "open";
const PAUSE: &str = "pause";
const QUIT: &str = "quit";
const UPDATE: &str = "update";

/// The menu items that change while the app runs.
struct Items<R: Runtime> {
    menu: Menu<R>,
    waiting: MenuItem<R>,
    pause: CheckMenuItem<R>,
    /// In the menu only while there is an update to act on (`set_update`).
    update: MenuItem<R>,
}

/// Puts the icon in the tray, its menu saying `mode` and that nothing waits yet.
pub fn create<R: Runtime>(app: &AppHandle<R>, mode: &Mode) -> tauri::Result<()> {
    let account = MenuItem::with_id(app, "account", mode.label(), false, None::<&str>)?;
    let waiting = MenuItem::with_id(app, WAITING, waiting_label(0), false, None::<&str>)?;
    let open = MenuItem::with_id(app, OPEN, "Open Gatehouse", true, None::<&str>)?;
    let pause = CheckMenuItem::with_id(app, PAUSE, "Pause all assistants", true, false, None::<&str>)?;
    let quit = MenuItem::with_id(app, QUIT, "Quit", true, None::<&str>)?;
    let menu = Menu::with_items(
        app,
        &[
            &account,
            &PredefinedMenuItem::separator(app)?,
            &waiting,
            &open,
            &pause,
            &PredefinedMenuItem::separator(app)?,
            &quit,
        ],
    )?;
    TrayIconBuilder::with_id("gatehouse")
        .icon(ICON)
        .tooltip(format!("Gatehouse — {}", mode.label()))
        .menu(&menu)
        .show_menu_on_left_click(true)
        .on_menu_event(on_menu)
        .build(app)?;
    let update = MenuItem::with_id(app, UPDATE, "", true, None::<&str>)?;
    app.manage(Items { menu, waiting, pause, update });
    Ok(())
}

/// Shows the update item under the account with `label` (what the core says there is to do), or takes it out
/// (`None`). It opens the Gatehouse window, where *Install update* is.
pub fn set_update<R: Runtime>(app: &AppHandle<R>, label: Option<&str>) {
    let Some(items) = app.try_state::<Items<R>>() else { return };
    let shown = items.menu.get(UPDATE).is_some();
    let updated = match label {
        Some(label) => items.update.set_text(label).and_then(|()| match shown {
            true => Ok(()),
            false => items.menu.insert(&items.update, 2),
        }),
        None if shown => items.menu.remove(&items.update),
        None => Ok(()),
    };
    if let Err(error) = updated {
        tracing::debug!("the tray's update item could not be updated: {error}");
    }
}

/// Shows how many approvals wait; the item opens the card when any do.
pub fn set_waiting<R: Runtime>(app: &AppHandle<R>, count: usize) {
    let Some(items) = app.try_state::<Items<R>>() else { return };
    let updated = items.waiting.set_text(waiting_label(count)).and_then(|()| items.waiting.set_enabled(count > 0));
    if let Err(error) = updated {
        tracing::debug!("the tray's count of waiting approvals could not be updated: {error}");
    }
}

fn waiting_label(count: usize) -> String {
    format!("Approvals waiting: {count}")
}

fn on_menu<R: Runtime>(app: &AppHandle<R>, event: MenuEvent) {
    match event.id().as_ref() {
        WAITING => {
            crate::card::show_if_pending(app);
        }
        OPEN | UPDATE => crate::settings::open(app, "account"),
        PAUSE => {
            let (Some(items), Some(cards)) = (app.try_state::<Items<R>>(), app.try_state::<Cards>()) else { return };
            // The menu ticks the item itself; the core follows what it shows.
            let paused = items.pause.is_checked().unwrap_or(false);
            cards.approvals().set_paused(paused);
            tracing::info!(paused, "every assistant is {}", if paused { "paused" } else { "resumed" });
        }
        QUIT => crate::startup::quit(app),
        _ => {}
    }
}
