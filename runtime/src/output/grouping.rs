//! Identical reports for many hosts printed once, with the hosts that share them: 20 hosts that
//! fail on the same runbook line give one diagnostic headed `20 hosts: node[03-22]`.

use std::collections::HashMap;

use crate::ending::failure::HostFailure;

/// `failures` with those of the same kind, span, labels and message merged into one report
/// per group, in the order each group first appears.
pub fn group_failures(failures: Vec<HostFailure>) -> Vec<HostFailure> {
    let mut groups: Vec<Vec<HostFailure>> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    for failure in failures {
        let key = failure.group_key();
        match index.get(&key) {
            Some(&at) => groups[at].push(failure),
            None => {
                index.insert(key, groups.len());
                groups.push(vec![failure]);
            }
        }
    }
    groups
        .into_iter()
        .filter_map(|group| {
            if group.len() == 1 {
                return group.into_iter().next();
            }
            let hosts: Vec<String> = group.iter().map(|f| f.host.clone()).collect();
            let helps_differ = group.iter().any(|f| f.help_text() != group[0].help_text());
            group
                .into_iter()
                .next()
                .map(|first| first.shared_by(&hosts, helps_differ))
        })
        .collect()
}

/// `(text, host)` pairs as `(text, hosts)`, one per distinct text, in first-seen order.
pub fn group_hosts(
    items: impl IntoIterator<Item = (String, String)>,
) -> Vec<(String, Vec<String>)> {
    let mut groups: Vec<(String, Vec<String>)> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    for (text, host) in items {
        match index.get(&text) {
            Some(&at) => groups[at].1.push(host),
            None => {
                index.insert(text.clone(), groups.len());
                groups.push((text, vec![host]));
            }
        }
    }
    groups
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_message_same_group_in_first_seen_order() {
        let failures: Vec<HostFailure> = ["node03", "node04", "esx01", "node05"]
            .iter()
            .map(|host| {
                let message = if host.starts_with("esx") {
                    "other"
                } else {
                    "`mst status` exited with 1"
                };
                HostFailure::message(host, message.into())
            })
            .collect();
        let grouped = group_failures(failures);
        let shown: Vec<String> = grouped.iter().map(ToString::to_string).collect();
        assert_eq!(
            shown,
            [
                "3 hosts: node[03-05]: `mst status` exited with 1",
                "`esx01`: other"
            ]
        );
    }

    #[test]
    fn texts_collect_their_hosts() {
        let grouped = group_hosts([
            ("a".to_owned(), "h1".to_owned()),
            ("b".to_owned(), "h2".to_owned()),
            ("a".to_owned(), "h3".to_owned()),
        ]);
        assert_eq!(
            grouped,
            [
                ("a".to_owned(), vec!["h1".to_owned(), "h3".to_owned()]),
                ("b".to_owned(), vec!["h2".to_owned()])
            ]
        );
    }
}
