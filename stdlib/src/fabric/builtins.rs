//! The `fabric::` builtins: cluster-wide acceptance tests run from a controller.

use rhai::plugin::*;

/// The `fabric::` module.
///
/// `fabric::all_pairs(hosts, #{test, quick, retest, min_fraction, max_latency_factor, ...})` tests
/// every pair of `hosts` as NVIDIA ClusterKit does ("Running ClusterKit", HPC-X 2.24,
/// <https://docs.nvidia.com/networking/display/hpcxv224/running+clusterkit>): n−1 rounds of n/2
/// disjoint pairs (the circle method; with an odd count each host sits out one round), a round's
/// pairs at once (every server of the round is started before any client, and every client has
/// ended before any server is stopped, so the round's tests overlap whole); `quick: true` runs one round. A pair is flagged when its bandwidth is under
/// `min_fraction` (default 0.93) of the best pair's, or its latency over `max_latency_factor`
/// (default 2.1) times the best pair's; a failed test is flagged too. Flagged pairs are retested in
/// rounds of n/4, n/8, … pairs (`retest: false` to not); one within the tolerance on a retest is
/// cleared. When bad pairs remain, `ibnetdiscover` on the first host says each host's leaf
/// switch; if at least 90% of the bad pairs cross from some leaves to others, and at least half
/// of each such leaf's crossing pairs are bad, the suspects are those leaves' uplinks
/// (`suspects.uplinks`, the leaves' node descriptions: an oversubscribed or faulty way to the
/// spine) and their crossing pairs are set aside. The suspect hosts are then those in at least
/// two bad pairs that make up half or more of their tests (named worst first, their pairs then
/// set aside) and the bad pairs left over (a link). Before it starts it logs its plan (rounds × (the server's 1 s head start + the data at
/// the port rate `ibstat` shows on the first host)), at the end the time the tests took on the
/// hosts' clocks. `test` is any perftest (`send_bw` default, `send_lat`, ...); the other options
/// are perftest's. It runs from a host outside `hosts` (a `controller` stage). It returns
/// `#{test, unit, hosts, rounds, retest_rounds, reference, limit, results: [#{server, client, ok,
/// error, value, flagged, bad, retests}], flagged, bad, suspects: #{uplinks, hosts, pairs}, planned_s,
/// took_s, passed}`. Given a group's name instead of a list (`fabric::all_pairs("fabric", #{...})`)
/// it takes every host of the group: one that failed earlier in the run is not tested, and is
/// named in `excluded: [#{host, reason}]` (journaled in the verdict record, a greyed row of the
/// report's heatmap); the matrix then does not pass. Each round is one action; each pair's result is journaled (a progress record)
/// as it ends, so a resume keeps those and runs only the round's other pairs. A last record of
/// `fabric::all_pairs` (`phase: "verdict"`) keeps the tolerance, the flagged and bad pairs and the
/// suspects, which `cairn report` marks on its heatmap.
///
/// ```rhai
/// stage "all pairs" on controller {
///     let bw = fabric::all_pairs(hosts("fabric").map(|h| h.name), #{ device: "mlx5_0", test: "send_bw" });
///     expect(bw.passed, `bad pairs ${bw.bad}; suspect hosts ${bw.suspects.hosts}`);
/// }
/// ```
///
/// `fabric::manifest_diff(path, class)` checks the host it runs on against its class in an
/// expected-hardware manifest, a TOML file beside the runbook with one table per host class:
/// `hcas` (how many RDMA devices `ibstat` lists), `part_number` (the `[PN] Part number` of each
/// Mellanox function's Vital Product Data in `lspci -vv`, the form pciutils' `ls-vpd.c` prints),
/// `psid` (`ibv_devinfo`'s `board_id`), `firmware` (`ibstat`'s `Firmware version`), `ofed` (the
/// version `ofed_info -s` prints, MLNX_OFED's `MLNX_OFED_LINUX-23.10-1.1.9.0:` or DOCA-OFED's
/// `OFED-internal-25.01-0.6.0:`; not installed is a difference) and `[[CLASS.port]]` tables with
/// `device`, `link_layer`, `rate_gbps` and `rate_text` (`ibstatus`'s width and speed, `4X EDR`); a
/// key left out is not checked (and its tool not run). An unreadable file, a key it does not know
/// (with the closest key: ``unknown field `ofde` ... did you mean `ofed`?``) or an unknown class
/// (with the closest name) is a runbook error at the call. It returns `#{host, class, ok,
/// differences: [#{device, field, found, expected, message}]}`, one message a difference, e.g.
/// `compute-042: mlx5_1 rate 50 Gb/s (2X HDR), expected 100 (4X EDR)`, `node02: 0b:00.0 part
/// number MCX555A-ECAT, expected MCX556A-ECAT`, `node02: OFED 5.8-1.0.1.1, expected
/// 23.10-1.1.9.0`.
///
/// ```rhai
/// stage "hardware" on fabric {
///     let m = fabric::manifest_diff("manifest.toml", "compute");
///     for d in m.differences { log(d.message); }
///     expect(m.ok, `${m.differences.len()} difference(s) from the manifest`);
/// }
/// ```
#[export_module]
pub mod fabric_builtins {
    use rhai::{Array, Dynamic, Map, NativeCallContext};

