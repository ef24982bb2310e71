//! A tool as the gate knows it: what the assistant is shown of it, how its calls are judged for standing
//! approval, what its card says and previews, and the Google definition it runs on — everything of a tool's
//! declaration but how it runs.
//!
//! The tools layer declares each tool once, next to its handler ([`crate::tools::ToolDef`], which holds one of
//! these); the gate, the fingerprints and the cards read only this part, so the approval rules never depend
//! on the handlers they guard.

use std::sync::Arc;

use rmcp::model::{JsonObject, Tool};
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::evaluator::ArgEvaluator;
use super::preview::PreviewRead;
use super::sentence::Said;
use crate::catalog::{ToolMeta, parse_args_ref};
use crate::google::GoogleClient;
use crate::google::mcp::GoogleTool;

/// A tool's preview reader for a call's raw arguments; `None` when they don't parse as the tool's own.
type Previewer = Arc<dyn Fn(GoogleClient, &Value) -> Option<PreviewRead> + Send + Sync>;

/// A tool's sentence for a call's raw arguments; `None` when they don't parse as the tool's own.
type Wording = Arc<dyn Fn(&Value) -> Option<Said> + Send + Sync>;

/// See the module documentation.
#[derive(Clone)]
pub struct GatedTool {
    pub meta: ToolMeta,
    schema: Arc<JsonObject>,
    evaluators: Vec<Arc<dyn ArgEvaluator>>,
    /// What its approval card says a call will do ([`GatedTool::worded`]).
    wording: Option<Wording>,
    /// How its card's preview of the change is read ([`GatedTool::previewed`]).
    preview: Option<Previewer>,
    /// The Google tool definition the tool runs on, when known: a discovered tool's own; for a routed tool,
    /// the one its call goes to. Its fingerprint covers it, so a grant stops covering a tool whose Google
    /// definition changed.
    google: Option<Arc<GoogleTool>>,
}

impl AsRef<GatedTool> for GatedTool {
    fn as_ref(&self) -> &GatedTool {
        self
    }
}

impl AsRef<ToolMeta> for GatedTool {
    fn as_ref(&self) -> &ToolMeta {
        &self.meta
    }
}

impl std::fmt::Debug for GatedTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kinds: Vec<&str> = self.evaluators.iter().map(|e| e.kind()).collect();
        f.debug_struct("GatedTool").field("meta", &self.meta).field("evaluators", &kinds).finish_non_exhaustive()
    }
}

impl GatedTool {
    /// The tool `meta` whose arguments have the JSON schema `schema`, judged by `evaluators` (bound to it).
    pub fn new(meta: ToolMeta, schema: Arc<JsonObject>, evaluators: Vec<Arc<dyn ArgEvaluator>>) -> Self {
        Self { meta, schema, evaluators, wording: None, preview: None, google: None }
    }

    /// One of Google's tools offered as it is: shown with `schema`, judged by no evaluator, running on `google`.
    pub fn of_google(meta: ToolMeta, schema: Arc<JsonObject>, google: Arc<GoogleTool>) -> Self {
        Self { google: Some(google), ..Self::new(meta, schema, Vec::new()) }
    }

    /// The same tool, its approval card saying in the person's words what a call will do (see
    /// [`crate::approval::sentence`]): `say` reads the tool's own argument type `A`, parsed as the tool
    /// parses it.
    pub fn worded<A: DeserializeOwned + 'static>(self, say: fn(&A) -> Said) -> Self {
        let name = self.meta.name;
        let wording: Wording = Arc::new(move |args| parse_args_ref::<A>(name, args).ok().map(|args| say(&args)));
        Self { wording: Some(wording), ..self }
    }

    /// The same tool, its approval card previewing the change with what `read` reads from Google (see
    /// [`crate::approval::preview`]): `read` takes the tool's own argument type `A`. Reads only, within the
    /// card's budget; the gate never waits on it to take the answer.
    pub fn previewed<A: DeserializeOwned + 'static>(self, read: fn(GoogleClient, A) -> PreviewRead) -> Self {
        let name = self.meta.name;
        let previewer: Previewer =
            Arc::new(move |google, args| parse_args_ref::<A>(name, args).ok().map(|args| read(google, args)));
        Self { preview: Some(previewer), ..self }
    }

    /// The same tool, its calls going to Google's tool `google` (its fingerprint then covers it).
    pub fn with_google(self, google: Arc<GoogleTool>) -> Self {
        Self { google: Some(google), ..self }
    }

    /// The call's preview being read through `google`, when the tool has one and takes these arguments.
    pub fn preview(&self, google: &GoogleClient, args: &Value) -> Option<PreviewRead> {
        self.preview.as_ref().and_then(|read| read(google.clone(), args))
    }

    /// Whether the tool declares a preview ([`GatedTool::previewed`]).
    pub fn is_previewed(&self) -> bool {
        self.preview.is_some()
    }

    /// Whether the tool declares its own sentence ([`GatedTool::worded`]).
    pub fn is_worded(&self) -> bool {
        self.wording.is_some()
    }

    /// What the card says the call `args` will do: the tool's own sentence, or, for a tool that declares
    /// none or arguments it would not take, one from its title and description ([`Said::generic`]).
    pub fn said(&self, args: &Value) -> Said {
        self.wording
            .as_ref()
            .and_then(|wording| wording(args))
            .unwrap_or_else(|| Said::generic(self.meta.title, self.meta.description))
    }

    /// The Google tool definition this tool runs on, when known (see the field's documentation).
    pub fn google(&self) -> Option<&Arc<GoogleTool>> {
        self.google.as_ref()
    }

    /// The evaluators that judge this tool's calls for standing approval, in declaration order; empty for a
    /// tool whose calls any grant may cover (and for every read).
    pub fn evaluators(&self) -> &[Arc<dyn ArgEvaluator>] {
        &self.evaluators
    }

    /// The JSON schema of the tool's arguments.
    pub fn input_schema(&self) -> &Arc<JsonObject> {
        &self.schema
    }

    /// The tool as MCP's `tools/list` shows it, but for the output schema a discovered tool passes on
    /// (`ToolDef::to_mcp` adds it): what the assistant is shown, and what its fingerprint hashes.
    pub fn shown(&self) -> Tool {
        let meta = &self.meta;
        let mut tool = Tool::new(meta.name, meta.described(), Arc::clone(&self.schema));
        tool.title = Some(meta.title.to_owned());
        tool.annotations = Some(meta.annotations());
        tool
    }
}
