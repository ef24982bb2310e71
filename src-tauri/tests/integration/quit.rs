//! Quitting with calls waiting refuses them cleanly, logged as `shutdown` (not as the person's *Deny*): the app's
//! stop of its hosted core, with a real sandbox core.

use std::time::Duration;

use gatehouse_core::approval::model::{Caller, DecisionSource};
use gatehouse_core::approval::{CallMeta, Permit};
use gatehouse_core::config::Config;
use gatehouse_core::host::{Host, HostOptions};
use gatehouse_desktop::startup::{Hosted, stop_host};
use gatehouse_desktop::{context, with_commands};
use serde_json::json;
use tauri::Manager;
use tauri::test::mock_builder;

#[tokio::test(flavor = "multi_thread")]
async fn stopping_the_hosted_core_refuses_what_waits_as_shutdown_and_removes_its_socket() {
    let home = tempfile::tempdir().expect("temp dir");
    let host = Host::start(HostOptions { config: Config::with_home(home.path()), sandbox: true }).await.expect("host");
    let engine = host.engine().clone();
    let socket = host.control().map(|control| control.path().to_path_buf()).expect("a control socket");
    assert!(socket.exists());

    let app = with_commands(mock_builder()).build(context()).expect("the app builds on the mock runtime");
    app.manage(Hosted::new(host));

    let waiting = tokio::spawn({
        let engine = engine.clone();
        async move {
            let tool = engine.tool("update_cells").expect("update_cells");
            let meta = CallMeta {
                caller: Caller {
                    agent: Some(gatehouse_core::approval::model::Agent::self_reported("claude")),
                    interactive: true,
                },
                ..CallMeta::default()
            };
            let args = json!({ "spreadsheet_id": "S1", "sheet": "Sales", "range": "A1", "data": [["x"]] });
            engine.approvals().permit(tool, &args, &meta, Some("sandbox@gatehouse.example")).await
        }
    });
    for _ in 0..400 {
        if !engine.approvals().broker().pending().is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    assert_eq!(engine.approvals().broker().pending().len(), 1);

    stop_host(app.handle()).await;
    let permit = tokio::time::timeout(Duration::from_secs(5), waiting).await.expect("in time").expect("the call ends");
    let Permit::Refuse { source: DecisionSource::Shutdown, message } = permit else {
        panic!("refused as closed expected, got {permit:?}")
    };
    assert!(message.contains("Gatehouse was closed before the person answered"), "{message}");
    assert!(!socket.exists(), "the control socket is gone");
    assert!(app.state::<Hosted>().take().is_none(), "the core is stopped once");
    // Stopping again (the app's exit after Quit) does nothing more.
    stop_host(app.handle()).await;
}
