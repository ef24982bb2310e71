//! `server://auth-status`: how Gatehouse is signed in, and what that sign-in cannot do, why, and what the
//! person can do about it (docs/product.md specifies the shape).
//!
//! The tool lists are derived from the tool declarations only ([`ToolMeta::fails_for`] and
//! [`ToolMeta::scope`]): a tool is listed under a category because it declares it, so none can be forgotten.
//! Alternatives never suggest the method the person is already on: someone on ADC whose credential is a
//! service account is told to point ADC at their own account, not to "use ADC".

use serde_json::{Value, json};

use super::identity::{AuthMethod, IdentityClass};
use crate::catalog::{Limitation, Scope, ToolMeta};
use crate::config::GoogleBackend;
use crate::google::auth::SCOPES;

/// The `category` of the entry listing every tool while signed out.
pub const NOT_SIGNED_IN: &str = "not_signed_in";
/// The `category` of the entry listing tools whose scope the credential was not granted.
pub const MISSING_SCOPES: &str = "missing_scopes";
/// The `category` of the entry listing tools that still reach Google through a REST API (issue 17).
pub const USES_REST_API: &str = "uses_rest_api";
/// The `category` of the entry listing the tools that can't use Google's MCP servers because the OAuth client
/// the person signed in with is not marked for AI agents.
pub const CLIENT_NOT_AGENTIC: &str = "client_not_agentic";

/// How this server reaches Google, for the two entries about Google's MCP servers ([`add_google_backend`]).
pub struct GoogleReach {
    pub backend: GoogleBackend,
    /// Google's MCP servers refused the sign-in: its OAuth client is not marked agentic.
    pub not_agentic: bool,
}

/// Adds to an [`auth_status`] answer, in its per-category shape, what the person should know about Google's
/// rule for AI agents: the tools still calling a REST API, and a sign-in Google's MCP servers refuse.
/// `on_mcp` says whether a tool's calls can run on one of Google's MCP servers.
pub fn add_google_backend<T: AsRef<ToolMeta>>(
    status: &mut Value,
    reach: &GoogleReach,
    tools: &[T],
    on_mcp: impl Fn(&T) -> bool,
) {
    let google: Vec<&T> = tools.iter().filter(|tool| tool.as_ref().scope.is_some()).collect();
    let on_mcp = |tool: &&&T| on_mcp(tool);
    let setting = "set the Google backend to both (Gatehouse › Settings › Advanced, or GATEHOUSE_GOOGLE_BACKEND=both)";
    let mut entries = Vec::new();
    let rest: Vec<&'static str> = match reach.backend {
        GoogleBackend::Mcp => Vec::new(),
        GoogleBackend::Rest => google.iter().map(|tool| tool.as_ref().name).collect(),
        GoogleBackend::Both => google.iter().filter(|tool| !on_mcp(tool)).map(|tool| tool.as_ref().name).collect(),
    };
    if !rest.is_empty() {
        let served: Vec<&str> = google.iter().filter(on_mcp).map(|tool| tool.as_ref().name).collect();
        let alternatives = match reach.backend {
            GoogleBackend::Rest => vec![format!(
                "To reach Google the way it asks AI agents to for the tools its MCP servers can serve ({}), {setting}.",
                served.join(", ")
            )],
            _ => vec![format!(
                "Google's MCP servers have no tool for these yet. The tools that run on them are: {}.",
                served.join(", ")
            )],
        };
        entries.push(json!({
            "category": USES_REST_API,
            "tools": rest,
            "reason": "Google asks AI agents to reach Workspace data through its Workspace MCP servers (its quota pages speak of requiring MCP when AI agents obtain data from Google Workspace APIs); these tools still call Google's REST APIs, which Google may stop accepting from AI agents.",
            "alternatives": alternatives,
        }));
    }
    if reach.not_agentic && reach.backend != GoogleBackend::Rest {
        let affected: Vec<&'static str> = google.iter().filter(on_mcp).map(|tool| tool.as_ref().name).collect();
        let fallback = match reach.backend {
            GoogleBackend::Both => " Meanwhile these tools use Google's REST APIs.",
            _ => " With the Google backend set to mcp they can't run at all.",
        };
        entries.push(json!({
            "category": CLIENT_NOT_AGENTIC,
            "tools": affected,
            "reason": format!("Google's MCP servers refused the sign-in: the OAuth client Gatehouse signs in with is not marked \"Use this client for an AI-powered agent\", and since November 11, 2026 they accept only such clients. A client that was not marked by November 12, 2026 can never be marked.{fallback}"),
            "alternatives": [
                "1. Open the Google Cloud console at https://console.cloud.google.com/apis/credentials, in the project Gatehouse signs in with.",
                "2. Create credentials › OAuth client ID › Application type: Desktop app, and tick \"Use this client for an AI-powered agent\".",
                "3. Download the client's JSON file and choose it on Gatehouse's Account page (Set up a new client for AI agents › Choose the downloaded file…), then sign in with Google again.",
                format!("Or, to keep the old client for now, {}: Google's REST APIs accept it.", setting.replace("both", "rest")),
            ],
        }));
    }
    if entries.is_empty() {
        return;
    }
    let Some(object) = status.as_object_mut() else { return };
    let mut limited: Vec<Value> = object.get("limited_tools").and_then(Value::as_array).cloned().unwrap_or_default();
    for entry in &entries {
        for tool in entry["tools"].as_array().into_iter().flatten() {
            if !limited.contains(tool) {
                limited.push(tool.clone());
            }
        }
    }
    if let Some(Value::Array(limitations)) = object.get_mut("limitations") {
        limitations.extend(entries);
    }
    object.insert("limited_tools".into(), Value::Array(limited));
}

