//! Headless answering of approvals, end to end: the real `gatehouse serve` over stdio with rmcp's client and
//! the Google emulator, and the person at another terminal running `gatehouse approvals`, `grants` and
//! `audit` against it. Answers go over the control socket, never over the MCP connection.

use std::time::Duration;

use gatehouse_e2e::{Client, Home, gatehouse, next_approval, run_gatehouse, stdio_client, text};
use rmcp::model::{CallToolRequestParams, CallToolResult};
use serde_json::{Value, json};

const ROBOT: &str = "robot@project.iam.gserviceaccount.com";

/// The emulator with a service account, one spreadsheet it owns, and the account's key in `home`.
async fn emulator(home: &Home) -> (google_fake::FakeGoogle, String) {
    let google = google_fake::FakeGoogle::start().await.unwrap();
    google.world().service_accounts.push(google_fake::ServiceAccountKey {
        email: ROBOT.to_owned(),
        public_key_pem: include_str!("../data/test-service-account.pub.pem").to_owned(),
    });
    let owner = google_fake::Identity::service_account(ROBOT);
    let sheet = google.world().create_spreadsheet("Budget", &[("Data", vec![vec![json!("start")]])], &owner);
    let key = json!({
        "type": "service_account",
        "client_email": ROBOT,
        "private_key": include_str!("../data/test-service-account.pem"),
        "private_key_id": "test-key",
        "token_uri": format!("{}/token", google.url()),
    });
    std::fs::write(home.path().join("key.json"), key.to_string()).unwrap();
    (google, sheet)
}

/// `gatehouse serve` over stdio acting as the service account, with no administrator's policy: every write
/// asks.
async fn start(home: &Home, google: &google_fake::FakeGoogle) -> Client {
    let mut command = gatehouse(home);
    command
        .arg("serve")
        .env("SERVICE_ACCOUNT_PATH", home.path().join("key.json"))
        .env("GATEHOUSE_GOOGLE_ENDPOINT", google.url())
        .env_remove("GATEHOUSE_POLICY_FILE");
    stdio_client(command).await.unwrap()
}

async fn serve(home: &Home) -> (google_fake::FakeGoogle, String, Client) {
    let (google, sheet) = emulator(home).await;
    let client = start(home, &google).await;
    (google, sheet, client)
}

/// Starts an `update_cells` of `value` into `cell`, in its own task: it may wait for the person.
fn write(client: &Client, sheet: &str, cell: &str, value: &str) -> tokio::task::JoinHandle<CallToolResult> {
    let peer = client.peer().clone();
    let Value::Object(arguments) =
        json!({ "spreadsheet_id": sheet, "sheet": "Data", "range": cell, "data": [[value]] })
    else {
        unreachable!()
    };
    tokio::spawn(async move {
        peer.call_tool(CallToolRequestParams::new("update_cells").with_arguments(arguments)).await.unwrap()
    })
}

fn cell(google: &google_fake::FakeGoogle, sheet: &str, row: usize, column: usize) -> String {
    let values = google.world().sheets.values(sheet, "Data");
    values.get(row).and_then(|cells| cells.get(column)).cloned().unwrap_or_default()
}

