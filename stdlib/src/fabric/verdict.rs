//! Which pairs are bad and who the suspects are, by ClusterKit's tolerances: a bandwidth under
//! `min_fraction` (default 0.93) of the best pair's, a latency over `max_latency_factor`
//! (default 2.1) times the best pair's ("Running ClusterKit", HPC-X 2.24:
//! <https://docs.nvidia.com/networking/display/hpcxv224/running+clusterkit>).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::schedule::HostPair;

/// One test of one pair, as journaled and returned.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct PairResult {
    pub(crate) server: String,
    pub(crate) client: String,
    /// Whether the test ran and printed results.
    pub(crate) ok: bool,
    /// perftest's or the transport's error when it did not.
    pub(crate) error: Option<String>,
    /// Average bandwidth in Gb/s (bandwidth tests) at the largest size.
    pub(crate) gbps: Option<f64>,
    /// Typical (median) latency in microseconds (latency tests) at the smallest size.
    pub(crate) typical_us: Option<f64>,
    /// How long the test took on the hosts' clocks, in milliseconds.
    pub(crate) elapsed_ms: u64,
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
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub(crate) struct Suspects {
    /// Hosts in at least two bad pairs that make up at least half of their tested pairs: the
    /// fault follows the host (its card, cable or port), whoever its partner is.
    pub(crate) hosts: Vec<String>,
    /// Bad pairs with neither host a suspect: the fault is between the two.
    pub(crate) pairs: Vec<HostPair>,
}

/// Names the suspects of `bad` pairs out of `tested` pairs. The host in the most bad pairs is
/// named first and its pairs set aside, so its partners are not named for its fault.
pub(crate) fn suspects(tested: &[HostPair], bad: &[HostPair]) -> Suspects {
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
        let found = suspects(&tested, &bad);
        assert_eq!(found.hosts, ["x"]);
        assert_eq!(found.pairs, [p("b", "c")]);
        assert_eq!(suspects(&tested, &[]), Suspects::default());
    }
}
