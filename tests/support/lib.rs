//! Shared pieces of the end-to-end tests: finding the real `gatehouse` binary, giving each test its own
//! `GATEHOUSE_HOME`, and connecting real MCP clients to it.

pub mod desktop;

use std::path::PathBuf;
use std::process::Stdio;

use anyhow::{Context, Result, bail};
use rmcp::RoleClient;
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::Command;

/// The `gatehouse` binary, rebuilt first when these tests run under cargo: cargo builds a package's own
/// binaries for its tests, not another package's, and a stale binary would test old code.
pub fn gatehouse_bin() -> PathBuf {
    if let Some(path) = std::env::var_os("GATEHOUSE_BIN") {
        return PathBuf::from(path);
    }
    static BUILD: std::sync::Once = std::sync::Once::new();
    BUILD.call_once(|| {
        if let Some(cargo) = std::env::var_os("CARGO") {
            let output = std::process::Command::new(cargo)
                .args(["build", "--quiet", "-p", "gatehouse-cli"])
                .current_dir(env!("CARGO_MANIFEST_DIR"))
                .output()
                .expect("running cargo");
            assert!(
                output.status.success(),
                "building gatehouse-cli failed: {}",
                String::from_utf8_lossy(&output.stderr)
            );
        }
    });
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target"));
    let path = target.join("debug").join(format!("gatehouse{}", std::env::consts::EXE_SUFFIX));
    assert!(
        path.exists(),
        "{} is missing: run `cargo build -p gatehouse-cli` first (scripts/test.sh does)",
        path.display()
    );
    path
}

/// A test's private state folder, removed when dropped.
pub struct Home(pub tempfile::TempDir);

impl Home {
    pub fn new() -> Self {
        Self(tempfile::tempdir().expect("temp dir"))
    }

    pub fn path(&self) -> &std::path::Path {
        self.0.path()
    }
}

impl Default for Home {
    fn default() -> Self {
        Self::new()
    }
}

/// A `gatehouse` command isolated in `home`, with a clean environment for Google settings.
pub fn gatehouse(home: &Home) -> Command {
    let mut command = Command::new(gatehouse_bin());
    command
        .env("GATEHOUSE_HOME", home.path())
        .env("GATEHOUSE_LOG", "info")
        .env_remove("GATEHOUSE_GOOGLE_ENDPOINT")
        .env_remove("SERVICE_ACCOUNT_PATH")
        .env_remove("ENABLED_TOOLS")
        .env_remove("MAX_TOOL_RESPONSE_CHARS")
        .kill_on_drop(true);
    command
}

pub type Client = RunningService<RoleClient, ()>;

/// Starts `gatehouse` with `args` and connects rmcp's client over stdio.
///
/// The test plays the person at another terminal (`run_gatehouse`), so it must not be the assistant: a
/// terminal answer from the assistant's own process tree is refused (`control::answers`). The serve's parent,
/// which Gatehouse takes for the assistant, is a `sh` standing in for it; the test talks through its pipes.
pub async fn stdio_client(command: Command) -> Result<Client> {
    let (transport, _) = TokioChildProcess::builder(as_started_by_an_assistant(command))
        .stderr(Stdio::null())
        .spawn()
        .context("spawning gatehouse")?;
    Ok(().serve(transport).await?)
}

/// `command`, started by a `sh` of its own (not `exec`: the shell stays, as an assistant's process would).
pub fn as_started_by_an_assistant(command: Command) -> Command {
    let original = command.as_std();
    // `"$0" "$@"` followed by more, so no shell turns it into an `exec`.
    let mut wrapped = Command::new("sh");
    wrapped.arg("-c").arg("\"$0\" \"$@\"; status=$?; exit $status").arg(original.get_program());
    wrapped.args(original.get_args());
    for (key, value) in original.get_envs() {
        match value {
            Some(value) => wrapped.env(key, value),
            None => wrapped.env_remove(key),
        };
    }
    if let Some(dir) = original.get_current_dir() {
        wrapped.current_dir(dir);
    }
    wrapped.kill_on_drop(true);
    wrapped
}

/// Calls a tool and returns its result.
pub async fn call(client: &Client, tool: &str, arguments: Value) -> Result<CallToolResult> {
    let Value::Object(arguments) = arguments else { bail!("arguments must be an object") };
    let params = CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments);
    Ok(client.peer().call_tool(params).await?)
}

/// The first text block of a result.
pub fn text(result: &CallToolResult) -> String {
    result.content.iter().find_map(|block| block.as_text().map(|t| t.text.clone())).unwrap_or_default()
}

/// The first text block parsed as JSON.
pub fn json(result: &CallToolResult) -> Value {
    serde_json::from_str(&text(result)).unwrap_or(Value::Null)
}

/// Starts `gatehouse serve --http 127.0.0.1:0 …` and returns the child and the URL it printed.
pub async fn start_http(mut command: Command) -> Result<(tokio::process::Child, String)> {
    command.stderr(Stdio::piped()).stdout(Stdio::null()).stdin(Stdio::null());
    let mut child = command.spawn().context("spawning gatehouse")?;
    let stderr = child.stderr.take().context("stderr")?;
    let mut lines = BufReader::new(stderr).lines();
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        let line =
            tokio::time::timeout_at(deadline, lines.next_line()).await.context("gatehouse did not start in 30 s")??;
        let Some(line) = line else { bail!("gatehouse exited before serving") };
        if let Some(rest) = line.split("serving MCP at ").nth(1) {
            let url = rest.split_whitespace().next().unwrap_or_default().to_owned();
            // Keep draining stderr so the child never blocks on a full pipe.
            tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
            return Ok((child, url));
        }
    }
}

/// What a `gatehouse` command run to the end printed.
pub struct Ran {
    pub ok: bool,
    pub stdout: String,
    pub stderr: String,
}

/// Runs `gatehouse ARGS…` in `home` (another terminal of the same user) and waits for it.
pub async fn run_gatehouse(home: &Home, args: &[&str]) -> Ran {
    let output = gatehouse(home).args(args).output().await.expect("running gatehouse");
    Ran {
        ok: output.status.success(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// Waits (up to 30 s) until `gatehouse approvals` lists a waiting call, and returns its number and the listing.
pub async fn next_approval(home: &Home) -> (String, String) {
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        let listed = run_gatehouse(home, &["approvals"]).await;
        assert!(listed.ok, "gatehouse approvals failed: {}", listed.stderr);
        let id = listed.stdout.lines().find_map(|line| {
            let rest = line.strip_prefix("Approval ")?;
            Some(rest.split(':').next()?.to_owned())
        });
        if let Some(id) = id {
            return (id, listed.stdout);
        }
        assert!(tokio::time::Instant::now() < deadline, "no approval card appeared: {}", listed.stdout);
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
}

/// Plays the person at another terminal: answers the next waiting call with `gatehouse approvals VERB ID`
/// (`allow` or `deny`).
pub async fn answer_next_approval(home: &Home, verb: &str) {
    let (id, _) = next_approval(home).await;
    let answered = run_gatehouse(home, &["approvals", verb, &id]).await;
    assert!(answered.ok, "gatehouse approvals {verb} {id} failed: {}", answered.stderr);
}
