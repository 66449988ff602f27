//! The `fabric::` builtins: cluster-wide acceptance tests run from a controller.

use rhai::plugin::*;

/// The `fabric::` module.
#[export_module]
pub mod fabric_builtins {
    use rhai::{Array, Dynamic, Map, NativeCallContext};

    use crate::action::RhaiResult;

    /// A perftest between every pair of `hosts`, as NVIDIA ClusterKit schedules it: n−1 rounds
    /// of n/2 pairs at once (one round with `quick: true`), every pair journaled. Pairs under
    /// `min_fraction` (0.93) of the best bandwidth or over `max_latency_factor` (2.1) times the
    /// best latency are flagged and retested in rounds of half the size (`retest: false` to not);
    /// suspects are the hosts in most of their pairs' failures, and lone bad pairs. Options:
    /// `test` (`send_bw` default, or any perftest: `send_lat`, `write_bw`, ...), `quick`,
    /// `retest`, `min_fraction`, `max_latency_factor`, and perftest's (`device`, `size`,
    /// `iterations`, `all_sizes`, `gid_index`, `qps`, `port`). Says its planned duration before
    /// and the real one after. Returns `#{test, unit, hosts, rounds, retest_rounds, reference,
    /// limit, results: [#{server, client, ok, error, value, flagged, bad, retests}], flagged,
    /// bad, suspects: #{hosts, pairs}, planned_s, took_s, passed}`.
    ///
    /// ```rhai
    /// let bw = fabric::all_pairs(hosts("fabric").map(|h| h.name), #{ device: "mlx5_0", test: "send_bw" });
    /// expect(bw.passed, `bad pairs ${bw.bad}; suspects ${bw.suspects.hosts}`);
    /// ```
    #[rhai_fn(volatile, return_raw)]
    pub fn all_pairs(ctx: NativeCallContext, hosts: Array, options: Map) -> RhaiResult<Dynamic> {
        crate::fabric::all_pairs::all_pairs(&ctx, hosts, &options)
    }

    /// `fabric::all_pairs(hosts)`: bandwidth (`send_bw`) on `mlx5_0` with the defaults.
    ///
    /// ```rhai
    /// let bw = fabric::all_pairs(["node139", "node140", "node141", "node142"]);
    /// ```
    #[rhai_fn(volatile, return_raw, name = "all_pairs")]
    pub fn all_pairs_default(ctx: NativeCallContext, hosts: Array) -> RhaiResult<Dynamic> {
        crate::fabric::all_pairs::all_pairs(&ctx, hosts, &Map::new())
    }

    /// The host's RDMA devices against its class in the expected-hardware manifest (a TOML file,
    /// one table per class: `hcas`, `psid`, `firmware`, `[[CLASS.port]]` with `device`,
    /// `link_layer`, `rate_gbps`, `rate_text`), from `ibstatus`, `ibstat` and `ibv_devinfo`.
    /// Returns `#{host, class, ok, differences: [#{device, field, found, expected, message}]}`,
    /// a message being `compute-042: mlx5_1 rate 50 Gb/s (2X HDR), expected 100 (4X EDR)`.
    /// An unreadable file, an unknown key or class is a runbook error.
    ///
    /// ```rhai
    /// let m = fabric::manifest_diff("manifest.toml", "compute");
    /// expect(m.ok, m.differences.map(|d| d.message));
    /// ```
    #[rhai_fn(volatile, return_raw)]
    pub fn manifest_diff(ctx: NativeCallContext, path: &str, class: &str) -> RhaiResult<Dynamic> {
        crate::fabric::manifest_check::check(&ctx, path, class)
    }
}
