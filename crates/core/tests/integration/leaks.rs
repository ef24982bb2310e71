//! What Gatehouse leaves where others could read it (issue 15, item 10): debug logs (stderr, which assistants
//! keep) never carry a tool's result or arguments, and the files it writes — `GATEHOUSE_HOME`, the grants
//! database, the token file, exported files — are this user's only.

use crate::support::{self, Harness};

use std::io::Write;
use std::sync::{Arc, Mutex};

use gatehouse_core::auth::{Secret, StoredAccount, TokenStore};
use gatehouse_core::limits::local_files::LocalFiles;
use gatehouse_core::mcp::McpServer;
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use serde_json::json;

/// A cell value and an argument only the person should ever see.
const CELL: &str = "Ada's salary is 98765 (private)";
const SHEET: &str = "Payroll-7f3a";

/// A `tracing` writer into a shared buffer.
#[derive(Clone, Default)]
struct Buffer(Arc<Mutex<Vec<u8>>>);

impl Write for Buffer {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Everything logged, with `GATEHOUSE_LOG=setting`, while an assistant reads the payroll sheet over MCP.
async fn logged_while_reading(setting: &str) -> String {
    let buffer = Buffer::default();
    let writer = buffer.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_env_filter(gatehouse_core::logging::filter(Some(setting)))
        .with_writer(move || writer.clone())
        .with_ansi(false)
        .finish();
    // The test runs on one thread (tokio's current-thread runtime), so every task logs here.
    let _guard = tracing::subscriber::set_default(subscriber);
    // Other tests run on other threads meanwhile, each with its own subscriber or none: a callsite first met
    // there may have its interest cached as "never" before this thread's subscriber was registered. Asking
    // every callsite again makes this subscriber see what it asks for, whatever ran first.
    tracing::callsite::rebuild_interest_cache();

    let h = Harness::new().await;
    let id = h.google.world().create_spreadsheet(SHEET, &[("Data", vec![vec![json!(CELL)]])], &h.owner());
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    let server = McpServer::new(h.engine.clone());
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    let client = ().serve(client_io).await.expect("connect");
    let arguments = json!({ "spreadsheet_id": id, "sheet": "Data" }).as_object().cloned();
    let mut request = CallToolRequestParams::new("get_sheet_data");
    request.arguments = arguments;
    let result = client.peer().call_tool(request).await.expect("the call");
    let text = serde_json::to_string(&result).unwrap();
    assert!(text.contains("98765"), "the assistant got the cell: {text}");
    client.cancel().await.expect("close");
    String::from_utf8_lossy(&buffer.0.lock().unwrap()).into_owned()
}

#[tokio::test]
async fn debug_logs_never_carry_a_tool_result_or_its_arguments() {
    for setting in ["debug", "trace", "debug,rmcp=debug"] {
        let logged = logged_while_reading(setting).await;
        assert!(logged.contains("tool call"), "{setting}: logging was on:\n{logged}");
        assert!(!logged.contains("98765"), "{setting}: the cell reached the log:\n{logged}");
        assert!(!logged.contains("\"sheet\""), "{setting}: the arguments reached the log:\n{logged}");
    }
    // Asked for by name, rmcp's whole messages do appear: the test would see a leak.
    let traced = logged_while_reading("info,rmcp=trace").await;
    assert!(traced.contains("98765"), "rmcp=trace shows messages:\n{traced}");
}

#[cfg(unix)]
mod modes {
    use super::*;

    use std::os::unix::fs::PermissionsExt;
    use std::path::Path;

    fn mode(path: &Path) -> u32 {
        std::fs::metadata(path).unwrap().permissions().mode() & 0o777
    }

    #[tokio::test]
    async fn gatehouse_home_is_created_0700_and_a_loose_one_is_narrowed() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("gatehouse");
        crate::support::open_store(&home.join("gatehouse.db")).await.expect("open");
        assert_eq!(mode(&home), 0o700);
        assert_eq!(mode(&home.join("gatehouse.db")), 0o600);

        let loose = dir.path().join("loose");
        std::fs::create_dir(&loose).unwrap();
        std::fs::set_permissions(&loose, std::fs::Permissions::from_mode(0o755)).unwrap();
        crate::support::open_store(&loose.join("gatehouse.db")).await.expect("open");
        assert_eq!(mode(&loose), 0o700);
    }

    #[tokio::test]
    async fn the_token_file_is_0600_and_a_loose_one_is_narrowed_before_use() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let path = home.join(gatehouse_core::auth::keychain::TOKEN_FILE_NAME);
        let store = TokenStore::file(path.clone());
        store
            .save(StoredAccount {
                email: support::USER.into(),
                refresh_token: Secret::new("1//refresh"),
                client_id: "client".into(),
                client_secret: None,
                token_uri: "https://oauth2.googleapis.com/token".into(),
                scopes: Vec::new(),
                endpoint: None,
            })
            .await
            .expect("save");
        assert_eq!((mode(&home), mode(&path)), (0o700, 0o600));
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        assert!(store.active().await.expect("read").is_some());
        assert_eq!(mode(&path), 0o600, "narrowed when read");
    }

    #[tokio::test]
    async fn exported_files_are_0600() {
        let dir = tempfile::tempdir().unwrap();
        let files = LocalFiles::new(dir.path().join("exports"), Vec::new());
        let target = files.export_target("report.csv").expect("inside");
        files.write(&target, b"a,b\n").await.expect("written");
        assert_eq!(mode(&target), 0o600);
    }
}