#[tokio::test]
async fn a_write_is_answered_from_the_terminal_its_grant_covers_the_next_and_a_revoke_makes_it_ask_again() {
    let home = Home::new();
    let (google, sheet, client) = serve(&home).await;

    // The socket only this user can open.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let dir = home.path().join("control");
        let sockets: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|entry| entry.unwrap().path()).collect();
        assert_eq!(sockets.len(), 1, "{sockets:?}");
        assert!(sockets[0].extension().is_some_and(|ext| ext == "sock"), "{sockets:?}");
        assert_eq!(std::fs::metadata(&dir).unwrap().permissions().mode() & 0o777, 0o700);
        assert_eq!(std::fs::metadata(&sockets[0]).unwrap().permissions().mode() & 0o777, 0o600);
    }

    // 1. A write waits; the card lists it in plain words.
    let first = write(&client, &sheet, "B1", "approved");
    let (id, listing) = next_approval(&home).await;
    assert!(listing.contains("wants to run Update cells (update_cells)"), "{listing}");
    assert!(listing.contains("Target:") && listing.contains("Time left:"), "{listing}");
    // The target by name, found in Drive, not only by its id.
    assert!(listing.contains("Target:        “Budget” (spreadsheet"), "{listing}");
    assert!(listing.contains("only this spreadsheet") && listing.contains(": “Budget”"), "{listing}");
    assert!(listing.contains("--days 1, 7 or 30"), "{listing}");
    assert!(listing.contains("--constrained (only"), "{listing}");
    assert!(!first.is_finished(), "the write waits for the person");

    // A choice the card did not offer is refused, naming what it offers, and nothing is sent.
    let refused = run_gatehouse(&home, &["approvals", "always", &id, "--days", "90"]).await;
    assert!(!refused.ok);
    assert!(refused.stderr.contains("Nothing was sent"), "{}", refused.stderr);
    assert!(
        refused.stderr.contains("\"90\" days was not offered: the card offered 1, 7 or 30 days"),
        "{}",
        refused.stderr
    );
    assert!(!refused.stderr.contains("backtrace"), "{}", refused.stderr);
    assert_eq!(next_approval(&home).await.0, id, "still waiting");

    // 2. Always allow, for any assistant, 7 days, only this spreadsheet.
    let always =
        run_gatehouse(&home, &["approvals", "always", &id, "--scope", "tool", "--days", "7", "--constrained"]).await;
    assert!(always.ok, "{}", always.stderr);
    assert!(always.stdout.contains("Always allowed"), "{}", always.stdout);
    let done = tokio::time::timeout(Duration::from_secs(30), first).await.unwrap().unwrap();
    assert!(!done.is_error.unwrap_or(false), "{}", text(&done));
    assert_eq!(cell(&google, &sheet, 0, 1), "approved", "the emulator shows the write");

    // The card is answered: a second answer says so.
    let again = run_gatehouse(&home, &["approvals", "deny", &id]).await;
    assert!(!again.ok);
    assert!(again.stderr.contains("already answered"), "{}", again.stderr);

    // 3. The next call within the grant's scope runs without asking.
    let second = tokio::time::timeout(Duration::from_secs(30), write(&client, &sheet, "C1", "covered"))
        .await
        .expect("the covered call did not wait for a card")
        .unwrap();
    assert!(!second.is_error.unwrap_or(false), "{}", text(&second));
    assert_eq!(cell(&google, &sheet, 0, 2), "covered");

    // 4. `gatehouse grants` lists the grant; revoking it makes the next call ask again.
    let grants = run_gatehouse(&home, &["grants"]).await;
    assert!(grants.ok, "{}", grants.stderr);
    let grant = grants
        .stdout
        .lines()
        .find_map(|line| line.strip_prefix("Grant "))
        .expect("a grant is listed")
        .trim()
        .to_owned();
    for expected in ["Tool:       update_cells", "Scope:      any assistant", "Limit:      only", "Uses:       1, last"]
    {
        assert!(grants.stdout.contains(expected), "{expected:?} in {}", grants.stdout);
    }
    assert!(grants.stdout.contains(ROBOT) && grants.stdout.contains("State:      active"), "{}", grants.stdout);
    let revoked = run_gatehouse(&home, &["grants", "revoke", &grant]).await;
    assert!(revoked.ok, "{}", revoked.stderr);
    assert!(revoked.stdout.contains(&format!("Revoked grant {grant}")), "{}", revoked.stdout);

    let third = write(&client, &sheet, "D1", "asked again");
    let (id, _) = next_approval(&home).await;
    let denied = run_gatehouse(&home, &["approvals", "deny", &id]).await;
    assert!(denied.ok, "{}", denied.stderr);
    let refused = tokio::time::timeout(Duration::from_secs(30), third).await.unwrap().unwrap();
    assert!(refused.is_error.unwrap_or(false));
    assert!(text(&refused).contains("The person declined update_cells"), "{}", text(&refused));
    assert_eq!(cell(&google, &sheet, 0, 3), "", "the denied write did not happen");

    // 5. The audit log shows each decision with its source, and verifies.
    let audit = run_gatehouse(&home, &["audit"]).await;
    assert!(audit.ok, "{}", audit.stderr);
    let rows: Vec<&str> = audit.stdout.lines().filter(|line| line.contains("update_cells")).collect();
    assert_eq!(rows.len(), 3, "{}", audit.stdout);
    let grant_source = format!("grant:{grant}");
    let expected =
        [("denied", "person", "refused"), ("allowed", grant_source.as_str(), "ok"), ("allowed", "person", "ok")];
    for (row, (verdict, source, outcome)) in rows.iter().zip(expected) {
        let columns: Vec<&str> = row.split("  ").map(str::trim).filter(|column| !column.is_empty()).collect();
        assert!(columns.contains(&verdict), "{verdict} in {row}");
        assert!(columns.contains(&source), "{source} in {row}");
        assert!(columns.contains(&outcome), "{outcome} in {row}");
        assert!(row.contains(&format!("spreadsheet {sheet}")), "the target in {row}");
    }
    let verified = run_gatehouse(&home, &["audit", "verify"]).await;
    assert!(verified.ok, "{}", verified.stderr);
    assert_eq!(verified.stdout.trim(), "The audit log is intact: 3 records.");
    let exported = run_gatehouse(&home, &["audit", "export"]).await;
    assert!(exported.ok, "{}", exported.stderr);
    let records: Vec<Value> = exported.stdout.lines().map(|line| serde_json::from_str(line).unwrap()).collect();
    let sources: Vec<&str> = records.iter().map(|record| record["entry"]["source"].as_str().unwrap()).collect();
    assert_eq!(sources, ["person", grant_source.as_str(), "person"], "oldest first");

    client.cancel().await.unwrap();
}

