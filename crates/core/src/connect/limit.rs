//! Assistants that take only so many tools: VS Code refuses a request with more than 128 tools from all its
//! servers together, Cursor shows at most 40, Windsurf's Cascade at most 100. Gatehouse offers more than that,
//! so *Connect* picks a tool set that fits such an assistant and says so, and a set the person chose that is
//! over the limit is kept but warned about (the choice stays the person's).
//!
//! The pick is derived from the tool sets (`tools::sets`), never kept by hand: products in catalogue order,
//! each whole when it fits in what is left, else its reads alone when those fit. Google's own tools in those
//! sets are known only while Gatehouse runs (and change with Google's list), so the pick also bounds the list
//! (`serve --max-tools`): they fill the room left, and the assistant's limit holds whatever Google adds.

use crate::tools::registry::ToolMeta;
use crate::tools::sets::{ALL, ToolSelection, named_sets};

use super::Client;

/// How many tools an assistant takes, and where that was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ToolLimit {
    /// The most tools it takes.
    pub max: usize,
    /// Where the limit was found.
    pub source: &'static str,
}

/// The tools *Connect* offers an assistant, and what the person is told about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolFit {
    /// The selection its entry names (`serve --tools …`); `None`: every tool.
    pub selection: Option<ToolSelection>,
    /// How many of `tools` that offers.
    pub offered: usize,
    /// A sentence for the person when the limit chose the tools, or the chosen ones are over it.
    pub words: Option<String>,
}

/// What to offer `client`: the selection the person `asked` for when there is one (warned about when over the
/// assistant's limit), else every tool when they fit, else the largest pick of tool sets that fits.
pub fn fit(client: &Client, asked: Option<&ToolSelection>, tools: &[ToolMeta]) -> ToolFit {
    let every = tools.len();
    if let Some(selection) = asked {
        // `all` is written as no selection, so the assistant is also offered the tools later versions add.
        let (selection, offered) = match names_all(selection) {
            true => (None, every),
            false => (Some(selection.clone()), offered_by(selection, tools)),
        };
        return ToolFit { selection, offered, words: over_limit_words(client, offered) };
    }
    let Some(limit) = client.tool_limit.filter(|limit| every > limit.max) else {
        return ToolFit { selection: None, offered: every, words: None };
    };
    match pick(limit.max, tools) {
        Some(selection) => {
            let offered = offered_by(&selection, tools);
            let selection = selection.at_most(limit.max);
            let words = format!(
                "{} takes at most {} tools, so Gatehouse offers it {} ({offered} of its {every} tools, and as many of Google's own tools in those sets as fit).",
                client.name,
                limit.max,
                selection.spec()
            );
            ToolFit { selection: Some(selection), offered, words: Some(words) }
        }
        None => ToolFit { selection: None, offered: every, words: over_limit_words(client, every) },
    }
}

/// The warning the Assistants page shows when the tools an assistant's entry offers (`spec`, `None`: every
/// tool) are more than it takes.
pub fn over_limit(client: &Client, spec: Option<&str>, tools: &[ToolMeta]) -> Option<String> {
    let offered = match spec.map(|spec| ToolSelection::parse_among(spec, tools)) {
        None => tools.len(),
        Some(Ok(selection)) => offered_by(&selection, tools),
        Some(Err(_)) => return None,
    };
    over_limit_words(client, offered)
}

fn over_limit_words(client: &Client, offered: usize) -> Option<String> {
    let limit = client.tool_limit.filter(|limit| offered > limit.max)?;
    Some(format!(
        "{} takes at most {} tools, and these are {offered}: it may refuse to work or leave some out. Choose fewer tools for it.",
        client.name, limit.max
    ))
}

fn names_all(selection: &ToolSelection) -> bool {
    selection.spec().split(',').any(|item| item.trim().eq_ignore_ascii_case(ALL))
}

fn offered_by(selection: &ToolSelection, tools: &[ToolMeta]) -> usize {
    tools.iter().filter(|meta| selection.allows(meta.name)).count()
}