/// One failure class: the tools that fail, why, and what the person can do instead.
struct Entry {
    category: &'static str,
    tools: Vec<&'static str>,
    reason: String,
    alternatives: Vec<String>,
}

/// An alternative, with the method it would switch to (dropped when that is the current method).
struct Alternative {
    switches_to: Option<AuthMethod>,
    text: String,
}

impl Alternative {
    fn switch(method: AuthMethod, text: impl Into<String>) -> Self {
        Self { switches_to: Some(method), text: text.into() }
    }

    fn stay(text: impl Into<String>) -> Self {
        Self { switches_to: None, text: text.into() }
    }
}

/// Builds the `server://auth-status` JSON.
///
/// - `method`: how the credential was found ([`AuthMethod::None`] when signed out);
/// - `class`: what the resolved credential is (for OAuth and service-account keys it follows from the method
///   when `None`; for ADC pass what [`super::adc::resolve`] found);
/// - `account`: the email, when known;
/// - `granted_scopes`: the scopes the credential carries, when known (tools needing others are listed under
///   `missing_scopes`);
/// - `tools`: the tools this server offers (the enabled ones).
pub fn auth_status(
    method: AuthMethod,
    class: Option<IdentityClass>,
    account: Option<&str>,
    granted_scopes: Option<&[String]>,
    tools: &[impl AsRef<ToolMeta>],
) -> Value {
    let metas: Vec<&ToolMeta> = tools.iter().map(AsRef::as_ref).collect();
    let class = if method == AuthMethod::None { None } else { class.or(method.fixed_class()) };
    let mut entries = Vec::new();
    match class {
        None => entries.push(not_signed_in(&metas)),
        Some(class) => {
            for limitation in Limitation::ALL {
                if applies(limitation, class) {
                    entries.push(limitation_entry(limitation, method, account, &metas));
                }
            }
            if let Some(granted) = granted_scopes {
                entries.push(missing_scopes(method, class, granted, &metas));
            }
        }
    }
    entries.retain(|entry| !entry.tools.is_empty());
    let limited: Vec<&str> = metas
        .iter()
        .map(|meta| meta.name)
        .filter(|name| entries.iter().any(|entry| entry.tools.contains(name)))
        .collect();
    let limitations: Vec<Value> = entries
        .into_iter()
        .map(|entry| {
            json!({
                "category": entry.category,
                "tools": entry.tools,
                "reason": entry.reason,
                "alternatives": entry.alternatives,
            })
        })
        .collect();
    json!({
        "auth_method": method.as_str(),
        "is_service_account_identity": class.is_some_and(IdentityClass::is_service_account),
        "account": account,
        "limitations": limitations,
        "limited_tools": limited,
    })
}