    use crate::action::RhaiResult;
    use crate::fabric::all_pairs::Listed;

    /// nccl-tests' `all_reduce_perf` across `nodes` (two or more), one rank a GPU, launched from
    /// the first node with `launcher` (`"mpirun"`, or `"srun"` in a Slurm allocation) from the
    /// built tests' `path`: `NCCL_IB_HCA` the `hcas`, `NCCL_IB_GID_INDEX` the RoCE v2 IPv4 GID
    /// looked up in every node's `show_gids` (one index for all, refused otherwise; unset on
    /// InfiniBand), `NCCL_ALGO=Ring` on two nodes (NCCL's other algorithms give figures beyond
    /// the NICs there, nccl-tests#169), `-b 8 -e 8G -f 2 -g 1` (`min_bytes`, `max_bytes`).
    /// Passes when the largest size's bus bandwidth is at least `min_fraction` of 0.12 GB/s per
    /// Gb/s of `nic_gbps` for each HCA (24 GB/s per 200G NIC, nccl-tests#119), no element is
    /// `#wrong` and the test reported no failure. Options `gpus_per_node`, `hcas`, `launcher`,
    /// `path`, `nic_gbps`, `min_fraction` are required. Returns `#{ok, verdict: #{ok,
    /// busbw_gbytes_sec, at_bytes, expected_gbytes_sec, least_gbytes_sec, wrong, max_error,
    /// failures}, run (the parsed output), command}`.
    ///
    /// ```rhai
    /// let r = fabric::nccl_all_reduce(["gpu01", "gpu02"], #{ launcher: "mpirun",
    ///     path: "/opt/nccl-tests/build", gpus_per_node: 8, hcas: ["mlx5_0", "mlx5_1"],
    ///     nic_gbps: 400, min_fraction: 0.9 });
    /// expect(r.ok, `${r.verdict.failures}`);
    /// ```
    #[rhai_fn(volatile, return_raw)]
    pub fn nccl_all_reduce(
        ctx: NativeCallContext,
        nodes: Array,
        options: Map,
    ) -> RhaiResult<Dynamic> {
        crate::fabric::nccl::all_reduce(&ctx, nodes, &options)
    }

    /// `fabric::nccl_all_reduce`'s job on every pair of `nodes`, in ClusterKit's rounds (n−1
    /// rounds of n/2 pairs at once), to find the node a whole-job figure cannot name. Options as
    /// `fabric::nccl_all_reduce`. Returns `#{ok, pairs: [#{nodes, ok, busbw_gbytes_sec,
    /// failures}], bad (the failed pairs), suspects (each node in more than half of its pairs'
    /// failures)}`.
    ///
    /// ```rhai
    /// let m = fabric::nccl_pairs(hosts("gpus").map(|h| h.name), #{ launcher: "mpirun",
    ///     path: "/opt/nccl-tests/build", gpus_per_node: 8, hcas: ["mlx5_0", "mlx5_1"],
    ///     nic_gbps: 400, min_fraction: 0.9 });
    /// expect(m.ok, `bad pairs ${m.bad}; suspects ${m.suspects}`);
    /// ```
    #[rhai_fn(volatile, return_raw)]
    pub fn nccl_pairs(ctx: NativeCallContext, nodes: Array, options: Map) -> RhaiResult<Dynamic> {
        crate::fabric::nccl_pairs::nccl_pairs(&ctx, nodes, &options)
    }

    /// A perftest between every pair of `hosts`, as NVIDIA ClusterKit schedules it: n−1 rounds
    /// of n/2 pairs at once (one round with `quick: true`), every pair journaled. Pairs under
    /// `min_fraction` (0.93) of the best bandwidth or over `max_latency_factor` (2.1) times the
    /// best latency are flagged and retested in rounds of half the size (`retest: false` to not);
    /// suspects are the uplinks of a leaf (from `ibnetdiscover`) when the bad pairs are its
    /// cross-leaf ones, the hosts in most of their pairs' failures, and lone bad pairs. Options:
    /// `test` (`send_bw` default, or any perftest: `send_lat`, `write_bw`, ...), `quick`,
    /// `retest`, `min_fraction`, `max_latency_factor`, and perftest's (`device`, `size`,
    /// `iterations`, `all_sizes`, `gid_index`, `qps`, `port`). Says its planned duration before
    /// and the real one after. Returns `#{test, unit, hosts, rounds, retest_rounds, reference,
    /// limit, results: [#{server, client, ok, error, value, flagged, bad, retests}], flagged,
    /// bad, suspects: #{uplinks, hosts, pairs}, planned_s, took_s, passed}`.
    ///
    /// ```rhai
    /// let bw = fabric::all_pairs(hosts("fabric").map(|h| h.name), #{ device: "mlx5_0", test: "send_bw" });
    /// expect(bw.passed, `bad pairs ${bw.bad}; suspects ${bw.suspects.hosts}`);
    /// ```
    #[rhai_fn(volatile, return_raw)]
    pub fn all_pairs(ctx: NativeCallContext, hosts: Array, options: Map) -> RhaiResult<Dynamic> {
        crate::fabric::all_pairs::all_pairs(&ctx, Listed::Names(hosts), &options)
    }

