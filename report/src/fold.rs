//! Folding identical rows across hosts: one row `esx[01-32]` for 32 hosts with the same
//! change, status or timeline, so a 1,000-host page stays short.

use std::collections::HashMap;
use std::hash::Hash;

/// `items` grouped by key, groups in the order of their first item, items in order.
pub(crate) fn fold<K: Eq + Hash + Clone, T>(
    items: impl IntoIterator<Item = (K, T)>,
) -> Vec<(K, Vec<T>)> {
    let mut groups: Vec<(K, Vec<T>)> = Vec::new();
    let mut index: HashMap<K, usize> = HashMap::new();
    for (key, item) in items {
        match index.get(&key) {
            Some(&at) => groups[at].1.push(item),
            None => {
                index.insert(key.clone(), groups.len());
                groups.push((key, vec![item]));
            }
        }
    }
    groups
}

/// Host names as ranges, as the inventory and the command line write them (`node[002-100]`).
pub(crate) fn hosts<S: AsRef<str>>(names: &[S]) -> String {
    cairn_runtime::output::compress_hosts(names)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identical_keys_fold_in_order_of_first_appearance() {
        let folded = fold([("b", 1), ("a", 2), ("b", 3)]);
        assert_eq!(folded, vec![("b", vec![1, 3]), ("a", vec![2])]);
        let names: Vec<String> = (2..=100).map(|n| format!("node{n:03}")).collect();
        assert_eq!(hosts(&names), "node[002-100]");
    }
}