/// Which identities a limitation hits: both are service-account facts (no Drive storage, no My Drive).
pub const fn applies(limitation: Limitation, class: IdentityClass) -> bool {
    match limitation {
        Limitation::NoDriveStorageQuota | Limitation::NoPersonalDriveIdentity | Limitation::NoMailbox => {
            class.is_service_account()
        }
    }
}

/// The tools declaring `limitation`, in catalogue order.
fn declaring(metas: &[&ToolMeta], limitation: Limitation) -> Vec<&'static str> {
    metas.iter().filter(|meta| meta.fails(limitation)).map(|meta| meta.name).collect()
}

/// Keeps the alternatives that don't suggest the method already in use.
fn offer(method: AuthMethod, alternatives: Vec<Alternative>) -> Vec<String> {
    alternatives.into_iter().filter(|alt| alt.switches_to != Some(method)).map(|alt| alt.text).collect()
}

/// The `--scopes` value for `gcloud auth application-default login`: gcloud insists on `cloud-platform`, and
/// the email lets Gatehouse show who is signed in.
fn gcloud_scopes() -> String {
    let base =
        ["openid", "https://www.googleapis.com/auth/userinfo.email", "https://www.googleapis.com/auth/cloud-platform"];
    base.iter().chain(SCOPES).copied().collect::<Vec<_>>().join(",")
}

fn sign_in_with_google() -> Alternative {
    Alternative::switch(
        AuthMethod::OAuth,
        "Sign in with a Google account: the Gatehouse app (tray menu › Open Gatehouse › Account › Sign in with Google), or `gatehouse login`. Gatehouse then acts as that person, with their Drive.",
    )
}

fn use_service_account_key() -> Alternative {
    Alternative::switch(
        AuthMethod::ServiceAccount,
        "Use a service-account key: set SERVICE_ACCOUNT_PATH to its JSON file (it reaches only files shared with the service account).",
    )
}

fn use_adc() -> Alternative {
    Alternative::switch(
        AuthMethod::Adc,
        format!(
            "Use Application Default Credentials: run `gcloud auth application-default login --scopes={}`, or set GOOGLE_APPLICATION_CREDENTIALS to a credential file.",
            gcloud_scopes()
        ),
    )
}

/// For ADC holding a service account: the same method, aimed at the person's own account.
fn point_adc_at_a_person() -> Alternative {
    Alternative::stay(format!(
        "Point Application Default Credentials at your own Google account: run `gcloud auth application-default login --scopes={}` (and unset GOOGLE_APPLICATION_CREDENTIALS if it names a service-account key), then restart Gatehouse.",
        gcloud_scopes()
    ))
}

fn not_signed_in(metas: &[&ToolMeta]) -> Entry {
    Entry {
        category: NOT_SIGNED_IN,
        tools: metas.iter().map(|meta| meta.name).collect(),
        reason: "No Google account or credential is signed in, so no tool can reach Google.".into(),
        alternatives: offer(
            AuthMethod::None,
            vec![
                sign_in_with_google(),
                use_service_account_key(),
                use_adc(),
                Alternative::stay(
                    "To try Gatehouse without a Google account, run `gatehouse serve --sandbox` (sample files).",
                ),
            ],
        ),
    }
}

