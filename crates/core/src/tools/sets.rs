//! Named tool sets, so an assistant is offered only the tools it needs: every tool's description takes room in
//! the assistant's context, and all of them together crowd it.
//!
//! The sets are derived from the declarations (each tool's [`Service`] and [`Access`]), never kept by hand:
//! `all`; `<service>` (every tool of a product: `sheets`, `drive`, `docs`, `calendar`, `gmail`); and
//! `<service>-read` (only its reads). A product with no tools in this build has no sets, except one Gatehouse
//! reaches only through Google's MCP servers (`slides`): its sets hold what Google's server lists.
//!
//! A [`ToolSelection`] is a comma list of set names and tool names, chosen per assistant: `gatehouse serve
//! --tools …` for a stdio assistant, or the tool set of an HTTP assistant's token. The rule with
//! `ENABLED_TOOLS`: a selection only narrows. An assistant is offered the tools that are both in its selection
//! and enabled by `ENABLED_TOOLS` (which stays the upper bound); a selection naming a tool `ENABLED_TOOLS`
//! leaves out does not bring it back.
//!
//! Google's tools that Gatehouse discovers while it runs ([`super::discovered`]) belong to their product's sets
//! by the same rule (reads also to `<service>-read`), and may be named one by one (`google_sheets_…`) before
//! they are discovered: a selection keeps the sets it names, not only the tools they held when it was read.

use std::collections::BTreeSet;
use std::sync::OnceLock;

use rmcp::model::ListToolsResult;

use super::registry::{Access, Service, ToolDef, ToolMeta, all_tools};

/// The set of every tool.
pub const ALL: &str = "all";

/// How a set picks its tools from the declarations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Rule {
    All,
    Service(Service),
    Reads(Service),
}

impl Rule {
    fn takes(self, meta: &ToolMeta) -> bool {
        match self {
            Rule::All => true,
            Rule::Service(service) => meta.service == service,
            Rule::Reads(service) => meta.service == service && matches!(meta.access, Access::Read),
        }
    }
}

/// A named set and its tools, in catalogue order.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct NamedSet {
    pub name: String,
    /// What it holds, in words, for the settings window.
    pub description: String,
    pub tools: Vec<&'static str>,
}

/// The declarations of every tool of this build, read once (a selection is checked against them on each
/// request of an HTTP assistant).
pub fn catalogue() -> &'static [ToolMeta] {
    static CATALOGUE: OnceLock<Vec<ToolMeta>> = OnceLock::new();
    CATALOGUE.get_or_init(|| all_tools().into_iter().map(|tool| tool.meta).collect())
}

/// The products of `tools`' declarations, then those Gatehouse reaches only through Google's MCP servers
/// (Slides): whether each is the latter.
fn services(tools: &[ToolMeta]) -> Vec<(Service, bool)> {
    let mut declared: Vec<Service> = tools.iter().map(|meta| meta.service).collect();
    declared.sort();
    declared.dedup();
    let mut services: Vec<(Service, bool)> = declared.iter().map(|service| (*service, false)).collect();
    for product in crate::google::mcp::Product::ALL {
        let service = super::discovered::service(product);
        if !services.iter().any(|(known, _)| *known == service) {
            services.push((service, true));
        }
    }
    services
}

/// Every set of `tools`' declarations: `all`, then each product's `<service>` and `<service>-read`. None is
/// empty but the sets of a product only Google's MCP servers serve: those hold the tools its server lists
/// while Gatehouse runs ([`ToolSelection::allows_tool`]), none declared here.
pub fn named_sets(tools: &[ToolMeta]) -> Vec<NamedSet> {
    let mut rules = vec![(ALL.to_owned(), "Every tool".to_owned(), Rule::All, false)];
    for (service, google_only) in services(tools) {
        let key = service.key();
        let (every, reads) = if google_only {
            (
                format!("Every {} tool (Google's own, as its server lists them)", service.label()),
                format!("{}, reading only (Google's own, as its server lists them)", service.label()),
            )
        } else {
            (format!("Every {} tool", service.label()), format!("{}, reading only", service.label()))
        };
        rules.push((key.clone(), every, Rule::Service(service), google_only));
        rules.push((format!("{key}-read"), reads, Rule::Reads(service), google_only));
    }
    rules
        .into_iter()
        .map(|(name, description, rule, google_only)| {
            let set = NamedSet {
                name,
                description,
                tools: tools.iter().filter(|meta| rule.takes(meta)).map(|meta| meta.name).collect(),
            };
            (set, google_only)
        })
        .filter(|(set, google_only)| *google_only || !set.tools.is_empty())
        .map(|(set, _)| set)
        .collect()
}

/// The rule of the set named `key` among `tools`' sets.
fn rule_named(key: &str, tools: &[ToolMeta]) -> Option<Rule> {
    if key == ALL {
        return Some(Rule::All);
    }
    let (service, reads) = match key.strip_suffix("-read") {
        Some(service) => (service, true),
        None => (key, false),
    };
    let service = services(tools).into_iter().map(|(known, _)| known).find(|candidate| candidate.key() == service)?;
    Some(if reads { Rule::Reads(service) } else { Rule::Service(service) })
}

/// The sets of this build's tools.
pub fn sets() -> Vec<NamedSet> {
    named_sets(catalogue())
}

/// Why a selection could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SetError {
    #[error("No tool set was given. Name one or more of {sets} (or tool names), separated by commas.")]
    Empty { sets: String },
    #[error(
        "{names} {verb} not a tool set or a tool of Gatehouse. The sets are {sets}; tool names (docs/tools.md) work too. Separate several with commas."
    )]
    Unknown { names: String, verb: &'static str, sets: String },
}

