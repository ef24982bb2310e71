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

/// The backend the end-to-end tests use unless they say otherwise: Google's REST APIs, where Gatehouse's own
/// cards and grants decide each write. On Google's MCP servers (the emulator serves them too, and `both` is the
/// default) Google asks about update_cells with its own form at every call; the tests of that path set it.
pub const E2E_BACKEND: (&str, &str) = ("GATEHOUSE_GOOGLE_BACKEND", "rest");

/// A `gatehouse` command isolated in `home`, with a clean environment for Google settings.
pub fn gatehouse(home: &Home) -> Command {
    let mut command = Command::new(gatehouse_bin());
    command
        .env("GATEHOUSE_HOME", home.path())
        .env(E2E_BACKEND.0, E2E_BACKEND.1)
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
    // `"$0" "$@"` followed by more, so no shell turns it into an `exec`.
    let mut wrapped = in_shell(&command, "\"$0\" \"$@\"; status=$?; exit $status", &[]);
    wrapped.kill_on_drop(true);
    wrapped
}

/// A `sh -c SCRIPT` with `leading` as its `$0…`, then `command`'s program and arguments, its environment
/// and its folder.
fn in_shell(command: &Command, script: &str, leading: &[&std::ffi::OsStr]) -> Command {
    let original = command.as_std();
    let mut wrapped = Command::new("sh");
    wrapped.arg("-c").arg(script).args(leading).arg(original.get_program());
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

/// Runs `gatehouse ARGS…` in `home` as the person at another terminal, and waits for it.
///
/// Another terminal is not under the assistant. When the test itself holds an assistant's connection (rmcp's
/// HTTP client runs in the test process), a command it started would be the assistant's own child, whose
/// answers are refused (`control::answers`). So the command is started by a shell that exits first, and the
/// system adopts it, as a terminal's shell would be; its output comes back through files.
pub async fn run_gatehouse(home: &Home, args: &[&str]) -> Ran {
    // `$$` in the subshell is the outer shell: the command starts once that has exited and been reaped.
    const DETACHED: &str = r#"dir=$0; outer=$$; (
        while kill -0 "$outer" 2>/dev/null; do sleep 0.01; done
        "$@" >"$dir/out" 2>"$dir/err" </dev/null; echo $? >"$dir/status.part"; mv "$dir/status.part" "$dir/status"
    ) >/dev/null 2>&1 </dev/null &"#;
    let dir = tempfile::tempdir().expect("temp dir");
    let mut command = gatehouse(home);
    command.args(args);
    let status = in_shell(&command, DETACHED, &[dir.path().as_os_str()])
        .stdin(Stdio::null())
        .status()
        .await
        .expect("running sh");
    assert!(status.success(), "sh could not start gatehouse {args:?}");
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(120);
    let code = loop {
        if let Ok(code) = std::fs::read_to_string(dir.path().join("status")) {
            break code;
        }
        assert!(tokio::time::Instant::now() < deadline, "gatehouse {args:?} did not finish in 120 s");
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    };
    let read =
        |name: &str| String::from_utf8_lossy(&std::fs::read(dir.path().join(name)).unwrap_or_default()).into_owned();
    Ran { ok: code.trim() == "0", stdout: read("out"), stderr: read("err") }
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

/// An official MCP SDK that speaks revision 2026-07-28, as a real client of the binary: the scripts in
/// `tests/clients/` on the SDK versions `scripts/install-deps.sh --validators` pins (into `target/tools`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sdk {
    /// `mcp` from PyPI, in the venv `target/tools/py`.
    Python,
    /// `@modelcontextprotocol/client` from npm, run by the pinned Node in `target/tools`.
    TypeScript,
}

/// Where `install-deps.sh --validators` installs the validators and SDK clients (`GATEHOUSE_TOOLS`, else
/// `target/tools`).
pub fn tools_dir() -> PathBuf {
    if let Some(path) = std::env::var_os("GATEHOUSE_TOOLS") {
        return PathBuf::from(path);
    }
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target"));
    target.join("tools")
}

