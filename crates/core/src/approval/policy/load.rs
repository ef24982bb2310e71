//! Finding and reading the policy file: the one place this module touches the file system.

use std::path::{Path, PathBuf};

use chrono::Utc;

use super::{Policy, PolicyError};

/// The variable that names a policy file in place of the administrator's location.
pub const POLICY_FILE_VARIABLE: &str = "GATEHOUSE_POLICY_FILE";

/// Where an administrator puts the policy file on this platform. `lookup` reads environment variables
/// (only `ProgramData`, on Windows).
pub fn admin_policy_path(lookup: impl Fn(&str) -> Option<String>) -> PathBuf {
    #[cfg(windows)]
    {
        let program_data = lookup("ProgramData").filter(|value| !value.trim().is_empty());
        PathBuf::from(program_data.unwrap_or_else(|| r"C:\ProgramData".to_owned()))
            .join("Gatehouse")
            .join("policy.toml")
    }
    #[cfg(target_os = "macos")]
    {
        let _ = lookup;
        PathBuf::from("/Library/Application Support/Gatehouse/policy.toml")
    }
    #[cfg(not(any(windows, target_os = "macos")))]
    {
        let _ = lookup;
        PathBuf::from("/etc/gatehouse/policy.toml")
    }
}

impl Policy {
    /// Reads the policy file named by `GATEHOUSE_POLICY_FILE` (which must exist), or else the one at
    /// [`admin_policy_path`] if there is one. `Ok(None)`: no policy file, so [`Policy::default`] applies.
    pub fn load(
        lookup: impl Fn(&str) -> Option<String>,
        known_tools: &[&str],
    ) -> Result<Option<(PathBuf, Policy)>, PolicyError> {
        let admin_path = admin_policy_path(&lookup);
        Self::load_from(lookup, &admin_path, known_tools)
    }

    /// [`Policy::load`] with the administrator's location given, so tests need not depend on the machine.
    pub fn load_from(
        lookup: impl Fn(&str) -> Option<String>,
        admin_path: &Path,
        known_tools: &[&str],
    ) -> Result<Option<(PathBuf, Policy)>, PolicyError> {
        let path = match lookup(POLICY_FILE_VARIABLE).filter(|value| !value.trim().is_empty()) {
            Some(named) => {
                let path = PathBuf::from(named);
                if !exists(&path)? {
                    return Err(PolicyError::Missing { variable: POLICY_FILE_VARIABLE, path });
                }
                path
            }
            None if exists(admin_path)? => admin_path.to_path_buf(),
            None => {
                tracing::debug!(path = %admin_path.display(), "no policy file: the default policy applies");
                return Ok(None);
            }
        };
        let text =
            std::fs::read_to_string(&path).map_err(|source| PolicyError::Unreadable { path: path.clone(), source })?;
        let policy = Policy::parse(&text, &path, known_tools)?;
        tracing::info!(
            path = %path.display(),
            allow = policy.allow_rules().len(),
            deny = policy.deny_rules().len(),
            "policy file read"
        );
        let now = Utc::now();
        for rule in policy.allow_rules().iter().filter(|rule| rule.expires <= now) {
            tracing::warn!(path = %path.display(), rule = %rule.rule_name(), expires = %rule.expires,
                "a policy allow rule has expired and allows nothing");
        }
        Ok(Some((path, policy)))
    }
}

/// Whether a file is there; a location Gatehouse cannot even look at is an error, not "no policy".
fn exists(path: &Path) -> Result<bool, PolicyError> {
    path.try_exists().map_err(|source| PolicyError::Unreadable { path: path.to_path_buf(), source })
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    const TOOLS: &[&str] = &["update_cells", "delete_file"];

    fn lookup(vars: &[(&str, &Path)]) -> impl Fn(&str) -> Option<String> {
        let vars: HashMap<String, String> =
            vars.iter().map(|(name, value)| ((*name).to_owned(), value.display().to_string())).collect();
        move |name| vars.get(name).cloned()
    }

    #[test]
    fn no_variable_and_no_admin_file_means_no_policy() {
        let dir = tempfile::tempdir().unwrap();
        let loaded = Policy::load_from(lookup(&[]), &dir.path().join("policy.toml"), TOOLS).unwrap();
        assert_eq!(loaded, None);
    }

    #[test]
    fn the_admin_file_is_read_when_there_is_one() {
        let dir = tempfile::tempdir().unwrap();
        let admin = dir.path().join("policy.toml");
        std::fs::write(&admin, "max_days = 7\n").unwrap();
        let (path, policy) = Policy::load_from(lookup(&[]), &admin, TOOLS).unwrap().unwrap();
        assert_eq!((path, policy.max_days()), (admin, 7));
    }

    #[test]
    fn the_variable_wins_over_the_admin_file() {
        let dir = tempfile::tempdir().unwrap();
        let admin = dir.path().join("admin.toml");
        let named = dir.path().join("named.toml");
        std::fs::write(&admin, "max_days = 7\n").unwrap();
        std::fs::write(&named, "max_days = 30\n").unwrap();
        let (path, policy) =
            Policy::load_from(lookup(&[(POLICY_FILE_VARIABLE, &named)]), &admin, TOOLS).unwrap().unwrap();
        assert_eq!((path, policy.max_days()), (named, 30));
    }

    #[test]
    fn a_missing_file_named_by_the_variable_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let admin = dir.path().join("admin.toml");
        std::fs::write(&admin, "max_days = 7\n").unwrap();
        let named = dir.path().join("missing.toml");
        let error = Policy::load_from(lookup(&[(POLICY_FILE_VARIABLE, &named)]), &admin, TOOLS).unwrap_err();
        assert!(matches!(&error, PolicyError::Missing { path, .. } if *path == named), "{error:?}");
        assert!(error.to_string().contains("GATEHOUSE_POLICY_FILE names the policy file"), "{error}");
    }

    #[test]
    fn a_malformed_file_is_an_error_naming_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let admin = dir.path().join("policy.toml");
        std::fs::write(&admin, "max_days = 90\n[[deny]]\ntool = \"format_disk\"\n").unwrap();
        let error = Policy::load_from(lookup(&[]), &admin, TOOLS).unwrap_err();
        assert!(matches!(&error, PolicyError::Invalid { path, line: 3, .. } if *path == admin), "{error:?}");
    }

    #[test]
    fn a_directory_in_place_of_the_file_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let error = Policy::load_from(lookup(&[(POLICY_FILE_VARIABLE, dir.path())]), Path::new("/nonexistent"), TOOLS)
            .unwrap_err();
        assert!(matches!(error, PolicyError::Unreadable { .. }), "{error:?}");
    }

    #[test]
    fn the_admin_location_is_the_platforms() {
        let path = admin_policy_path(|_| None);
        assert!(path.ends_with("policy.toml") && path.is_absolute(), "{}", path.display());
        #[cfg(target_os = "linux")]
        assert_eq!(path, Path::new("/etc/gatehouse/policy.toml"));
    }
}