#[tokio::test]
async fn with_no_server_running_the_terminal_says_so_and_the_store_is_read_directly() {
    let home = Home::new();
    let listed = run_gatehouse(&home, &["approvals"]).await;
    assert!(listed.ok, "{}", listed.stderr);
    assert!(listed.stdout.contains("No Gatehouse server is running for this user"), "{}", listed.stdout);
    let answered = run_gatehouse(&home, &["approvals", "allow", "1"]).await;
    assert!(!answered.ok);
    assert!(answered.stderr.starts_with("Error: No Gatehouse server is running"), "{}", answered.stderr);

    let grants = run_gatehouse(&home, &["grants"]).await;
    assert!(grants.ok && grants.stdout.contains("No standing approvals"), "{} {}", grants.stdout, grants.stderr);
    let revoke = run_gatehouse(&home, &["grants", "revoke", "0123456789"]).await;
    assert!(!revoke.ok && revoke.stderr.contains("There is no grant 0123456789"), "{}", revoke.stderr);
    let verified = run_gatehouse(&home, &["audit", "verify"]).await;
    assert!(verified.ok, "{}", verified.stderr);
    assert_eq!(verified.stdout.trim(), "The audit log is intact: 0 records.");
}

#[tokio::test]
async fn with_two_servers_numbers_name_their_server_and_a_revoke_reaches_both() {
    let home = Home::new();
    let (google, sheet) = emulator(&home).await;
    let first = start(&home, &google).await;

    let waiting = write(&first, &sheet, "B1", "one");
    let (id, _) = next_approval(&home).await;
    assert_eq!(id, "1", "with one server, a plain number");
    let always =
        run_gatehouse(&home, &["approvals", "always", &id, "--scope", "tool", "--days", "1", "--constrained"]).await;
    assert!(always.ok, "{}", always.stderr);
    assert!(!waiting.await.unwrap().is_error.unwrap_or(false));

    // A second server starts after the grant was made: it loads it, and it covers its calls too.
    let second = start(&home, &google).await;
    for (client, cell) in [(&second, "C1"), (&first, "D1")] {
        let covered = tokio::time::timeout(Duration::from_secs(30), write(client, &sheet, cell, "covered"))
            .await
            .expect("a covered call did not wait for a card")
            .unwrap();
        assert!(!covered.is_error.unwrap_or(false), "{}", text(&covered));
    }

    // The revoke reaches both servers at once: the next call on either asks again.
    let grants = run_gatehouse(&home, &["grants"]).await;
    let grant = grants.stdout.lines().find_map(|line| line.strip_prefix("Grant ")).unwrap().trim().to_owned();
    let revoked = run_gatehouse(&home, &["grants", "revoke", &grant[..8]]).await;
    assert!(revoked.ok && revoked.stdout.contains("Revoked grant"), "{} {}", revoked.stdout, revoked.stderr);
    let asked = write(&second, &sheet, "E1", "asks again");
    let (id, listing) = next_approval(&home).await;
    assert!(listing.contains("2 Gatehouse servers are running"), "{listing}");
    let (pid, number) = id.split_once('.').expect("with several servers, PID.N");
    assert_eq!(number, "1");

    let ambiguous = run_gatehouse(&home, &["approvals", "allow", number]).await;
    assert!(!ambiguous.ok);
    assert!(ambiguous.stderr.contains("Several Gatehouse servers are running"), "{}", ambiguous.stderr);
    assert!(ambiguous.stderr.contains(&format!("it could be {pid}.1")), "{}", ambiguous.stderr);
    let allowed = run_gatehouse(&home, &["approvals", "allow", &id]).await;
    assert!(allowed.ok, "{}", allowed.stderr);
    let done = tokio::time::timeout(Duration::from_secs(30), asked).await.unwrap().unwrap();
    assert!(!done.is_error.unwrap_or(false), "{}", text(&done));
    assert_eq!(cell(&google, &sheet, 0, 4), "asks again");

    // Both servers wrote to one chain.
    let verified = run_gatehouse(&home, &["audit", "verify"]).await;
    assert_eq!(verified.stdout.trim(), "The audit log is intact: 4 records.", "{}", verified.stderr);
    first.cancel().await.unwrap();
    second.cancel().await.unwrap();
}

