//! The documents developers rely on stay true to the code: every variable the code reads is in
//! docs/configuration.md, and no doc comment points to a document the repository lacks.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The shipping sources of the core, the CLI and the desktop app.
fn shipping_sources() -> Vec<(String, String)> {
    let root = repository();
    let mut files = Vec::new();
    for dir in ["crates/core/src", "crates/cli/src", "src-tauri/src"] {
        crate::support::rust_files(&root.join(dir), &mut files);
    }
    files
        .into_iter()
        .map(|file| {
            let text =
                std::fs::read_to_string(&file).unwrap_or_else(|error| panic!("read {}: {error}", file.display()));
            (file.strip_prefix(&root).unwrap_or(&file).to_string_lossy().into_owned(), text)
        })
        .collect()
}

/// Variables the operating system defines, read with their usual meaning.
const PLATFORM: &[&str] = &[
    "HOME",
    "APPDATA",
    "ProgramData",
    "XDG_CONFIG_HOME",
    "XDG_DATA_HOME",
    "XDG_RUNTIME_DIR",
    "DBUS_SESSION_BUS_ADDRESS",
];

/// Every `"NAME"` literal read as a variable: the argument of `var`, `var_os`, `option_env!`, or of the
/// injected `lookup`/`get` readers the code uses so tests can give variables, plus every `GATEHOUSE_*` literal.
fn variables_read(text: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for reader in ["var(\"", "var_os(\"", "option_env!(\"", "lookup(\"", "get(\""] {
        let mut rest = text;
        while let Some(at) = rest.find(reader) {
            rest = &rest[at + reader.len()..];
            let name: String = rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
            let is_variable = name.len() > 2
                && name.chars().next().is_some_and(|c| c.is_ascii_uppercase())
                && rest[name.len()..].starts_with("\")")
                && name.chars().all(|c| {
                    c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_' || PLATFORM.contains(&name.as_str())
                });
            if is_variable {
                found.insert(name);
            }
        }
    }
    let mut rest = text;
    while let Some(at) = rest.find("\"GATEHOUSE_") {
        rest = &rest[at + 1..];
        let name: String =
            rest.chars().take_while(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || *c == '_').collect();
        if rest[name.len()..].starts_with('"') && !name.ends_with('_') {
            found.insert(name);
        }
    }
    found
}

#[test]
fn every_variable_the_code_reads_is_in_configuration_md() {
    let doc = std::fs::read_to_string(repository().join("docs/configuration.md")).expect("docs/configuration.md");
    let mut read = BTreeSet::new();
    for (_, text) in shipping_sources() {
        read.extend(variables_read(&text));
    }
    assert!(read.contains("GATEHOUSE_HOME") && read.contains("ENABLED_TOOLS"), "the reader finds variables: {read:?}");
    let missing: Vec<&String> =
        read.iter().filter(|name| !PLATFORM.contains(&name.as_str()) && !doc.contains(&format!("`{name}`"))).collect();
    assert!(missing.is_empty(), "the code reads variables docs/configuration.md doesn't list: {missing:?}");
}

#[test]
fn doc_comments_point_only_to_documents_the_repository_has() {
    let root = repository();
    let mut dangling = Vec::new();
    for (file, text) in shipping_sources() {
        for word in text.split(|c: char| c.is_whitespace() || "()`,;\"'[]".contains(c)) {
            let word = word.trim_end_matches(['.', ':']);
            let Some(stem) = word.strip_suffix(".md") else { continue };
            // A document of this repository is named by its path from the root (`docs/tools.md`,
            // `crates/google-fake/MCP.md`) or, for the top-level ones, its capitalised name (`README.md`);
            // lower-case bare names are examples of the person's files (`notes.md`).
            let word = word.find("docs/").map_or(word, |at| &word[at..]);
            let is_reference =
                word.contains('/') || (!stem.is_empty() && stem.chars().all(|c| c.is_ascii_uppercase() || c == '_'));
            if !is_reference || word.contains("://") || word.starts_with('<') {
                continue;
            }
            let exists = root.join(word).is_file() || root.join("docs").join(word).is_file();
            if !exists {
                dangling.push(format!("{file}: {word}"));
            }
        }
    }
    assert!(dangling.is_empty(), "these name documents the repository doesn't have:\n{}", dangling.join("\n"));
}

#[test]
fn the_variable_reader_finds_reads_and_skips_other_strings() {
    let code = r#"let a = std::env::var("GATEHOUSE_HOME"); let b = lookup("AUTH_METHOD"); let c = map.get("key");
                 let d = option_env!("GATEHOUSE_BUILTIN_OAUTH_CLIENT_ID"); let e = "GATEHOUSE_LOG";"#;
    let found = variables_read(code);
    let expected: BTreeSet<String> =
        ["GATEHOUSE_HOME", "AUTH_METHOD", "GATEHOUSE_BUILTIN_OAUTH_CLIENT_ID", "GATEHOUSE_LOG"]
            .iter()
            .map(|s| s.to_string())
            .collect();
    assert_eq!(found, expected);
}
