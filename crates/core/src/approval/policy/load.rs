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

/// Which part a policy file plays.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PolicyFileRole {
    /// The administrator's file at [`admin_policy_path`]: authoritative.
    Administrator,
    /// The file `GATEHOUSE_POLICY_FILE` names, with no administrator's file: the whole policy.
    Variable,
    /// The file `GATEHOUSE_POLICY_FILE` names, next to the administrator's: it may only add restrictions.
    VariableRestrictions,
}

/// A policy file in force, and what it contributed (for `gatehouse status` and the start's log).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PolicyFile {
    pub path: PathBuf,
    pub role: PolicyFileRole,
    /// What it added to the administrator's, for [`PolicyFileRole::VariableRestrictions`].
    pub added: Vec<String>,
    /// What it asked for that would have loosened the administrator's policy, ignored.
    pub ignored: Vec<String>,
}

impl PolicyFile {
    /// One line per file: where it is, the part it plays, and what it contributed.
    pub fn describe(&self) -> String {
        let path = self.path.display();
        match self.role {
            PolicyFileRole::Administrator => format!("{path} (the administrator's)"),
            PolicyFileRole::Variable => {
                format!("{path} (named by {POLICY_FILE_VARIABLE}; there is no administrator's file)")
            }
            PolicyFileRole::VariableRestrictions => {
                let added = if self.added.is_empty() { "nothing".to_owned() } else { self.added.join(", ") };
                let mut line = format!(
                    "{path} (named by {POLICY_FILE_VARIABLE}; it may only add restrictions to the administrator's) added: {added}"
                );
                if !self.ignored.is_empty() {
                    line.push_str(&format!("; ignored: {}", self.ignored.join("; ")));
                }
                line
            }
        }
    }
}

/// The policy in force and the files it comes from (none: the default policy).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadedPolicy {
    pub policy: Policy,
    pub files: Vec<PolicyFile>,
}

impl Policy {
    /// Reads the administrator's file at [`admin_policy_path`] when there is one, and the file
    /// `GATEHOUSE_POLICY_FILE` names (which must exist). The administrator's file is authoritative: the
    /// variable's may only add restrictions to it ([`Policy::tightened_by`]); alone, it is the policy.
    pub fn load(lookup: impl Fn(&str) -> Option<String>, known_tools: &[&str]) -> Result<LoadedPolicy, PolicyError> {
        let admin_path = admin_policy_path(&lookup);
        Self::load_from(lookup, &admin_path, known_tools)
    }

    /// [`Policy::load`] with the administrator's location given, so tests need not depend on the machine.
    /// There is deliberately no variable for that location: whoever can set one could replace the
    /// administrator's file.
    pub fn load_from(
        lookup: impl Fn(&str) -> Option<String>,
        admin_path: &Path,
        known_tools: &[&str],
    ) -> Result<LoadedPolicy, PolicyError> {
        let named = match lookup(POLICY_FILE_VARIABLE).filter(|value| !value.trim().is_empty()) {
            Some(named) => {
                let path = PathBuf::from(named);
                if !exists(&path)? {
                    return Err(PolicyError::Missing { variable: POLICY_FILE_VARIABLE, path });
                }
                Some(path)
            }
            None => None,
        };
        let admin = exists(admin_path)?.then(|| admin_path.to_path_buf());
        let file = |path: PathBuf, role| PolicyFile { path, role, added: Vec::new(), ignored: Vec::new() };
        let loaded = match (admin, named) {
            (None, None) => {
                tracing::debug!(path = %admin_path.display(), "no policy file: the default policy applies");
                return Ok(LoadedPolicy { policy: Policy::default(), files: Vec::new() });
            }
            (Some(admin), None) => {
                let policy = read(&admin, known_tools)?;
                LoadedPolicy { policy, files: vec![file(admin, PolicyFileRole::Administrator)] }
            }
            (None, Some(named)) => {
                let policy = read(&named, known_tools)?;
                LoadedPolicy { policy, files: vec![file(named, PolicyFileRole::Variable)] }
            }
            // The same file twice (the variable names the administrator's): just the administrator's.
            (Some(admin), Some(named)) if same_file(&admin, &named) => {
                let policy = read(&admin, known_tools)?;
                LoadedPolicy { policy, files: vec![file(admin, PolicyFileRole::Administrator)] }
            }
            (Some(admin), Some(named)) => {
                let (policy, tightening) = read(&admin, known_tools)?.tightened_by(&read(&named, known_tools)?);
                for ignored in &tightening.ignored {
                    tracing::warn!(
                        path = %named.display(),
                        "{POLICY_FILE_VARIABLE}'s policy file may only add restrictions to the administrator's ({}): ignored {ignored}",
                        admin.display()
                    );
                }
                let restrictions = PolicyFile {
                    path: named,
                    role: PolicyFileRole::VariableRestrictions,
                    added: tightening.added,
                    ignored: tightening.ignored,
                };
                LoadedPolicy { policy, files: vec![file(admin, PolicyFileRole::Administrator), restrictions] }
            }
        };
        let now = Utc::now();
        for rule in loaded.policy.allow_rules().iter().filter(|rule| rule.expires <= now) {
            tracing::warn!(rule = %rule.rule_name(), expires = %rule.expires,
                "a policy allow rule has expired and allows nothing");
        }
        Ok(loaded)
    }
}