/// The tools chosen for one assistant: set names and tool names, as given (see the module's documentation).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolSelection {
    /// The selection as it is written back: its items trimmed, joined by commas.
    spec: String,
    names: BTreeSet<&'static str>,
    /// The sets it names, for Google's discovered tools.
    rules: Vec<Rule>,
    /// Google's discovered tools it names one by one.
    discovered: BTreeSet<String>,
    /// The most tools a list offers (`serve --max-tools`), for an assistant that takes only so many: Google's
    /// discovered tools come last in a list, so they are the ones left out, and Gatehouse's own tools the
    /// person was told of stay.
    at_most: Option<usize>,
}

impl ToolSelection {
    /// Reads a comma list of set and tool names against this build's tools.
    pub fn parse(text: &str) -> Result<ToolSelection, SetError> {
        Self::parse_among(text, catalogue())
    }

    /// Reads a comma list of set and tool names against `tools`.
    pub fn parse_among(text: &str, tools: &[ToolMeta]) -> Result<ToolSelection, SetError> {
        let sets = named_sets(tools);
        let listed = || sets.iter().map(|set| set.name.as_str()).collect::<Vec<_>>().join(", ");
        let items: Vec<&str> = text.split(',').map(str::trim).filter(|item| !item.is_empty()).collect();
        if items.is_empty() {
            return Err(SetError::Empty { sets: listed() });
        }
        let mut names = BTreeSet::new();
        let mut rules = Vec::new();
        let mut discovered = BTreeSet::new();
        let mut unknown = Vec::new();
        for item in &items {
            let key = item.to_ascii_lowercase();
            if let Some(set) = sets.iter().find(|set| set.name == key) {
                names.extend(set.tools.iter().copied());
                rules.extend(rule_named(&key, tools));
            } else if let Some(meta) = tools.iter().find(|meta| meta.name == *item) {
                names.insert(meta.name);
            } else if super::discovered::parse_name(item).is_some() {
                discovered.insert((*item).to_owned());
            } else {
                unknown.push(format!("“{item}”"));
            }
        }
        if !unknown.is_empty() {
            let verb = if unknown.len() > 1 { "are" } else { "is" };
            return Err(SetError::Unknown { names: unknown.join(", "), verb, sets: listed() });
        }
        Ok(ToolSelection { spec: items.join(","), names, rules, discovered, at_most: None })
    }

    /// Reads a selection to keep for an assistant: `None` when it names `all`, which is kept as no selection at
    /// all, so the assistant is also offered the tools later versions add.
    pub fn parse_kept(text: &str) -> Result<Option<ToolSelection>, SetError> {
        let selection = Self::parse(text)?;
        let everything = selection.spec.split(',').any(|item| item.eq_ignore_ascii_case(ALL));
        Ok((!everything).then_some(selection))
    }

    /// The same selection, offering at most `max` tools in a list.
    pub fn at_most(self, max: usize) -> Self {
        Self { at_most: Some(max), ..self }
    }

    /// The most tools a list offers, when that is bounded.
    pub fn max_tools(&self) -> Option<usize> {
        self.at_most
    }

    /// The selection as written (`sheets,drive-read`).
    pub fn spec(&self) -> &str {
        &self.spec
    }

    /// Whether the selection takes the tool named `name` (a discovered tool: named one by one; see
    /// [`ToolSelection::allows_tool`] for its sets).
    pub fn allows(&self, name: &str) -> bool {
        self.names.contains(name) || self.discovered.contains(name)
    }

    /// Whether the selection takes `tool` as `tools/list` shows it: by name, and a discovered tool of Google's
    /// also by the sets it belongs to (its product's; `<service>-read` when its annotations say it only reads,
    /// which Gatehouse derived in the safe direction).
    pub fn allows_tool(&self, tool: &rmcp::model::Tool) -> bool {
        if self.allows(&tool.name) {
            return true;
        }
        let Some((product, _)) = super::discovered::parse_name(&tool.name) else { return false };
        let service = super::discovered::service(product);
        let read = tool.annotations.as_ref().and_then(|hints| hints.read_only_hint) == Some(true);
        self.rules.iter().any(|rule| match *rule {
            Rule::All => true,
            Rule::Service(of) => of == service,
            Rule::Reads(of) => of == service && read,
        })
    }

    /// What a call of `tool` outside the selection is answered with: which set it was, and how to change it.
    pub fn refusal(&self, tool: &str, chosen: &Chosen) -> String {
        let change = match chosen {
            Chosen::Serve => format!(
                "To offer it, change `--tools {}` in this assistant's Gatehouse entry (its MCP config), then restart the assistant.",
                self.spec
            ),
            Chosen::Assistant(name) => format!(
                "To offer it, change the tools of the assistant “{name}” on the Assistants page of Gatehouse's settings (or with `gatehouse assistants tools {name} SETS`)."
            ),
        };
        format!("{tool} is not among the tools this assistant is offered (the tool set “{}”). {change}", self.spec)
    }
}

impl std::str::FromStr for ToolSelection {
    type Err = SetError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        ToolSelection::parse(text)
    }
}

/// Where a selection was chosen: it decides what the person is told to change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Chosen {
    /// `gatehouse serve --tools`, in the assistant's config.
    Serve,
    /// The tool set of the HTTP assistant with this name.
    Assistant(String),
}

/// The size in bytes of the `tools/list` result (the JSON-RPC `result` object) offering `tools`, as sent to
/// today's clients (protocol versions before 2026-07-28, which carry no `resultType`): what it costs an
/// assistant's context.
pub fn list_size(tools: &[ToolDef]) -> Result<usize, serde_json::Error> {
    let mut result = ListToolsResult::with_all_items(tools.iter().map(ToolDef::to_mcp).collect());
    result.result_type = None;
    serde_json::to_vec(&result).map(|json| json.len())
}
