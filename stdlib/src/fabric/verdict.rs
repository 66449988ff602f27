//! Which pairs are bad and who the suspects are, by ClusterKit's tolerances: a bandwidth under
//! `min_fraction` (default 0.93) of the best pair's, a latency over `max_latency_factor`
//! (default 2.1) times the best pair's ("Running ClusterKit", HPC-X 2.24:
//! <https://docs.nvidia.com/networking/display/hpcxv224/running+clusterkit>).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::schedule::HostPair;

/// One test of one pair, as journaled and returned.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PairResult {
    /// The host the server ran on.
    pub server: String,
    /// The host the client ran on.
    pub client: String,
    /// Whether the test ran and printed results.
    pub ok: bool,
    /// perftest's or the transport's error when it did not.
    pub error: Option<String>,
    /// Average bandwidth in Gb/s (bandwidth tests) at the largest size.
    pub gbps: Option<f64>,
    /// Typical (median) latency in microseconds (latency tests) at the smallest size.
    pub typical_us: Option<f64>,
    /// How long the test took on the hosts' clocks, in milliseconds.
    pub elapsed_ms: u64,
}

impl PairResult {
    pub(crate) fn pair(&self) -> HostPair {
        (self.server.clone(), self.client.clone())
    }
}

/// What is measured, and the tolerance.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub(crate) struct Tolerance {
    /// A latency test (lower is better) rather than a bandwidth test.
    pub(crate) latency: bool,
    pub(crate) min_fraction: f64,
    pub(crate) max_latency_factor: f64,
}

impl Tolerance {
    fn value(&self, r: &PairResult) -> Option<f64> {
        if !r.ok {
            return None;
        }
        if self.latency { r.typical_us } else { r.gbps }
    }

    /// The best value of the matrix: the highest bandwidth, or the lowest latency.
    pub(crate) fn reference(&self, results: &[PairResult]) -> Option<f64> {
        let values = results.iter().filter_map(|r| self.value(r));
        if self.latency {
            values.reduce(f64::min)
        } else {
            values.reduce(f64::max)
        }
    }

    /// The limit a pair is held to: `min_fraction` of the best bandwidth or `max_latency_factor`
    /// times the best latency.
    pub(crate) fn limit(&self, reference: f64) -> f64 {
        if self.latency {
            reference * self.max_latency_factor
        } else {
            reference * self.min_fraction
        }
    }

    /// Whether a result is outside the tolerance (a test that failed always is).
    pub(crate) fn flagged(&self, reference: Option<f64>, r: &PairResult) -> bool {
        match (self.value(r), reference) {
            (Some(v), Some(best)) if self.latency => v > self.limit(best),
            (Some(v), Some(best)) => v < self.limit(best),
            _ => true,
        }
    }
}

/// Who the bad pairs point at.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Suspects {
    /// Leaf switches whose uplinks are the suspect: (nearly) all the pairs crossing from the
    /// leaf to another are bad, and (nearly) all the bad pairs cross from such a leaf; the
    /// fault is the leaf's way to the spine (too few uplinks, a bad uplink cable), not its
    /// hosts. Empty when the hosts' leaves are not known.
    pub uplinks: Vec<String>,
    /// Hosts in at least two bad pairs that make up at least half of their tested pairs: the
    /// fault follows the host (its card, cable or port), whoever its partner is.
    pub hosts: Vec<String>,
    /// Bad pairs (server, client) with neither host a suspect: the fault is between the two.
    pub pairs: Vec<(String, String)>,
}

/// The share of a leaf's pairs crossing to other leaves that must be bad for its uplinks to be
/// suspect: shared uplinks slow most of them (not all: a round's flows in the other direction,
/// or fewer at once on a retest, keep their rate), a bad host on a leaf of `n` only `1/n`.
const LEAF_SHARE: f64 = 0.5;

/// The share of all the bad pairs that must cross from the suspect leaves.
const EXPLAINED_SHARE: f64 = 0.9;