impl Sdk {
    /// The name its script gives the client (`clientInfo.name`) unless told another.
    pub fn default_name(self) -> &'static str {
        match self {
            Sdk::Python => "python-sdk-2026",
            Sdk::TypeScript => "typescript-sdk-2026",
        }
    }

    /// The value its script writes into the sandbox's Sales!H1.
    pub fn written_value(self) -> &'static str {
        match self {
            Sdk::Python => "from the Python SDK",
            Sdk::TypeScript => "from the TypeScript SDK",
        }
    }

    /// Its client script run with `args`, in `home` (a stdio client passes its environment on to the
    /// `gatehouse` it starts). Fails saying how to install the SDK when it is missing.
    pub fn command(self, home: &Home, args: &[&str]) -> Command {
        let tools = tools_dir();
        let scripts = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("clients");
        let (program, script) = match self {
            Sdk::Python => (tools.join("py/bin/python"), scripts.join("mcp2026.py")),
            Sdk::TypeScript => (tools.join("node_modules/.bin/node"), scripts.join("mcp2026.mjs")),
        };
        assert!(
            program.exists(),
            "{} is missing: run scripts/install-deps.sh --validators (it installs the official MCP SDK clients)",
            program.display()
        );
        let mut command = Command::new(program);
        command
            .arg(script)
            .args(args)
            .env("GATEHOUSE_HOME", home.path())
            .env("GATEHOUSE_TOOLS", &tools)
            .env(E2E_BACKEND.0, E2E_BACKEND.1)
            .env("GATEHOUSE_LOG", "info")
            .env_remove("GATEHOUSE_GOOGLE_ENDPOINT")
            .env_remove("SERVICE_ACCOUNT_PATH")
            .env_remove("ENABLED_TOOLS")
            .env_remove("MAX_TOOL_RESPONSE_CHARS")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        command
    }

    /// Runs its client script with `args` to the end (at most two minutes) and returns the steps it printed
    /// (one JSON object a line), keyed by `step`. Panics with its output when it failed. The future borrows
    /// nothing, so it can run next to the person answering its card.
    pub fn run(self, home: &Home, args: &[&str]) -> impl Future<Output = Steps> + use<> {
        let mut command = self.command(home, args);
        async move { self.finish(&mut command).await }
    }

    async fn finish(self, command: &mut Command) -> Steps {
        let child = command.spawn().expect("starting the SDK client");
        let output = tokio::time::timeout(std::time::Duration::from_secs(120), child.wait_with_output())
            .await
            .unwrap_or_else(|_| panic!("the {self:?} SDK client did not finish in 2 minutes"))
            .expect("waiting for the SDK client");
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        assert!(output.status.success(), "the {self:?} SDK client failed:\n{stdout}\n{stderr}");
        let steps = stdout.lines().filter_map(|line| serde_json::from_str::<Value>(line).ok()).collect();
        Steps { steps, output: format!("{stdout}\n{stderr}") }
    }
}

/// What an SDK client script printed, one JSON object per step.
pub struct Steps {
    pub steps: Vec<Value>,
    /// All it printed, for failure messages.
    pub output: String,
}

impl Steps {
    /// The step named `name`; panics showing the whole output when there is none.
    pub fn step(&self, name: &str) -> &Value {
        self.steps
            .iter()
            .find(|step| step["step"] == name)
            .unwrap_or_else(|| panic!("the client printed no {name:?} step:\n{}", self.output))
    }

    /// The text of a call step, asserting it was no tool error.
    pub fn ok_text(&self, name: &str) -> String {
        let step = self.step(name);
        assert_eq!(step["is_error"], false, "{name} failed:\n{}", self.output);
        step["text"].as_str().unwrap_or_default().to_owned()
    }

    /// Asserts the steps every scenario run against the sandbox makes: the revision `protocol` (2026-07-28:
    /// without `initialize`), every tool listed, `server://auth-status` watched (`subscriptions/listen`, or
    /// `resources/subscribe` before 2026-07-28), the sample data read, and `value` written (after the person
    /// allowed it) and read back.
    pub fn assert_sandbox_round_trip(&self, protocol: &str, value: &str) {
        assert_eq!(self.step("connected")["protocol"], protocol, "{}", self.output);
        let tools = self.step("tools");
        assert_eq!(tools["count"].as_u64(), Some(gatehouse_core::tools::all_tools().len() as u64), "{}", self.output);
        assert!(tools["names"].as_array().is_some_and(|names| names.iter().any(|n| n == "update_cells")));
        if protocol == "2026-07-28" {
            let honored = &self.step("listen")["honored"];
            assert_eq!(honored, &serde_json::json!(["server://auth-status"]), "{}", self.output);
        } else {
            self.step("subscribe");
        }
        let read = self.ok_text("read");
        for sample in ["Region", "Revenue", "North", "Sandbox"] {
            assert!(read.contains(sample), "{sample} in the sample data read: {read}");
        }
        let written = self.ok_text("write");
        assert!(written.contains("\"updated_cells\":1"), "{written}");
        assert!(self.ok_text("readback").contains(value), "{}", self.output);
        self.step("done");
    }
}

/// The tools a sandbox server on the default backend (`both`, not [`E2E_BACKEND`]) offers, in `tools/list`
/// order: Gatehouse's own, then the emulator's tools of Google's that no Gatehouse tool covers
/// (`google_<product>_<tool>`, see `tools::discovered`).
pub fn sandbox_tools() -> Vec<rmcp::model::Tool> {
    let own = gatehouse_core::tools::all_tools().into_iter().map(|tool| tool.to_mcp());
    let google = gatehouse_core::tools::discovered::from_emulator().into_iter().map(|tool| tool.to_mcp());
    own.chain(google).collect()
}
