//! What Gatehouse leaves where others could read it (issue 15, item 10): the files it writes — `GATEHOUSE_HOME`, the grants
//! database, the token file, exported files — are this user's only. That debug logs (stderr, which
//! assistants keep) never carry a tool's result or arguments is tested on the real binary's stderr
//! (tests/e2e/stdio.rs), where no other test's logging can interfere.

use crate::support;

use gatehouse_core::auth::{Secret, StoredAccount, TokenStore};
use gatehouse_core::limits::local_files::LocalFiles;

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