/// The leaves whose uplinks the bad pairs point at, `leaves` being each host's leaf. The leaf
/// with the largest share of bad pairs among those crossing to other leaves is named first
/// (at least two such pairs, at least [`LEAF_SHARE`] of them bad), then the others on their
/// pairs to the leaves not named; a leaf whose every crossing pair goes to named leaves is
/// named too when it had that share (on two leaves the uplinks between them are the one
/// suspect, and either side may be short). Nothing is named unless the named leaves' crossing
/// pairs make up at least [`EXPLAINED_SHARE`] of the bad pairs.
fn uplink_suspects(
    tested: &[HostPair],
    bad: &[HostPair],
    leaves: &BTreeMap<String, String>,
) -> Vec<String> {
    // The pair's two leaves when they differ.
    let ends = |(s, c): &HostPair| match (leaves.get(s), leaves.get(c)) {
        (Some(a), Some(b)) if a != b => Some((a.clone(), b.clone())),
        _ => None,
    };
    // (crossing, bad crossing) of `leaf`, to leaves not in `named`.
    let share = |leaf: &str, named: &[String]| {
        let count = |pairs: &[HostPair]| {
            pairs
                .iter()
                .filter_map(ends)
                .filter(|(a, b)| {
                    (a == leaf && !named.contains(b)) || (b == leaf && !named.contains(a))
                })
                .count()
        };
        (count(tested), count(bad))
    };
    let suspect = |(across, bad_across): (usize, usize)| {
        across >= 2 && bad_across as f64 >= LEAF_SHARE * across as f64
    };
    let mut all: Vec<String> = leaves.values().cloned().collect();
    all.sort();
    all.dedup();
    let mut named: Vec<String> = Vec::new();
    loop {
        let next = all
            .iter()
            .filter(|leaf| !named.contains(leaf))
            .map(|leaf| (leaf, share(leaf, &named)))
            .filter(|(_, counts)| suspect(*counts))
            .max_by(|(_, (a, x)), (_, (b, y))| {
                (*x as f64 / *a as f64).total_cmp(&(*y as f64 / *b as f64))
            });
        let Some((leaf, _)) = next else { break };
        named.push(leaf.clone());
    }
    let cornered: Vec<String> = all
        .iter()
        .filter(|leaf| !named.contains(leaf))
        .filter(|leaf| share(leaf, &named).0 == 0 && suspect(share(leaf, &[])))
        .cloned()
        .collect();
    named.extend(cornered);
    let explained = bad
        .iter()
        .filter_map(ends)
        .filter(|(a, b)| named.contains(a) || named.contains(b))
        .count();
    if named.is_empty() || (explained as f64) < EXPLAINED_SHARE * bad.len() as f64 {
        return Vec::new();
    }
    named.sort();
    named
}

