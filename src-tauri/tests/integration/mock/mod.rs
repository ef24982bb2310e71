//! Driving the app on Tauri's mock runtime as its pages do: windows by label, and commands invoked from them
//! through the real handler and capabilities. Shared by every command test.

#![allow(dead_code)] // Each test file uses its own part of it.

use std::sync::Arc;
use std::time::Duration;

use gatehouse_core::approval::broker::PendingCard;
use gatehouse_core::approval::model::Caller;
use gatehouse_core::approval::policy::Policy;
use gatehouse_core::approval::{Approvals, CallMeta, Permit};
use gatehouse_core::tools::all_tools;
use gatehouse_desktop::{Cards, context, with_commands};
use serde_json::{Value, json};
use tauri::ipc::{CallbackFn, InvokeBody};
use tauri::test::{INVOKE_KEY, MockRuntime, get_ipc_response, mock_builder};
use tauri::webview::InvokeRequest;
use tauri::{App, Manager, WebviewUrl, WebviewWindow, WebviewWindowBuilder};

/// The account the waiting calls act for.
pub const ACCOUNT: &str = "ada@example.com";

/// The app on the mock runtime with the real configuration and capabilities, its cards from `approvals`.
pub fn app(approvals: &Arc<Approvals>) -> App<MockRuntime> {
    let app = with_commands(mock_builder()).build(context()).expect("the app builds on the mock runtime");
    app.manage(Cards::new(approvals.clone()));
    app
}

/// A gate with no store: *Always allow* is never offered.
pub fn approvals_without_store() -> Arc<Approvals> {
    Arc::new(Approvals::new(None, Policy::default(), &all_tools()))
}

/// A call of `update_cells` from "claude" waiting for the person, as the engine makes one.
pub fn ask(approvals: &Arc<Approvals>, spreadsheet: &str) -> tokio::task::JoinHandle<Permit> {
    let approvals = approvals.clone();
    let args = json!({ "spreadsheet_id": spreadsheet, "sheet": "Sales", "range": "A1", "data": [["x"]] });
    tokio::spawn(async move {
        let tools = all_tools();
        let tool = tools.iter().find(|tool| tool.meta.name == "update_cells").expect("update_cells");
        let meta = CallMeta {
            caller: Caller {
                agent: Some(gatehouse_core::approval::model::Agent::self_reported("claude")),
                interactive: true,
            },
            ..CallMeta::default()
        };
        approvals.permit(tool, &args, &meta, Some(ACCOUNT)).await
    })
}

/// The waiting cards, once there are `count` of them (2 s at most).
pub async fn pending(approvals: &Approvals, count: usize) -> Vec<PendingCard> {
    for _ in 0..400 {
        let pending = approvals.broker().pending();
        if pending.len() == count {
            return pending;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    panic!("expected {count} waiting cards, have {:?}", approvals.broker().pending());
}

/// The window labelled `label`, opened on first use.
pub fn window<M: Manager<MockRuntime>>(app: &M, label: &str) -> WebviewWindow<MockRuntime> {
    match app.get_webview_window(label) {
        Some(window) => window,
        None => WebviewWindowBuilder::new(app, label, WebviewUrl::default()).build().expect("a mock window"),
    }
}

/// Calls `command` from `window` with `body` as its JSON arguments; the reply or the error, as JSON.
pub fn invoke(window: &WebviewWindow<MockRuntime>, command: &str, body: Value) -> Result<Value, Value> {
    let request = InvokeRequest {
        cmd: command.into(),
        callback: CallbackFn(0),
        error: CallbackFn(1),
        url: "tauri://localhost".parse().expect("url"),
        body: InvokeBody::Json(body),
        headers: Default::default(),
        invoke_key: INVOKE_KEY.into(),
    };
    get_ipc_response(window, request).map(|body| body.deserialize::<Value>().expect("a JSON reply"))
}

/// The error a command answered with, as text.
pub fn error_text(reply: Result<Value, Value>) -> String {
    match reply.expect_err("the command must fail") {
        Value::String(text) => text,
        other => other.to_string(),
    }
}

/// The capabilities refused `command` before it ran (`what` names the case in the failure message).
pub fn assert_refused_by_acl(reply: Result<Value, Value>, command: &str, what: &str) {
    let text = error_text(reply);
    assert!(text.contains(command) && text.contains("not allowed"), "{what} / {command}: {text}");
}