#[tokio::test]
async fn a_never_allow_from_the_terminal_refuses_at_once_and_removing_it_asks_again() {
    let home = Home::new();
    let (google, sheet, client) = serve(&home).await;

    // The rule belongs to the account the server acts as.
    let added = run_gatehouse(&home, &["never", "add", "update_cells", "--days", "1"]).await;
    assert!(added.ok, "{}", added.stderr);
    assert!(added.stdout.contains("Never allowed: update_cells from any assistant"), "{}", added.stdout);
    assert!(added.stdout.contains(ROBOT), "{}", added.stdout);
    let rule = added
        .stdout
        .lines()
        .find_map(|line| line.strip_prefix("Rule ")?.split(':').next())
        .expect("the rule's id is shown")
        .to_owned();
    let listed = run_gatehouse(&home, &["never"]).await;
    assert!(listed.ok, "{}", listed.stderr);
    for expected in [
        format!("Rule {rule}"),
        "Tool:       update_cells".to_owned(),
        "Scope:      any assistant".to_owned(),
        "Limit:      any arguments".to_owned(),
        "Until:      ".to_owned(),
        "State:      active".to_owned(),
    ] {
        assert!(listed.stdout.contains(&expected), "{expected:?} in {}", listed.stdout);
    }

    // A write is refused at once, with no card, saying the person forbade it.
    let refused = tokio::time::timeout(Duration::from_secs(30), write(&client, &sheet, "B1", "never"))
        .await
        .expect("the forbidden call waited instead of being refused at once")
        .unwrap();
    assert!(refused.is_error.unwrap_or(false));
    assert!(text(&refused).contains("the person chose never to allow it"), "{}", text(&refused));
    assert_eq!(cell(&google, &sheet, 0, 1), "", "the forbidden write did not happen");

    // Removed (by the start of its id), the next write asks again.
    let removed = run_gatehouse(&home, &["never", "remove", &rule[..8]]).await;
    assert!(removed.ok, "{}", removed.stderr);
    assert!(removed.stdout.contains(&format!("Removed never-allow rule {rule}")), "{}", removed.stdout);
    let asked = write(&client, &sheet, "C1", "asked");
    let (id, listing) = next_approval(&home).await;
    assert!(listing.contains("update_cells"), "{listing}");
    let allowed = run_gatehouse(&home, &["approvals", "allow", &id]).await;
    assert!(allowed.ok, "{}", allowed.stderr);
    let done = tokio::time::timeout(Duration::from_secs(30), asked).await.unwrap().unwrap();
    assert!(!done.is_error.unwrap_or(false), "{}", text(&done));
    assert_eq!(cell(&google, &sheet, 0, 2), "asked");
    let listed = run_gatehouse(&home, &["never"]).await;
    assert!(listed.stdout.contains("State:      removed"), "{}", listed.stdout);
    let again = run_gatehouse(&home, &["never", "remove", &rule]).await;
    assert!(again.ok && again.stdout.contains("was already removed"), "{} {}", again.stdout, again.stderr);

    // The audit log names the rule that refused.
    let audit = run_gatehouse(&home, &["audit"]).await;
    assert!(audit.ok, "{}", audit.stderr);
    let rows: Vec<&str> = audit.stdout.lines().filter(|line| line.contains("update_cells")).collect();
    assert_eq!(rows.len(), 2, "{}", audit.stdout);
    let deny_source = format!("deny:{rule}");
    for (row, (verdict, source, outcome)) in
        rows.iter().zip([("allowed", "person", "ok"), ("denied", deny_source.as_str(), "refused")])
    {
        let columns: Vec<&str> = row.split("  ").map(str::trim).filter(|column| !column.is_empty()).collect();
        assert!(columns.contains(&verdict), "{verdict} in {row}");
        assert!(columns.contains(&source), "{source} in {row}");
        assert!(columns.contains(&outcome), "{outcome} in {row}");
    }

    client.cancel().await.unwrap();
}