/// Reads and checks one policy file.
fn read(path: &Path, known_tools: &[&str]) -> Result<Policy, PolicyError> {
    let text =
        std::fs::read_to_string(path).map_err(|source| PolicyError::Unreadable { path: path.to_path_buf(), source })?;
    let policy = Policy::parse(&text, path, known_tools)?;
    tracing::info!(
        path = %path.display(),
        allow = policy.allow_rules().len(),
        deny = policy.deny_rules().len(),
        "policy file read"
    );
    Ok(policy)
}

/// Whether two paths name the same file (after following links); unresolvable paths are compared as written.
fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
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
        assert_eq!(loaded, LoadedPolicy { policy: Policy::default(), files: Vec::new() });
    }

    #[test]
    fn the_admin_file_is_read_when_there_is_one() {
        let dir = tempfile::tempdir().unwrap();
        let admin = dir.path().join("policy.toml");
        std::fs::write(&admin, "max_days = 7\n").unwrap();
        let loaded = Policy::load_from(lookup(&[]), &admin, TOOLS).unwrap();
        assert_eq!(loaded.policy.max_days(), 7);
        assert_eq!((loaded.files[0].path.clone(), loaded.files[0].role), (admin, PolicyFileRole::Administrator));
    }

    #[test]
    fn the_variable_alone_is_the_policy_when_there_is_no_admin_file() {
        let dir = tempfile::tempdir().unwrap();
        let named = dir.path().join("named.toml");
        std::fs::write(
            &named,
            "max_days = 30\n[[allow]]\ntool = \"update_cells\"\nexpires = \"2099-01-01T00:00:00Z\"\n",
        )
        .unwrap();
        let loaded =
            Policy::load_from(lookup(&[(POLICY_FILE_VARIABLE, &named)]), &dir.path().join("none.toml"), TOOLS).unwrap();
        assert_eq!((loaded.policy.max_days(), loaded.policy.allow_rules().len()), (30, 1));
        assert_eq!(loaded.files.len(), 1);
        assert_eq!((loaded.files[0].path.clone(), loaded.files[0].role), (named, PolicyFileRole::Variable));
    }

    #[test]
    fn the_admin_file_is_authoritative_and_the_variable_only_adds_restrictions() {
        let dir = tempfile::tempdir().unwrap();
        let admin = dir.path().join("admin.toml");
        let named = dir.path().join("named.toml");
        std::fs::write(
            &admin,
            "max_days = 7\napproval_timeout_secs = 60\ngate_reads = true\n[[deny]]\ntool = \"delete_file\"\n",
        )
        .unwrap();
        // Everything a user would loosen, and one restriction.
        std::fs::write(
            &named,
            "max_days = 365\napproval_timeout_secs = 600\ngate_reads = false\nalways_ask = [\"update_cells\"]\n\
             [[allow]]\ntool = \"*\"\nunattended = true\nexpires = \"2099-01-01T00:00:00Z\"\n\
             [[deny]]\ntool = \"update_cells\"\n",
        )
        .unwrap();
        let loaded = Policy::load_from(lookup(&[(POLICY_FILE_VARIABLE, &named)]), &admin, TOOLS).unwrap();
        let policy = &loaded.policy;
        assert_eq!(policy.max_days(), 7);
        assert_eq!(policy.approval_timeout(), std::time::Duration::from_secs(60));
        assert!(policy.gate_reads());
        assert!(policy.allow_rules().is_empty(), "no platform grant from the variable's file");
        let denied: Vec<_> = policy.deny_rules().iter().map(|rule| (rule.rule_name(), rule.tool.clone())).collect();
        assert_eq!(denied, [("deny[0]".into(), "delete_file".into()), ("deny[1]".into(), "update_cells".into())]);
        assert!(policy.is_always_ask("update_cells"));

        let roles: Vec<_> = loaded.files.iter().map(|file| (file.path.clone(), file.role)).collect();
        assert_eq!(roles, [(admin, PolicyFileRole::Administrator), (named, PolicyFileRole::VariableRestrictions)]);
        let restrictions = &loaded.files[1];
        assert_eq!(restrictions.ignored.len(), 4, "{:?}", restrictions.ignored);
        let described = restrictions.describe();
        for part in [
            "may only add restrictions",
            "max_days = 365",
            "approval_timeout_secs = 600",
            "gate_reads = false",
            "allow rule allow[0]",
            "deny rule deny[1]",
            "always_ask update_cells",
        ] {
            assert!(described.contains(part), "{part}: {described}");
        }
    }

    #[test]
    fn shorter_limits_and_read_gating_from_the_variable_apply() {
        let dir = tempfile::tempdir().unwrap();
        let admin = dir.path().join("admin.toml");
        let named = dir.path().join("named.toml");
        std::fs::write(&admin, "max_days = 30\n").unwrap();
        std::fs::write(&named, "max_days = 3\napproval_timeout_secs = 20\ngate_reads = true\n").unwrap();
        let loaded = Policy::load_from(lookup(&[(POLICY_FILE_VARIABLE, &named)]), &admin, TOOLS).unwrap();
        assert_eq!(loaded.policy.max_days(), 3);
        assert_eq!(loaded.policy.approval_timeout(), std::time::Duration::from_secs(20));
        assert_eq!(loaded.policy.admin_approval_timeout(), Some(std::time::Duration::from_secs(20)));
        assert!(loaded.policy.gate_reads() && loaded.policy.admin_gate_reads());
        assert!(loaded.files[1].ignored.is_empty(), "{:?}", loaded.files[1].ignored);
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
