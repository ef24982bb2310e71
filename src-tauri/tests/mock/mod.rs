//! Driving the app on Tauri's mock runtime as its pages do: windows by label, and commands invoked from them
//! through the real handler and capabilities. Shared by every command test.

#![allow(dead_code)] // Each test file uses its own part of it.

use serde_json::Value;
use tauri::ipc::{CallbackFn, InvokeBody};
use tauri::test::{INVOKE_KEY, MockRuntime, get_ipc_response};
use tauri::webview::InvokeRequest;
use tauri::{Manager, WebviewUrl, WebviewWindow, WebviewWindowBuilder};

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
