//! Which pairs meet in which round, as NVIDIA ClusterKit schedules its pairwise tests: n−1
//! rounds of n/2 simultaneous pairs, each host in one test per round, every pair once; then
//! retest rounds of the pairs found bad, each round half the size of the one before ("Running
//! ClusterKit", HPC-X 2.24: <https://docs.nvidia.com/networking/display/hpcxv224/running+clusterkit>).

/// A test's two hosts: (server, client).
pub(crate) type HostPair = (String, String);

/// The full matrix by the circle method: one host stays put while the others turn one place a
/// round, and the ring's opposite places meet. With an odd count, each host sits out one round.
pub(crate) fn circle(hosts: &[String]) -> Vec<Vec<HostPair>> {
    let mut ring: Vec<Option<&String>> = hosts.iter().map(Some).collect();
    if ring.len() % 2 == 1 {
        ring.push(None);
    }
    let places = ring.len();
    if hosts.len() < 2 {
        return Vec::new();
    }
    let mut rounds = Vec::with_capacity(places - 1);
    for _ in 1..places {
        let round = ring
            .iter()
            .take(places / 2)
            .zip(ring.iter().rev())
            .filter_map(|(a, b)| Some(((*a)?.clone(), (*b)?.clone())))
            .collect();
        rounds.push(round);
        if let Some(last) = ring.pop() {
            ring.insert(1, last);
        }
    }
    rounds
}

/// One retest round: up to `budget` of `candidates` (in their order), no host in two.
pub(crate) fn disjoint(candidates: &[HostPair], budget: usize) -> Vec<HostPair> {
    let mut round: Vec<HostPair> = Vec::new();
    for pair in candidates {
        if round.len() >= budget {
            break;
        }
        let busy = round
            .iter()
            .any(|(s, c)| [s, c].contains(&&pair.0) || [s, c].contains(&&pair.1));
        if !busy {
            round.push(pair.clone());
        }
    }
    round
}

/// The size of retest round `k` (1, 2, ...) after a matrix of `hosts`: n/2 halved k times.
pub(crate) fn retest_budget(hosts: usize, k: u32) -> usize {
    (hosts / 2).checked_shr(k).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;

    fn names(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("h{i:02}")).collect()
    }

    #[test]
    fn every_pair_meets_once_and_no_host_twice_in_a_round() {
        for n in [2, 3, 4, 7, 10, 100] {
            let rounds = circle(&names(n));
            let expected_rounds = if n % 2 == 0 { n - 1 } else { n };
            assert_eq!(rounds.len(), expected_rounds, "{n} hosts");
            let mut met = BTreeSet::new();
            for round in &rounds {
                assert_eq!(round.len(), n / 2, "{n} hosts: a round of {round:?}");
                let mut seen = BTreeSet::new();
                for (s, c) in round {
                    assert!(
                        seen.insert(s.clone()) && seen.insert(c.clone()),
                        "{round:?}"
                    );
                    let key = if s < c { (s, c) } else { (c, s) };
                    assert!(met.insert(key), "{s} and {c} met twice");
                }
            }
            assert_eq!(met.len(), n * (n - 1) / 2, "{n} hosts");
        }
        assert!(circle(&names(1)).is_empty());
    }

    #[test]
    fn retest_rounds_halve_and_stay_disjoint() {
        assert_eq!(
            (1..=6).map(|k| retest_budget(100, k)).collect::<Vec<_>>(),
            [25, 12, 6, 3, 1, 0]
        );
        let pair = |a: &str, b: &str| (a.to_owned(), b.to_owned());
        let bad = [
            pair("x", "a"),
            pair("x", "b"),
            pair("c", "d"),
            pair("e", "f"),
        ];
        assert_eq!(
            disjoint(&bad, 8),
            [pair("x", "a"), pair("c", "d"), pair("e", "f")]
        );
        assert_eq!(disjoint(&bad, 1), [pair("x", "a")]);
    }
}