fn limitation_entry(limitation: Limitation, method: AuthMethod, account: Option<&str>, metas: &[&ToolMeta]) -> Entry {
    let who =
        account.map_or_else(|| "the service account".to_owned(), |email| format!("the service account ({email})"));
    let repoint = (method == AuthMethod::Adc).then(point_adc_at_a_person);
    let (reason, others) = match limitation {
        Limitation::NoDriveStorageQuota => (
            "A service account has no Drive storage of its own, so Google refuses to let it create, copy or upload files outside a shared drive.",
            vec![Alternative::stay(format!(
                "Work in a shared drive: add {who} to a shared drive as a Content manager and pass one of its folders as folder_id (or set DRIVE_FOLDER_ID); copies and uploads there need no personal storage."
            ))],
        ),
        Limitation::NoPersonalDriveIdentity => (
            "A service account is not a person and has no My Drive, so it can neither give nor receive ownership of files.",
            vec![Alternative::stay(
                "To let someone else edit a file without moving its ownership, share it with them as a writer (share_file).",
            )],
        ),
        Limitation::NoMailbox => (
            "A service account has no Gmail mailbox and Gatehouse does not act for a person through domain-wide delegation, so Google refuses every Gmail call (Precondition check failed).",
            vec![Alternative::stay(
                "To send mail from a shared address, sign in as that address's own Google account (or as a person who has it as a Gmail alias).",
            )],
        ),
    };
    let alternatives = repoint.into_iter().chain([sign_in_with_google()]).chain(others).collect();
    Entry {
        category: limitation.category(),
        tools: declaring(metas, limitation),
        reason: reason.into(),
        alternatives: offer(method, alternatives),
    }
}

/// The product a scope opens, for people.
const fn scope_label(scope: Scope) -> &'static str {
    match scope {
        Scope::Sheets => "Google Sheets",
        Scope::Docs => "Google Docs",
        Scope::Slides => "Google Slides",
        Scope::Drive => "Google Drive",
        Scope::DriveActivity => "Drive activity",
        Scope::Calendar => "Google Calendar",
        Scope::CalendarAcl => "Google Calendar sharing",
        Scope::Gmail => "Gmail",
    }
}

fn missing_scopes(method: AuthMethod, class: IdentityClass, granted: &[String], metas: &[&ToolMeta]) -> Entry {
    let failing: Vec<&&ToolMeta> = metas.iter().filter(|meta| !meta.scope_granted(granted)).collect();
    let mut scopes: Vec<Scope> = failing.iter().filter_map(|meta| meta.scope).collect();
    scopes.sort();
    scopes.dedup();
    // A scope whose full grant covers another (calendar covers its sharing rules) names both once.
    let listed = scopes.clone();
    scopes.retain(|scope| !scope.read_covered_by().is_some_and(|by| listed.contains(&by)));
    let names: Vec<&str> = scopes.iter().map(|scope| scope_label(*scope)).collect();
    let urls: Vec<&str> = scopes.iter().map(|scope| scope.url()).collect();
    let reason = format!(
        "This credential was not granted access to {} ({}), so Google refuses these tools.",
        names.join(", "),
        urls.join(" ")
    );
    let alternatives = match (method, class) {
        (AuthMethod::OAuth, _) => vec![Alternative::stay(
            "To use them, sign in again from the Gatehouse app (tray menu › Open Gatehouse › Account) with these products ticked, or with `gatehouse login`, and allow them on Google's consent page.",
        )],
        (AuthMethod::Adc, IdentityClass::User) => vec![
            Alternative::stay(format!(
                "Grant them to your Application Default Credentials: run `gcloud auth application-default login --scopes={}`, then restart Gatehouse.",
                gcloud_scopes()
            )),
            sign_in_with_google(),
        ],
        (AuthMethod::Adc, IdentityClass::ServiceAccount) => vec![
            Alternative::stay(
                "Give this machine's service account these scopes (on Compute Engine: stop the VM and edit its access scopes), then restart Gatehouse.",
            ),
            point_adc_at_a_person(),
            sign_in_with_google(),
        ],
        _ => vec![
            Alternative::stay(
                "Check that the Google Sheets, Docs, Drive, Drive Activity and Calendar APIs are enabled in the key's Google Cloud project.",
            ),
            sign_in_with_google(),
        ],
    };
    Entry {
        category: MISSING_SCOPES,
        tools: failing.iter().map(|meta| meta.name).collect(),
        reason,
        alternatives: offer(method, alternatives),
    }
}
