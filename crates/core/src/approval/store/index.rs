//! The grants a decision may consult, held in memory and keyed by tool, so deciding a covered call never
//! waits on the disk. The store changes it only after the database has committed the same change, and only
//! through one writer at a time, so it never shows a grant the database does not hold.

use std::collections::HashMap;
use std::sync::Arc;

use crate::approval::model::Grant;

/// The not-revoked grants of one tool: an immutable snapshot, so handing it out is one reference count and
/// a write never disturbs a decision that is reading it.
pub type Candidates = Arc<[Arc<Grant>]>;

#[derive(Debug)]
pub(super) struct GrantIndex {
    by_tool: HashMap<String, Candidates>,
    /// Which tool each indexed grant is filed under, so a revoke or a use finds it by id alone.
    tool_of: HashMap<String, String>,
    /// Handed out for a tool without grants, so that answer allocates nothing either.
    empty: Candidates,
}

impl GrantIndex {
    /// An index of the given grants, leaving out revoked ones (they never apply).
    pub fn new(grants: impl IntoIterator<Item = Grant>) -> Self {
        let mut lists: HashMap<String, Vec<Arc<Grant>>> = HashMap::new();
        let mut tool_of = HashMap::new();
        for grant in grants.into_iter().filter(|grant| grant.revoked.is_none()) {
            tool_of.insert(grant.id.clone(), grant.tool.clone());
            lists.entry(grant.tool.clone()).or_default().push(Arc::new(grant));
        }
        let by_tool = lists.into_iter().map(|(tool, list)| (tool, Candidates::from(list))).collect();
        GrantIndex { by_tool, tool_of, empty: Candidates::from(Vec::new()) }
    }

    pub fn candidates(&self, tool: &str) -> Candidates {
        self.by_tool.get(tool).unwrap_or(&self.empty).clone()
    }

    /// The number of grants indexed (all tools).
    pub fn len(&self) -> usize {
        self.tool_of.len()
    }

    /// The ids of the grants indexed (all tools).
    pub fn ids(&self) -> Vec<String> {
        self.tool_of.keys().cloned().collect()
    }

    /// Files a new grant (a revoked one is left out). An indexed grant with the same id is replaced.
    pub fn insert(&mut self, grant: Grant) {
        self.remove(&grant.id);
        if grant.revoked.is_some() {
            return;
        }
        let list = self.by_tool.get(&grant.tool).unwrap_or(&self.empty);
        let mut next = Vec::with_capacity(list.len() + 1);
        next.extend(list.iter().cloned());
        self.tool_of.insert(grant.id.clone(), grant.tool.clone());
        let tool = grant.tool.clone();
        next.push(Arc::new(grant));
        self.by_tool.insert(tool, Candidates::from(next));
    }

    /// Takes a grant out (it was revoked). Returns whether it was indexed.
    pub fn remove(&mut self, id: &str) -> bool {
        let Some(tool) = self.tool_of.remove(id) else { return false };
        if let Some(list) = self.by_tool.get(&tool) {
            let rest: Vec<Arc<Grant>> = list.iter().filter(|grant| grant.id != id).cloned().collect();
            if rest.is_empty() {
                self.by_tool.remove(&tool);
            } else {
                self.by_tool.insert(tool, Candidates::from(rest));
            }
        }
        true
    }

    /// Changes an indexed grant (a use was recorded); a grant not indexed is left alone, so a use recorded
    /// after a revoke cannot bring the grant back.
    pub fn update(&mut self, id: &str, change: impl FnOnce(&mut Grant)) {
        let Some(tool) = self.tool_of.get(id) else { return };
        let Some(list) = self.by_tool.get(tool) else { return };
        let mut change = Some(change);
        let next: Vec<Arc<Grant>> = list
            .iter()
            .map(|grant| match change.take_if(|_| grant.id == id) {
                Some(change) => {
                    let mut changed = Grant::clone(grant);
                    change(&mut changed);
                    Arc::new(changed)
                }
                None => grant.clone(),
            })
            .collect();
        self.by_tool.insert(tool.clone(), Candidates::from(next));
    }
}

#[cfg(test)]
mod tests {
    use chrono::{TimeZone, Utc};

    use super::*;
    use crate::approval::model::Owner;

    fn grant(id: &str, tool: &str) -> Grant {
        Grant {
            id: id.into(),
            owner: Owner::Platform,
            tool: tool.into(),
            agent: None,
            constraint: None,
            target_name: None,
            unattended: false,
            created: Utc.timestamp_opt(1_800_000_000, 0).unwrap(),
            expires: None,
            revoked: None,
            last_used: None,
            use_count: 0,
            fingerprint: "f".into(),
        }
    }

    fn ids(index: &GrantIndex, tool: &str) -> Vec<String> {
        index.candidates(tool).iter().map(|grant| grant.id.clone()).collect()
    }

    #[test]
    fn grants_are_filed_by_tool_and_revoked_ones_left_out() {
        let mut revoked = grant("r", "update_cells");
        revoked.revoked = Some(Utc::now());
        let mut index = GrantIndex::new([grant("a", "update_cells"), grant("b", "delete_file"), revoked]);
        assert_eq!(ids(&index, "update_cells"), ["a"]);
        assert_eq!(ids(&index, "delete_file"), ["b"]);
        assert!(ids(&index, "other").is_empty());
        assert_eq!(index.len(), 2);

        index.insert(grant("c", "update_cells"));
        assert_eq!(ids(&index, "update_cells"), ["a", "c"]);
        assert!(index.remove("a"));
        assert!(!index.remove("a"));
        assert_eq!(ids(&index, "update_cells"), ["c"]);
        assert!(index.remove("b"));
        assert!(ids(&index, "delete_file").is_empty());
        assert_eq!(index.len(), 1);
    }

    #[test]
    fn an_update_changes_one_grant_and_never_revives_a_removed_one() {
        let mut index = GrantIndex::new([grant("a", "t"), grant("b", "t")]);
        let before = index.candidates("t");
        index.update("b", |grant| grant.use_count = 7);
        assert_eq!(index.candidates("t")[1].use_count, 7);
        assert_eq!(index.candidates("t")[0].use_count, 0);
        assert_eq!(before[1].use_count, 0, "a snapshot handed out earlier does not change under its reader");

        index.remove("b");
        index.update("b", |grant| grant.use_count = 8);
        assert_eq!(ids(&index, "t"), ["a"]);
    }
}