#[tokio::test]
async fn with_no_server_running_never_lists_the_store_and_adding_says_a_server_must_run() {
    let home = Home::new();
    let listed = run_gatehouse(&home, &["never"]).await;
    assert!(listed.ok && listed.stdout.contains("No never-allow rules"), "{} {}", listed.stdout, listed.stderr);
    let added = run_gatehouse(&home, &["never", "add", "update_cells", "--days", "1"]).await;
    assert!(!added.ok);
    assert!(added.stderr.starts_with("Error: No Gatehouse server is running"), "{}", added.stderr);
    assert!(added.stderr.contains("signed in"), "{}", added.stderr);
    let out_of_range = run_gatehouse(&home, &["never", "add", "update_cells", "--days", "0"]).await;
    assert!(!out_of_range.ok && out_of_range.stderr.contains("from 1 to 3650 days"), "{}", out_of_range.stderr);
    let removed = run_gatehouse(&home, &["never", "remove", "0123456789"]).await;
    assert!(!removed.ok && removed.stderr.contains("There is no never-allow rule 0123456789"), "{}", removed.stderr);
}

#[tokio::test]
async fn a_bad_policy_file_stops_the_server_at_start_naming_the_line() {
    let home = Home::new();
    let policy = home.path().join("policy.toml");
    std::fs::write(&policy, "max_days = 30\n\n[[allow]]\ntool = \"updte_cells\"\nexpires = \"2027-01-01T00:00:00Z\"\n")
        .unwrap();
    let output = gatehouse(&home)
        .args(["serve", "--sandbox"])
        .env("GATEHOUSE_POLICY_FILE", &policy)
        .env("RUST_BACKTRACE", "1")
        .stdin(std::process::Stdio::null())
        .output()
        .await
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "the server must not start: {stderr}");
    assert!(stderr.contains("line 4"), "{stderr}");
    assert!(stderr.contains("updte_cells") && stderr.contains(&policy.display().to_string()), "{stderr}");
    assert!(!stderr.to_lowercase().contains("stack backtrace"), "{stderr}");
}

/// The assistant of the test below: a `python3` that starts `gatehouse serve` itself (argv[1]), speaks MCP to
/// it over its pipes, asks for `update_cells` (argv[2], the arguments), and, as an eager or prompt-injected
/// assistant would, runs `gatehouse approvals allow N` from a shell it starts (its grandchild). It prints that
/// answer's outcome, then the call's reply, one JSON line each.
const EAGER_ASSISTANT: &str = r#"
import json, re, subprocess, sys, time
gatehouse, arguments = sys.argv[1], json.loads(sys.argv[2])
serve = subprocess.Popen([gatehouse, "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
def send(message):
    serve.stdin.write((json.dumps(message) + "\n").encode())
    serve.stdin.flush()
def reply(id):
    while True:
        line = serve.stdout.readline()
        if not line:
            sys.exit("gatehouse serve closed its output")
        message = json.loads(line)
        if message.get("id") == id:
            return message
send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-03-26", "capabilities": {}, "clientInfo": {"name": "eager-assistant", "version": "1"}}})
reply(1)
send({"jsonrpc": "2.0", "method": "notifications/initialized"})
send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "update_cells", "arguments": arguments}})
card = None
for _ in range(300):
    listed = subprocess.run([gatehouse, "approvals"], capture_output=True, text=True).stdout
    found = re.search(r"^Approval (\S+):", listed, re.M)
    if found:
        card = found.group(1)
        break
    time.sleep(0.1)