/// Names the suspects of `bad` pairs out of `tested` pairs. When the bad pairs are (nearly)
/// exactly those crossing from some leaves to the others, the suspects are those leaves'
/// uplinks and their crossing pairs are set aside. Then the host in the most bad pairs is
/// named first and its pairs set aside, so its partners are not named for its fault.
/// `leaves` is each host's leaf switch (empty when unknown).
pub(crate) fn suspects(
    tested: &[HostPair],
    bad: &[HostPair],
    leaves: &BTreeMap<String, String>,
) -> Suspects {
    let uplinks = uplink_suspects(tested, bad, leaves);
    let crosses_named = |(s, c): &HostPair| match (leaves.get(s), leaves.get(c)) {
        (Some(a), Some(b)) => a != b && (uplinks.contains(a) || uplinks.contains(b)),
        _ => false,
    };
    let bad: Vec<HostPair> = bad.iter().filter(|p| !crosses_named(p)).cloned().collect();
    let bad = bad.as_slice();
    let mut tests: BTreeMap<&str, usize> = BTreeMap::new();
    for (s, c) in tested {
        *tests.entry(s).or_default() += 1;
        *tests.entry(c).or_default() += 1;
    }
    let mut left: Vec<&HostPair> = bad.iter().collect();
    let mut hosts: Vec<String> = Vec::new();
    loop {
        let mut bads: BTreeMap<&str, usize> = BTreeMap::new();
        for (s, c) in &left {
            *bads.entry(s).or_default() += 1;
            *bads.entry(c).or_default() += 1;
        }
        let worst = bads
            .into_iter()
            .filter(|(h, n)| *n >= 2 && *n * 2 >= tests.get(h).copied().unwrap_or(0))
            .max_by_key(|(_, n)| *n);
        let Some((host, _)) = worst else { break };
        let host = host.to_owned();
        left.retain(|(s, c)| *s != host && *c != host);
        hosts.push(host);
    }
    hosts.sort();
    Suspects {
        uplinks,
        hosts,
        pairs: left.into_iter().cloned().collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(s: &str, c: &str, gbps: f64) -> PairResult {
        PairResult {
            server: s.into(),
            client: c.into(),
            ok: true,
            error: None,
            gbps: Some(gbps),
            typical_us: Some(gbps),
            elapsed_ms: 0,
        }
    }

    #[test]
    fn bandwidth_under_93_percent_and_latency_over_2_1_times_are_flagged() {
        let bw = Tolerance {
            latency: false,
            min_fraction: 0.93,
            max_latency_factor: 2.1,
        };
        let all = [
            result("a", "b", 196.0),
            result("c", "d", 183.0),
            result("a", "c", 182.0),
        ];
        let best = bw.reference(&all);
        assert_eq!(best, Some(196.0));
        let flags: Vec<bool> = all.iter().map(|r| bw.flagged(best, r)).collect();
        // 0.93 × 196 = 182.28
        assert_eq!(flags, [false, false, true]);
        let mut failed = result("b", "d", 0.0);
        failed.ok = false;
        assert!(bw.flagged(best, &failed));
        let lat = Tolerance {
            latency: true,
            ..bw
        };
        let all = [
            result("a", "b", 1.1),
            result("c", "d", 2.3),
            result("a", "c", 2.4),
        ];
        let best = lat.reference(&all);
        let flags: Vec<bool> = all.iter().map(|r| lat.flagged(best, r)).collect();
        // 2.1 × 1.1 = 2.31
        assert_eq!(flags, [false, false, true]);
    }

    #[test]
    fn a_host_in_most_of_its_pairs_is_a_suspect_and_a_lone_pair_is_a_link() {
        let p = |a: &str, b: &str| (a.to_owned(), b.to_owned());
        let tested = [
            p("x", "a"),
            p("x", "b"),
            p("x", "c"),
            p("a", "b"),
            p("a", "c"),
            p("b", "c"),
        ];
        let bad = [p("x", "a"), p("x", "b"), p("x", "c"), p("b", "c")];
        let found = suspects(&tested, &bad, &BTreeMap::new());
        assert_eq!(found.hosts, ["x"]);
        assert_eq!(found.pairs, [p("b", "c")]);
        assert_eq!(
            suspects(&tested, &[], &BTreeMap::new()),
            Suspects::default()
        );
    }

    /// Twelve hosts on three leaves, every pair tested.
    fn three_leaves() -> (Vec<HostPair>, BTreeMap<String, String>) {
        let hosts: Vec<String> = (1..=12).map(|i| format!("h{i:02}")).collect();
        let leaves = hosts
            .iter()
            .enumerate()
            .map(|(i, h)| (h.clone(), format!("leaf{}", i / 4 + 1)))
            .collect();
        let mut tested = Vec::new();
        for (i, a) in hosts.iter().enumerate() {
            for b in &hosts[i + 1..] {
                tested.push((a.clone(), b.clone()));
            }
        }
        (tested, leaves)
    }

    #[test]
    fn bad_pairs_that_are_a_leafs_crossing_pairs_name_its_uplinks_not_its_hosts() {
        let (tested, leaves) = three_leaves();
        let leaf = |h: &String| leaves.get(h).cloned().unwrap_or_default();
        // leaf1 oversubscribed: every pair from leaf1 to the others is slow.
        let bad: Vec<HostPair> = tested
            .iter()
            .filter(|(a, b)| (leaf(a) == "leaf1") != (leaf(b) == "leaf1"))
            .cloned()
            .collect();
        assert_eq!(bad.len(), 32);
        // Most of them, as a round's shared uplinks leave them, is enough.
        let most: Vec<HostPair> = bad.iter().skip(8).cloned().collect();
        assert_eq!(suspects(&tested, &most, &leaves).uplinks, ["leaf1"]);
        let found = suspects(&tested, &bad, &leaves);
        assert_eq!(found.uplinks, ["leaf1"]);
        assert!(
            found.hosts.is_empty() && found.pairs.is_empty(),
            "{found:?}"
        );
        // Without the leaves, the rule names the leaf's hosts (the old answer).
        let blind = suspects(&tested, &bad, &BTreeMap::new());
        assert!(blind.uplinks.is_empty());
        assert!(blind.hosts.len() >= 4, "{blind:?}");
        // Every cross-leaf pair slow (all leaves oversubscribed): every leaf is named.
        let all: Vec<HostPair> = tested
            .iter()
            .filter(|(a, b)| leaf(a) != leaf(b))
            .cloned()
            .collect();
        assert_eq!(
            suspects(&tested, &all, &leaves).uplinks,
            ["leaf1", "leaf2", "leaf3"]
        );
    }

    #[test]
    fn a_bad_host_stays_a_host_and_a_partly_slow_leaf_is_not_its_uplinks() {
        let (tested, leaves) = three_leaves();
        let leaf = |h: &String| leaves.get(h).cloned().unwrap_or_default();
        // h05's cable is bad: all its pairs are slow.
        let bad: Vec<HostPair> = tested
            .iter()
            .filter(|(a, b)| a == "h05" || b == "h05")
            .cloned()
            .collect();
        let found = suspects(&tested, &bad, &leaves);
        assert!(found.uplinks.is_empty(), "{found:?}");
        assert_eq!(found.hosts, ["h05"]);
        // A quarter of leaf1's crossing pairs slow is not its uplinks.
        let half: Vec<HostPair> = tested
            .iter()
            .filter(|(a, b)| (leaf(a) == "leaf1") != (leaf(b) == "leaf1"))
            .step_by(4)
            .cloned()
            .collect();
        assert!(suspects(&tested, &half, &leaves).uplinks.is_empty());
    }
}
