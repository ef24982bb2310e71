//! The core's modules depend in one direction (issue 16). Each top-level module of `crates/core/src` sits on
//! a layer; a module may use the modules of the layers below it, never one above, and two modules of one
//! layer may not use each other. The test reads every `crate::` path in the shipping code (tests left out),
//! so a new upward import fails here with the file that makes it. None is left: the core's top-level modules
//! have no import cycle.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The layers, lowest first, and the top-level modules on each. The order is issue 16's, with two names
/// explained: `host` starts the transports (the MCP server, the control socket), so it sits above them; and
/// `config` (the variables read at start, among them the Google endpoint) sits between the Google client and
/// the sign-in (`auth`), which reads it.
const LAYERS: &[(&str, &[&str])] = &[
    (
        "formats",
        &["a1", "csv", "drive_query", "docs_format", "shown", "screening", "private_files", "logging", "process"],
    ),
    ("catalog", &["catalog"]),
    ("google", &["google"]),
    ("config", &["config"]),
    ("sign-in", &["auth"]),
    ("approval", &["approval"]),
    ("settings", &["settings"]),
    ("cache", &["cache"]),
    ("limits", &["limits"]),
    ("tools", &["tools"]),
    ("calls", &["reply", "resend", "resources"]),
    ("engine", &["engine"]),
    ("ops", &["ops"]),
    ("transports", &["mcp", "control"]),
    ("platform", &["autostart", "connect", "updates", "welcome"]),
    ("host", &["host"]),
];

fn source_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The shipping code of a file: its `#[cfg(test)] mod …` (by this crate's convention, at the end) and
/// comment lines left out.
fn shipping_code(text: &str) -> String {
    let mut kept = Vec::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        if line.trim() == "#[cfg(test)]" && lines.peek().is_some_and(|next| next.trim_start().starts_with("mod ")) {
            break;
        }
        if !line.trim_start().starts_with("//") {
            kept.push(line);
        }
    }
    kept.join("\n")
}

/// The first segments of every `crate::` path in `code`, including each member of `crate::{a, b::c}`.
fn crate_paths(code: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let mut rest = code;
    while let Some(at) = rest.find("crate::") {
        rest = &rest[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 0usize;
            let mut member = String::new();
            for ch in group.chars() {
                match ch {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        found.insert(first_segment(&member));
                        member.clear();
                        continue;
                    }
                    _ => {}
                }
                if depth == 0 {
                    member.push(ch);
                }
            }
            found.insert(first_segment(&member));
        } else {
            found.insert(first_segment(rest));
        }
    }
    found.retain(|segment| !segment.is_empty());
    found
}

fn first_segment(path: &str) -> String {
    path.trim().chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect()
}

/// Names the crate root re-exports (`pub use engine::{Engine, EngineOptions};`), mapped to their module.
fn root_reexports(lib: &str) -> BTreeMap<String, String> {
    let mut names = BTreeMap::new();
    for line in lib.lines().filter_map(|line| line.trim().strip_prefix("pub use ")) {
        let Some((module, items)) = line.split_once("::") else { continue };
        let items = items.trim_end_matches(';').trim_start_matches('{').trim_end_matches('}');
        for item in items.split(',') {
            let name = item.trim().rsplit(' ').next().unwrap_or_default().rsplit("::").next().unwrap_or_default();
            names.insert(name.to_owned(), module.trim().to_owned());
        }
    }
    names
}

fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|(_, modules)| modules.contains(&module))
}

/// Every (from module, to module, file) import of the shipping code.
fn imports() -> BTreeSet<(String, String, String)> {
    let root = source_root();
    let lib = std::fs::read_to_string(root.join("lib.rs")).expect("read lib.rs");
    let reexports = root_reexports(&lib);
    let mut files = Vec::new();
    crate::support::rust_files(&root, &mut files);
    let mut found = BTreeSet::new();
    for file in files {
        let relative = file.strip_prefix(&root).expect("under src").to_string_lossy().replace('\\', "/");
        let from = relative.split('/').next().unwrap_or_default().trim_end_matches(".rs").to_owned();
        if from == "lib" {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap_or_else(|error| panic!("read {relative}: {error}"));
        for segment in crate_paths(&shipping_code(&text)) {
            let to = reexports.get(&segment).cloned().unwrap_or(segment);
            if to != from {
                found.insert((from.clone(), to, relative.clone()));
            }
        }
    }
    found
}

#[test]
fn every_top_level_module_of_the_core_has_a_layer() {
    let lib = std::fs::read_to_string(source_root().join("lib.rs")).expect("read lib.rs");
    let declared: Vec<&str> = lib
        .lines()
        .filter_map(|line| line.trim().split_once("mod ").map(|(_, name)| name.trim_end_matches(';')))
        .collect();
    assert!(declared.len() > 10, "lib.rs declares its modules: {declared:?}");
    let without: Vec<&&str> = declared.iter().filter(|module| layer_of(module).is_none()).collect();
    assert!(without.is_empty(), "give these modules a layer in LAYERS (architecture.rs): {without:?}");
}

#[test]
fn the_cores_modules_depend_in_one_direction() {
    let imports = imports();
    let edges: BTreeSet<(&str, &str)> = imports.iter().map(|(from, to, _)| (from.as_str(), to.as_str())).collect();
    let mut against = BTreeSet::new();
    for (from, to, file) in &imports {
        let (Some(from_layer), Some(to_layer)) = (layer_of(from), layer_of(to)) else {
            panic!("{file} uses crate::{to}, which is not a module with a layer (LAYERS in architecture.rs)");
        };
        let upward = to_layer > from_layer;
        let sideways_cycle = to_layer == from_layer && edges.contains(&(to.as_str(), from.as_str()));
        if upward || sideways_cycle {
            against.insert((from.as_str(), to.as_str(), file.as_str()));
        }
    }
    let new: Vec<String> = against
        .iter()
        .map(|(from, to, file)| {
            format!("{file}: `{from}` uses `{to}`, which is {}; move the code so the use points down", {
                if layer_of(to) == layer_of(from) { "on its layer and uses it back" } else { "above it" }
            })
        })
        .collect();
    assert!(new.is_empty(), "imports against the core's order (issue 16):\n{}", new.join("\n"));
}

#[test]
fn the_import_reader_sees_grouped_and_plain_paths_and_leaves_tests_out() {
    let code = "use crate::a1::Range;\nuse crate::{engine::Reply, tools::{registry, sets}};\n\
                // use crate::commented;\nfn f() { crate::shown::escape(\"x\"); }\n#[cfg(test)]\nmod tests {\n    use crate::host;\n}\n";
    let paths = crate_paths(&shipping_code(code));
    let expected: BTreeSet<String> = ["a1", "engine", "tools", "shown"].iter().map(|s| s.to_string()).collect();
    assert_eq!(paths, expected);
}