own = subprocess.run(["sh", "-c", '"$0" approvals allow "$1"; status=$?; exit $status', gatehouse, card or "none"], capture_output=True, text=True)
print(json.dumps({"card": card, "ok": own.returncode == 0, "stderr": own.stderr}), flush=True)
print(json.dumps(reply(2)), flush=True)
"#;

/// Issue 15, item 2: on a headless host, a terminal answer from a program the assistant started is refused
/// (the host reads the answering process's ancestry from the control socket's peer), and the person's own
/// terminal (a process the assistant did not start) is taken and recorded as a terminal answer.
#[cfg(target_os = "linux")]
#[tokio::test]
async fn a_terminal_answer_from_the_assistants_own_shell_is_refused_and_the_persons_own_is_taken() {
    let home = Home::new();
    let (google, sheet) = emulator(&home).await;
    let mut serve = gatehouse(&home);
    serve
        .env("SERVICE_ACCOUNT_PATH", home.path().join("key.json"))
        .env("GATEHOUSE_GOOGLE_ENDPOINT", google.url())
        .env_remove("GATEHOUSE_POLICY_FILE");
    let arguments = json!({ "spreadsheet_id": sheet, "sheet": "Data", "range": "B1", "data": [["by the assistant"]] });
    let mut assistant = tokio::process::Command::new("python3");
    assistant.arg("-c").arg(EAGER_ASSISTANT).arg(gatehouse_e2e::gatehouse_bin()).arg(arguments.to_string());
    for (key, value) in serve.as_std().get_envs() {
        match value {
            Some(value) => assistant.env(key, value),
            None => assistant.env_remove(key),
        };
    }
    let mut assistant = assistant.stdout(std::process::Stdio::piped()).kill_on_drop(true).spawn().unwrap();
    let mut lines = tokio::io::AsyncBufReadExt::lines(tokio::io::BufReader::new(assistant.stdout.take().unwrap()));
    let own = next_line(&mut lines).await;
    let card = own["card"].as_str().expect("the assistant saw its card").to_owned();
    assert_eq!(own["ok"], json!(false), "{own}");
    let refusal = own["stderr"].as_str().unwrap();
    assert!(refusal.contains("An assistant can't approve its own changes"), "{refusal}");
    assert!(refusal.contains("in a terminal you opened yourself"), "{refusal}");
    assert_eq!(cell(&google, &sheet, 0, 1), "", "nothing was written");
    assert_eq!(next_approval(&home).await.0, card, "the card still waits");

    // The person, at a terminal of their own (a process the assistant did not start): taken.
    let allowed = run_gatehouse(&home, &["approvals", "allow", &card]).await;
    assert!(allowed.ok, "{}", allowed.stderr);
    let reply = next_line(&mut lines).await;
    assert!(reply["result"].is_object() && reply["result"]["isError"] != json!(true), "{reply}");
    assert_eq!(cell(&google, &sheet, 0, 1), "by the assistant");
    let audit = run_gatehouse(&home, &["audit"]).await;
    assert!(audit.ok, "{}", audit.stderr);
    assert!(audit.stdout.contains("ANSWERED"), "{}", audit.stdout);
    assert!(audit.stdout.contains("from a terminal: process"), "{}", audit.stdout);
    assistant.kill().await.unwrap();
}

/// The assistant's next JSON line (at most a minute away).
#[cfg(target_os = "linux")]
async fn next_line(lines: &mut tokio::io::Lines<tokio::io::BufReader<tokio::process::ChildStdout>>) -> Value {
    let line = tokio::time::timeout(Duration::from_secs(60), lines.next_line()).await.unwrap().unwrap();
    serde_json::from_str(&line.expect("the assistant printed a line")).unwrap()
}