    /// `fabric::all_pairs("fabric", #{...})`: every host of the group; one that failed earlier
    /// in the run is not tested but named in `excluded` with what failed it (`#{host, reason}`),
    /// and the matrix does not pass.
    ///
    /// ```rhai
    /// let bw = fabric::all_pairs("fabric", #{ device: "mlx5_0", test: "send_bw" });
    /// expect(bw.passed, `not tested ${bw.excluded.map(|e| e.host)}; bad pairs ${bw.bad}`);
    /// ```
    #[rhai_fn(volatile, return_raw, name = "all_pairs")]
    pub fn all_pairs_of_group(
        ctx: NativeCallContext,
        group: &str,
        options: Map,
    ) -> RhaiResult<Dynamic> {
        let listed = Listed::Group(group.to_owned());
        crate::fabric::all_pairs::all_pairs(&ctx, listed, &options)
    }

    /// `fabric::all_pairs(hosts)`: bandwidth (`send_bw`) on `mlx5_0` with the defaults.
    ///
    /// ```rhai
    /// let bw = fabric::all_pairs(["node139", "node140", "node141", "node142"]);
    /// ```
    #[rhai_fn(volatile, return_raw, name = "all_pairs")]
    pub fn all_pairs_default(ctx: NativeCallContext, hosts: Array) -> RhaiResult<Dynamic> {
        crate::fabric::all_pairs::all_pairs(&ctx, Listed::Names(hosts), &Map::new())
    }

    /// The hosts of `group` paired for tests between two hosts, every host kept in the verdict:
    /// two by two in inventory order (the first the client), a host whose partner failed (or
    /// the last of an odd count) paired again with the first healthy one; a failed host, or a
    /// lone one, is named in `untested` with why. Returns `#{pairs: [#{client, server}],
    /// untested: [#{host, reason}], selected, tested, complete, summary}`, `summary` being `3 of
    /// 4 guests tested in 2 pair(s); compute-02 untested: failed: ...`; a verdict passes only
    /// when `complete`.
    ///
    /// ```rhai
    /// let pairing = fabric::pairs("guests");
    /// for p in pairing.pairs { log(`${p.client} -> ${p.server}`); }
    /// expect(pairing.complete, pairing.summary);
    /// ```
    #[rhai_fn(volatile, return_raw)]
    pub fn pairs(ctx: NativeCallContext, group: &str) -> RhaiResult<Map> {
        let host = cairn_runtime::HostContext::current(&ctx)?;
        let members = host.shared.group_members(group);
        if members.is_empty() {
            return Err(host.fail(
                cairn_runtime::ActionError::Runbook(format!(
                    "fabric::pairs: no host of this run is in group `{group}`"
                )),
                ctx.call_position(),
            ));
        }
        let failed = host.shared.failed_hosts();
        Ok(crate::fabric::Pairing::of(group, &members, &failed).to_map())
    }

    /// Every link of the InfiniBand fabric against the manifest's `[links]` table (`width`,
    /// `speed`, `effective_ber_max`, `symbol_errors_max`, `link_downs_max`): `iblinkinfo` and
    /// `ibqueryerrors` on the first healthy host of `group`, `mlxlink -d DEV -c` on each host
    /// for its own link's effective BER. Returns `#{from, links, bad: [#{link, check, found,
    /// expected, message}], unjudged: [#{what, reason}], ok}`; a link is named by both ends
    /// (`node02 mlx5_0 port 1 to MF0;ib-sw01:MSB7800/U1 port 2`), and `ok` is false while
    /// anything is bad or unjudged (a failed host, a host not on the fabric, a link whose BER
    /// no host of the group reads). A manifest without `[links]`, or with a key it does not
    /// know, is a runbook error at the call.
    ///
    /// ```rhai
    /// let s = fabric::link_sweep("manifest.toml", "fabric");
    /// expect(s.ok, s.bad.map(|b| b.message) + s.unjudged.map(|u| `${u.what}: ${u.reason}`));
    /// ```
    #[rhai_fn(volatile, return_raw)]
    pub fn link_sweep(ctx: NativeCallContext, path: &str, group: &str) -> RhaiResult<Dynamic> {
        crate::fabric::link_sweep::link_sweep(&ctx, path, group)
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
