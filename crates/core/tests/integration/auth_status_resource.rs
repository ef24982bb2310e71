//! `server://auth-status` as an MCP resource: listed, read, and announced to subscribers when the sign-in
//! changes (`resources/subscribe` before MCP 2026-07-28, `subscriptions/listen` since) — through a real rmcp
//! client connected in process.

use crate::support;

use gatehouse_core::auth::identity::{AuthMethod, IdentityClass};
use gatehouse_core::auth::state::AuthSnapshot;
use gatehouse_core::mcp::McpServer;
use gatehouse_core::resources::AUTH_STATUS_URI;
use rmcp::model::{
    ProtocolVersion, ReadResourceRequestParams, ResourceUpdatedNotificationParam, ServerNotification,
    SubscribeRequestParams, SubscriptionFilter,
};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, NotificationContext};
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::Value;
use support::Harness;
use tokio::sync::mpsc;

/// A client that forwards `notifications/resources/updated` to the test.
struct Updates(mpsc::UnboundedSender<String>);

impl ClientHandler for Updates {
    async fn on_resource_updated(&self, params: ResourceUpdatedNotificationParam, _: NotificationContext<RoleClient>) {
        let _ = self.0.send(params.uri);
    }
}

fn service_account() -> AuthSnapshot {
    AuthSnapshot {
        method: AuthMethod::ServiceAccount,
        class: Some(IdentityClass::ServiceAccount),
        account: Some("robot@project.iam.gserviceaccount.com".into()),
        granted_scopes: None,
    }
}

#[tokio::test]
async fn the_resource_follows_the_sign_in_and_subscribers_hear_of_changes() {
    let h = Harness::new().await;
    h.engine.auth().set(service_account());
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    let server = McpServer::new(h.engine.clone());
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    let (tx, mut updates) = mpsc::unbounded_channel();
    let client = Updates(tx).serve(client_io).await.unwrap();

    let listed = client.peer().list_all_resources().await.unwrap();
    assert!(listed.iter().any(|r| r.uri == AUTH_STATUS_URI), "{listed:?}");

    let read = |client: &rmcp::service::RunningService<RoleClient, Updates>| {
        let peer = client.peer().clone();
        async move {
            let result = peer.read_resource(ReadResourceRequestParams::new(AUTH_STATUS_URI)).await.unwrap();
            let text = match &result.contents[0] {
                rmcp::model::ResourceContents::TextResourceContents { text, .. } => text.clone(),
                other => panic!("expected text, got {other:?}"),
            };
            serde_json::from_str::<Value>(&text).unwrap()
        }
    };
    let status = read(&client).await;
    assert_eq!(status["auth_method"], "service_account");
    assert_eq!(status["is_service_account_identity"], true);
    assert_eq!(status["account"], "robot@project.iam.gserviceaccount.com");
    let categories: Vec<&str> =
        status["limitations"].as_array().unwrap().iter().map(|l| l["category"].as_str().unwrap()).collect();
    assert!(categories.contains(&"no_drive_storage_quota"), "{categories:?}");

    #[allow(deprecated)]
    client.peer().subscribe(SubscribeRequestParams::new(AUTH_STATUS_URI)).await.unwrap();
    h.engine.auth().set(AuthSnapshot::signed_out());
    let uri = tokio::time::timeout(std::time::Duration::from_secs(5), updates.recv()).await.unwrap().unwrap();
    assert_eq!(uri, AUTH_STATUS_URI);
    let status = read(&client).await;
    assert_eq!(status["auth_method"], "none");
    let categories: Vec<&str> =
        status["limitations"].as_array().unwrap().iter().map(|l| l["category"].as_str().unwrap()).collect();
    assert!(categories.contains(&"not_signed_in"), "{categories:?}");

    // Setting the same state again is not a change.
    h.engine.auth().set(AuthSnapshot::signed_out());
    assert!(tokio::time::timeout(std::time::Duration::from_millis(300), updates.recv()).await.is_err());
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn only_auth_status_can_be_subscribed_to() {
    let h = Harness::new().await;
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    let server = McpServer::new(h.engine.clone());
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    let (tx, _updates) = mpsc::unbounded_channel();
    let client = Updates(tx).serve(client_io).await.unwrap();
    #[allow(deprecated)]
    let error = client.peer().subscribe(SubscribeRequestParams::new("spreadsheet://x/info")).await.unwrap_err();
    assert!(error.to_string().contains("server://auth-status"), "{error}");
    client.cancel().await.unwrap();
}

/// A 2026-07-28 client (no `initialize`, no `resources/subscribe`) listens with `subscriptions/listen`: of its
/// filter only `server://auth-status` is acknowledged, and each change of the sign-in comes on that stream.
#[tokio::test]
async fn a_2026_client_hears_of_sign_in_changes_on_a_listen_stream() {
    let h = Harness::new().await;
    h.engine.auth().set(service_account());
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    let server = McpServer::new(h.engine.clone());
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    let (tx, _updates) = mpsc::unbounded_channel();
    let lifecycle = ClientLifecycleMode::Discover { preferred_versions: vec![ProtocolVersion::V_2026_07_28] };
    let client = Updates(tx).serve_with_lifecycle(client_io, lifecycle).await.unwrap();
    #[allow(deprecated)]
    let legacy = client.peer().subscribe(SubscribeRequestParams::new(AUTH_STATUS_URI)).await;
    assert!(legacy.is_err(), "resources/subscribe was answered at 2026-07-28");

    // A resource that does not exist: the error names it in `data` (MCP 2026-07-28's resources/read).
    let missing = client.peer().read_resource(ReadResourceRequestParams::new("server://no-such-thing")).await;
    let Err(rmcp::ServiceError::McpError(missing)) = missing else { panic!("read a missing resource: {missing:?}") };
    assert_eq!(missing.data, Some(serde_json::json!({ "uri": "server://no-such-thing" })), "{missing:?}");

    let mut filter = SubscriptionFilter::new();
    filter.resource_subscriptions = Some(vec!["spreadsheet://x/info".to_owned(), AUTH_STATUS_URI.to_owned()]);
    filter.tools_list_changed = Some(true);
    let mut subscription = client.peer().listen(filter).await.unwrap();
    let acknowledged = subscription.acknowledged();
    assert_eq!(acknowledged.resource_subscriptions, Some(vec![AUTH_STATUS_URI.to_owned()]));
    assert_eq!(acknowledged.tools_list_changed, None, "the tool list never changes, so it is not offered");

    h.engine.auth().set(AuthSnapshot::signed_out());
    let next = tokio::time::timeout(std::time::Duration::from_secs(5), subscription.next()).await.unwrap().unwrap();
    match next {
        Some(ServerNotification::ResourceUpdatedNotification(updated)) => {
            assert_eq!(updated.params.uri, AUTH_STATUS_URI);
        }
        other => panic!("expected notifications/resources/updated, got {other:?}"),
    }
    // Setting the same state again is not a change.
    h.engine.auth().set(AuthSnapshot::signed_out());
    assert!(tokio::time::timeout(std::time::Duration::from_millis(300), subscription.next()).await.is_err());
    client.cancel().await.unwrap();
}
