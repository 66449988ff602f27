//! `fabric::pairs(GROUP)`: a group's hosts paired for the tests that take two (a perftest or
//! sockperf client and its server), keeping every host of the group in the verdict. The
//! recipes used to pair `hosts(GROUP)` two by two: a failed host left the list, so its partner
//! was paired with the next host's partner and, with an odd count, the last host was never
//! tested and named nowhere, under a verdict that said "all pairs passed".

use std::collections::BTreeMap;

use rhai::{Array, Dynamic, Map};

use super::Excluded;

/// The pairs and who is left untested.
#[derive(Debug, Clone)]
pub struct Pairing {
    /// `(client, server)`, in the order the tests run.
    pub pairs: Vec<(String, String)>,
    /// The hosts of the group no test will reach, each with why.
    pub untested: Vec<Excluded>,
    /// How many hosts the group has in the run.
    pub selected: usize,
    /// The group's name, for the summary.
    pub group: String,
}

impl Pairing {
    /// Pairs `members` (the group's hosts in inventory order) but the `failed` ones (each with
    /// what failed it): two by two in order, the first of each pair the client; a last one
    /// left alone (an odd count, or its partner failed) is paired again with the first healthy
    /// host, so every healthy host is tested while two remain. A failed host is untested with
    /// its failure; a lone healthy one with "no healthy partner".
    pub fn of(group: &str, members: &[String], failed: &BTreeMap<String, String>) -> Self {
        let (down, healthy): (Vec<&String>, Vec<&String>) =
            members.iter().partition(|m| failed.contains_key(*m));
        let mut untested: Vec<Excluded> = down
            .iter()
            .map(|host| Excluded {
                host: (*host).clone(),
                reason: failed
                    .get(*host)
                    .map_or_else(|| "failed".to_owned(), |r| format!("failed: {r}")),
            })
            .collect();
        let mut pairs: Vec<(String, String)> = healthy
            .chunks_exact(2)
            .map(|two| (two[0].clone(), two[1].clone()))
            .collect();
        if let [.., last] = healthy.as_slice()
            && healthy.len() % 2 == 1
        {
            match healthy.first().filter(|first| *first != last) {
                Some(first) => pairs.push(((*last).clone(), (*first).clone())),
                None => untested.push(Excluded {
                    host: (*last).clone(),
                    reason: match down.is_empty() {
                        true => "no healthy partner: it is the group's only host".to_owned(),
                        false => format!(
                            "no healthy partner: {} failed",
                            down.iter()
                                .map(|h| h.as_str())
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                    },
                }),
            }
        }
        Self {
            pairs,
            untested,
            selected: members.len(),
            group: group.to_owned(),
        }
    }

    /// How many hosts at least one test reaches.
    pub fn tested(&self) -> usize {
        self.selected - self.untested.len()
    }

    /// Whether every host of the group is tested.
    pub fn complete(&self) -> bool {
        self.untested.is_empty() && self.selected > 0
    }

    /// `3 of 4 guests tested in 2 pair(s); compute-02 untested: failed: ...`.
    pub fn summary(&self) -> String {
        let mut said = format!(
            "{} of {} {} tested in {} pair(s)",
            self.tested(),
            self.selected,
            self.group,
            self.pairs.len()
        );
        for each in &self.untested {
            said.push_str(&format!("; {} untested: {}", each.host, each.reason));
        }
        said
    }

    /// `#{pairs: [#{client, server}], untested: [#{host, reason}], selected, tested, complete,
    /// summary}`.
    pub fn to_map(&self) -> Map {
        let pairs: Array = (self.pairs.iter())
            .map(|(client, server)| {
                let mut pair = Map::new();
                pair.insert("client".into(), client.clone().into());
                pair.insert("server".into(), server.clone().into());
                Dynamic::from_map(pair)
            })
            .collect();
        let untested: Array = (self.untested.iter())
            .map(|each| {
                let mut entry = Map::new();
                entry.insert("host".into(), each.host.clone().into());
                entry.insert("reason".into(), each.reason.clone().into());
                Dynamic::from_map(entry)
            })
            .collect();
        let count = |n: usize| Dynamic::from(i64::try_from(n).unwrap_or(i64::MAX));
        let mut map = Map::new();
        map.insert("pairs".into(), pairs.into());
        map.insert("untested".into(), untested.into());
        map.insert("selected".into(), count(self.selected));
        map.insert("tested".into(), count(self.tested()));
        map.insert("complete".into(), self.complete().into());
        map.insert("summary".into(), self.summary().into());
        map
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| (*s).to_owned()).collect()
    }

    fn failed(list: &[&str]) -> BTreeMap<String, String> {
        list.iter()
            .map(|h| ((*h).to_owned(), "mlnxofedinstall exited 1".to_owned()))
            .collect()
    }

    #[test]
    fn a_failed_hosts_partner_is_paired_again_and_the_failed_one_is_named() {
        let four = names(&["c1", "c2", "c3", "c4"]);
        let all = Pairing::of("guests", &four, &BTreeMap::new());
        assert_eq!(
            all.pairs,
            [("c1".into(), "c2".into()), ("c3".into(), "c4".into())]
        );
        assert!(all.complete());
        let one_down = Pairing::of("guests", &four, &failed(&["c2"]));
        // c4, alone at the end, is tested against c1 instead of being left out.
        assert_eq!(
            one_down.pairs,
            [("c1".into(), "c3".into()), ("c4".into(), "c1".into())]
        );
        assert!(!one_down.complete());
        assert_eq!(
            one_down.summary(),
            "3 of 4 guests tested in 2 pair(s); c2 untested: failed: mlnxofedinstall exited 1"
        );
    }

    #[test]
    fn an_odd_group_tests_its_last_host_and_a_lone_one_says_why_it_is_not() {
        let three = Pairing::of("metal", &names(&["a", "b", "c"]), &BTreeMap::new());
        assert_eq!(
            three.pairs,
            [("a".into(), "b".into()), ("c".into(), "a".into())]
        );
        assert!(three.complete());
        let lone = Pairing::of("metal", &names(&["a", "b"]), &failed(&["b"]));
        assert!(lone.pairs.is_empty());
        assert_eq!(lone.tested(), 0);
        assert_eq!(
            lone.summary(),
            "0 of 2 metal tested in 0 pair(s); b untested: failed: mlnxofedinstall exited 1; a untested: no healthy partner: b failed"
        );
        let empty = Pairing::of("metal", &[], &BTreeMap::new());
        assert!(!empty.complete(), "an empty group is not a tested one");
    }
}