/// Products in catalogue order, each whole if it fits in what is left, else its reads if they do.
fn pick(max: usize, tools: &[ToolMeta]) -> Option<ToolSelection> {
    let sets = named_sets(tools);
    let mut left = max;
    let mut chosen: Vec<&str> = Vec::new();
    // A product only Google's MCP servers serve (its sets hold none of Gatehouse's own tools) is not picked for
    // the person: how many tools its server lists is not known here.
    let products = sets.iter().filter(|set| set.name != ALL && !set.name.ends_with("-read") && !set.tools.is_empty());
    for product in products {
        let reads = sets.iter().find(|set| set.name == format!("{}-read", product.name));
        let candidates = std::iter::once(product).chain(reads);
        if let Some(set) = candidates.into_iter().find(|set| set.tools.len() <= left) {
            left -= set.tools.len();
            chosen.push(&set.name);
        }
    }
    if chosen.is_empty() {
        return None;
    }
    ToolSelection::parse_among(&chosen.join(","), tools).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::connect::client;
    use crate::tools::sets::catalogue;

    fn named(id: &str) -> &'static Client {
        client(id).expect("a known assistant")
    }

    #[test]
    fn an_assistant_without_a_limit_is_offered_every_tool() {
        let fit = fit(named("claude-desktop"), None, catalogue());
        assert_eq!(fit, ToolFit { selection: None, offered: catalogue().len(), words: None });
    }

    #[test]
    fn each_limited_assistant_is_offered_a_pick_that_fits_and_is_told_so() {
        for id in ["vscode", "cursor", "windsurf"] {
            let client = named(id);
            let max = client.tool_limit.expect("a limit").max;
            assert!(catalogue().len() > max, "this test needs more tools than {id} takes");
            let fit = fit(client, None, catalogue());
            let selection = fit.selection.as_ref().expect("a pick");
            assert!(fit.offered <= max && fit.offered > 0, "{id}: {} tools for a limit of {max}", fit.offered);
            let words = fit.words.expect("words");
            assert!(words.contains(selection.spec()) && words.contains(&max.to_string()), "{words}");
            assert_eq!(selection.max_tools(), Some(max), "{id}: the list is bounded too");
            assert_eq!(over_limit(client, Some(selection.spec()), catalogue()), None);
        }
    }

    #[test]
    fn the_pick_takes_products_whole_in_catalogue_order_and_reads_where_a_whole_one_does_not_fit() {
        let sets = named_sets(catalogue());
        let size = |name: &str| sets.iter().find(|set| set.name == name).map_or(0, |set| set.tools.len());
        let first = sets.iter().find(|set| set.name != ALL).expect("a product").name.clone();
        let whole = size(&first);
        let picked = pick(whole, catalogue()).expect("a pick");
        assert_eq!(picked.spec().split(',').next(), Some(first.as_str()));
        let picked = pick(whole - 1, catalogue()).expect("a pick");
        assert_eq!(picked.spec().split(',').next(), Some(format!("{first}-read").as_str()));
    }

    #[test]
    fn a_choice_over_the_limit_is_kept_and_warned_about() {
        let cursor = named("cursor");
        let everything = ToolSelection::parse("sheets,drive").expect("sets");
        let fit = fit(cursor, Some(&everything), catalogue());
        assert_eq!(fit.selection.as_ref().map(ToolSelection::spec), Some("sheets,drive"));
        let words = fit.words.expect("a warning");
        assert!(words.starts_with("Cursor takes at most 40 tools, and these are"), "{words}");
        assert_eq!(over_limit(cursor, None, catalogue()), over_limit_words(cursor, catalogue().len()));
        let all = ToolSelection::parse("all").expect("all");
        let fit = super::fit(cursor, Some(&all), catalogue());
        assert_eq!(fit.selection, None, "`all` is written as no selection");
        assert!(fit.words.is_some(), "and is over Cursor's limit");
    }
}
