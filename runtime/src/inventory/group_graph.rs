//! Groups and their `children`: which groups exist, in which order, and who contains whom.

use std::collections::{BTreeMap, BTreeSet};

/// The implicit group of every host.
pub(crate) const ALL: &str = "all";

/// Every group, in declaration order (`all` first, then `[groups.NAME]` in file order, then
/// groups that only hosts name, in order of first mention), with their children.
#[derive(Debug, Clone)]
pub(crate) struct GroupGraph {
    children: BTreeMap<String, Vec<String>>,
    order: Vec<String>,
}

impl Default for GroupGraph {
    fn default() -> Self {
        Self {
            children: BTreeMap::new(),
            order: vec![ALL.to_owned()],
        }
    }
}

impl GroupGraph {
    /// Adds a group if it is new.
    pub(crate) fn add(&mut self, name: &str) {
        if !self.contains(name) {
            self.order.push(name.to_owned());
        }
    }

    pub(crate) fn contains(&self, name: &str) -> bool {
        self.order.iter().any(|group| group == name)
    }

    pub(crate) fn add_child(&mut self, parent: &str, child: &str) {
        self.children
            .entry(parent.to_owned())
            .or_default()
            .push(child.to_owned());
    }

    /// Every group, in declaration order.
    pub(crate) fn names(&self) -> &[String] {
        &self.order
    }

    /// A `(parent, child)` edge that closes a cycle, if the children form one.
    pub(crate) fn find_cycle(&self) -> Option<(String, String)> {
        // 1: being visited, 2: done.
        let mut state: BTreeMap<&str, u8> = BTreeMap::new();
        for start in &self.order {
            if state.contains_key(start.as_str()) {
                continue;
            }
            // An explicit stack of (group, index of the next child to visit).
            let mut stack: Vec<(&str, usize)> = vec![(start, 0)];
            state.insert(start, 1);
            while let Some((group, next)) = stack.pop() {
                let children = self.children.get(group).map_or(&[][..], Vec::as_slice);
                let Some(child) = children.get(next) else {
                    state.insert(group, 2);
                    continue;
                };
                stack.push((group, next + 1));
                match state.get(child.as_str()) {
                    Some(1) => return Some((group.to_owned(), child.clone())),
                    Some(_) => {}
                    None => {
                        state.insert(child, 1);
                        stack.push((child, 0));
                    }
                }
            }
        }
        None
    }

    /// `direct` with every group that contains one of them (through `children`) and `all`, in
    /// declaration order. Assumes no cycle.
    pub(crate) fn closure(&self, direct: &[String]) -> Vec<String> {
        let mut members: BTreeSet<&str> = direct.iter().map(String::as_str).collect();
        members.insert(ALL);
        let mut pending: Vec<&str> = members.iter().copied().collect();
        while let Some(group) = pending.pop() {
            for (parent, children) in &self.children {
                if children.iter().any(|child| child == group) && members.insert(parent) {
                    pending.push(parent);
                }
            }
        }
        self.order
            .iter()
            .filter(|group| members.contains(group.as_str()))
            .cloned()
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph(edges: &[(&str, &str)]) -> GroupGraph {
        let mut graph = GroupGraph::default();
        for (parent, child) in edges {
            graph.add(parent);
            graph.add(child);
            graph.add_child(parent, child);
        }
        graph
    }

    #[test]
    fn closes_over_parents_in_declaration_order() {
        let graph = graph(&[("fabric", "esxi"), ("lab", "fabric"), ("fabric", "guests")]);
        assert_eq!(graph.find_cycle(), None);
        assert_eq!(
            graph.closure(&["esxi".into()]),
            ["all", "fabric", "esxi", "lab"]
        );
        assert_eq!(graph.closure(&[]), ["all"]);
    }

    #[test]
    fn finds_cycles() {
        let cycle = graph(&[("a", "b"), ("b", "c"), ("c", "a")]).find_cycle();
        assert_eq!(cycle, Some(("c".into(), "a".into())));
        assert!(graph(&[("a", "a")]).find_cycle().is_some());
    }
}
