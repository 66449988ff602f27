//! The `perftest::` builtins: a perftest between two hosts (server on one, client on the
//! other), parsed, summarized and expected against (VMware's guide section 3.1, the blog post
//! "InfiniBand Performance Test").

use rhai::plugin::*;

/// The `perftest::` module.
///
/// `perftest::send_bw`, `write_bw`, `read_bw`, `send_lat`, `write_lat`, `read_lat`, each
/// `(server, client, #{...})`: the test's server is started on `server` in the background, the
/// client runs on `client` against it, and the server is always stopped and its output collected,
/// on failure too. Call them from an `on controller` stage (the controller reaches every host of
/// the run), or from a host's own stage with itself as one end.
///
/// Options: `device` (default `mlx5_0`), `all_sizes` (`-a`: 2 bytes to 8 MiB), `size` (`-s`),
/// `iterations` (`-n`), `gid_index` (`-x`), `qps` (`-q`), `port` (`-p`, default 18515), `address`
/// (what the client connects to; default the server's name, as in the guide). Bandwidth tests
/// run with `--report_gbits`; every test runs with `-F`. The command lines are the guide's:
/// `ib_send_bw -a --report_gbits -F -d mlx5_0 compute-03`.
///
/// The GID index is looked up, never guessed: each host's `show_gids DEV` is read first, and on
/// a RoCE port each side gets `-x` with its port's RoCE v2 IPv4 GID (the one whose address is
/// `address`, where several are), so a test never runs RoCE v1 or link-local by a wrong index. A
/// port with none is refused before the test, naming what `show_gids` printed; an InfiniBand port
/// needs no index. A `gid_index` given is checked against the table instead (refused when it is
/// not RoCE v2 over IPv4). Where `show_gids` is not installed (it comes with MLNX_OFED and
/// DOCA-OFED), a test that ran over RoCE without a given `gid_index` fails, as its GID was
/// nobody's choice.
///
/// GPUDirect RDMA: `use_cuda` (`--use_cuda=N`, the GPU whose memory both ends register) and
/// `use_cuda_dmabuf` (`--use_cuda_dmabuf`: through DMA-BUF, not the peer-memory module); a
/// server that cannot register its GPU buffer fails the test with perftest's `Couldn't
/// allocate MR` (`gpu::peermem()` says why).
///
/// The result is the client's parsed output (`header`, `local`, `remote`, `columns`, `rows` with
/// the tool's columns in snake case with units: `bytes`, `iterations`, `bw_peak_gbps`,
/// `bw_average_gbps`, `msg_rate_mpps`, `t_min_usec`, `t_typical_usec`, `t_avg_usec`, `p99_usec`,
/// …), plus:
///
/// | field | meaning |
/// | --- | --- |
/// | `peak_gbps`, `avg_gbps`, `msg_rate_mpps` | bandwidth tests, at the largest message size |
/// | `typical_us`, `avg_us`, `p99_us` | latency tests, at the smallest message size |
/// | `header` | `device`, `link_type` (`IB` / `Ethernet`), `mtu_bytes`, `transport_type`, `gid_index`, … |
/// | `table` | the titles and rows as perftest printed them (log it to show the guide's table) |
/// | `command`, `server`, `client`, `program` | what ran where |
/// | `server_side` | the server's parsed output (`null` if it printed nothing readable) |
///
/// A test that fails fails the action with perftest's own error and its kind: `ib_send_bw from
/// compute-02 to compute-03 failed (connection): Couldn't connect to compute-03:18515`, `(qp_state):
/// Failed to modify QP 1399 to RTR` (a port down or in the wrong link type, no RoCE address).
///
/// ```rhai
/// stage "ibverbs tests" on controller {
///     let r = perftest::send_bw("compute-03", "compute-02", #{ device: "mlx5_0", all_sizes: true });
///     log(r.table);
///     expect(r.avg_gbps >= 90.0, `IB ${r.avg_gbps} Gb/s, expected at least 90`);
///     let l = perftest::send_lat("compute-03", "compute-02", #{ device: "mlx5_0", all_sizes: true });
///     expect(l.typical_us <= 1.5, `IB latency ${l.typical_us} us`);
/// }
/// ```
#[export_module]
pub mod perftest_builtins {
    use rhai::{Array, Map, NativeCallContext};

    use crate::action::RhaiResult;

    /// `ib_send_bw` from `client` to `server`, as the guide runs it (`-a --report_gbits -F -d
    /// DEV`). Options: `device` (default `mlx5_0`), `all_sizes` (`-a`), `size` (`-s`),
    /// `iterations` (`-n`), `gid_index` (`-x`: on RoCE, each side's RoCE v2 IPv4 GID from its
    /// `show_gids` unless given, and checked when given), `qps` (`-q`), `port` (`-p`), `address`
    /// (what the client connects to; default the server's name). Returns `#{rows, columns, header,
    /// peak_gbps, avg_gbps, msg_rate_mpps (at the largest size), table, server, client, local,
    /// remote, server_output}`; a failing test fails with perftest's own error.
    ///
    /// ```rhai
    /// let r = perftest::send_bw("pt-02", "pt-03", #{ device: "mlx5_0", all_sizes: true });
    /// expect(r.avg_gbps >= 90.0, `IB send bandwidth ${r.avg_gbps} Gb/s`);
    /// ```
    #[rhai_fn(volatile, return_raw)]
    pub fn send_bw(
        ctx: NativeCallContext,
        server: &str,
        client: &str,
        options: Map,
    ) -> RhaiResult<Map> {
        crate::perftest::run::pair(&ctx, ctx.fn_name(), server, client, &options)
    }

    /// `ib_write_bw`: as `perftest::send_bw`.
    ///
    /// ```rhai
    /// let r = perftest::write_bw("pt-02", "pt-03", #{ device: "mlx5_0", size: 65536 });
    /// ```
    #[rhai_fn(volatile, return_raw)]
    pub fn write_bw(
        ctx: NativeCallContext,
        server: &str,
        client: &str,
        options: Map,
    ) -> RhaiResult<Map> {
        crate::perftest::run::pair(&ctx, ctx.fn_name(), server, client, &options)
    }

    /// `ib_read_bw`: as `perftest::send_bw`.
    ///
    /// ```rhai
    /// let r = perftest::read_bw("pt-02", "pt-03", #{ device: "mlx5_0" });
    /// ```
    #[rhai_fn(volatile, return_raw)]
    pub fn read_bw(
        ctx: NativeCallContext,
        server: &str,
        client: &str,
        options: Map,
    ) -> RhaiResult<Map> {
        crate::perftest::run::pair(&ctx, ctx.fn_name(), server, client, &options)
    }

    /// `ib_send_lat` from `client` to `server`. Options as `perftest::send_bw`. Returns `#{rows,
    /// columns, header, typical_us, avg_us, p99_us (at the smallest size), table, ...}`.
    ///
    /// ```rhai
    /// let r = perftest::send_lat("pt-02", "pt-03", #{ device: "mlx5_0", all_sizes: true });
    /// expect(r.typical_us <= 1.5, `IB latency ${r.typical_us} us`);
    /// ```
    #[rhai_fn(volatile, return_raw)]
    pub fn send_lat(
        ctx: NativeCallContext,
        server: &str,
        client: &str,
        options: Map,
    ) -> RhaiResult<Map> {
        crate::perftest::run::pair(&ctx, ctx.fn_name(), server, client, &options)
    }

    /// `ib_write_lat`: as `perftest::send_lat`.
    ///
    /// ```rhai
    /// let r = perftest::write_lat("pt-02", "pt-03", #{ device: "mlx5_0" });
    /// ```
    #[rhai_fn(volatile, return_raw)]
    pub fn write_lat(
        ctx: NativeCallContext,
        server: &str,
        client: &str,
        options: Map,
    ) -> RhaiResult<Map> {
        crate::perftest::run::pair(&ctx, ctx.fn_name(), server, client, &options)
    }

    /// `ib_read_lat`: as `perftest::send_lat`.
    ///
    /// ```rhai
    /// let r = perftest::read_lat("pt-02", "pt-03", #{ device: "mlx5_0" });
    /// ```
    #[rhai_fn(volatile, return_raw)]
    pub fn read_lat(
        ctx: NativeCallContext,
        server: &str,
        client: &str,
        options: Map,
    ) -> RhaiResult<Map> {
        crate::perftest::run::pair(&ctx, ctx.fn_name(), server, client, &options)
    }

    /// `perftest::send_bw(server, client)`: with the default options (`mlx5_0`, one size).
    ///
    /// ```rhai
    /// let r = perftest::send_bw("compute-03", "compute-02");
    /// ```
    #[rhai_fn(volatile, return_raw, name = "send_bw")]
    pub fn send_bw_default(ctx: NativeCallContext, server: &str, client: &str) -> RhaiResult<Map> {
        crate::perftest::run::pair(&ctx, ctx.fn_name(), server, client, &Map::new())
    }

    /// `perftest::write_bw(server, client)`: with the default options (`mlx5_0`, one size).
    ///
    /// ```rhai
    /// let r = perftest::write_bw("compute-03", "compute-02");
    /// ```
    #[rhai_fn(volatile, return_raw, name = "write_bw")]
    pub fn write_bw_default(ctx: NativeCallContext, server: &str, client: &str) -> RhaiResult<Map> {
        crate::perftest::run::pair(&ctx, ctx.fn_name(), server, client, &Map::new())
    }

    /// `perftest::read_bw(server, client)`: with the default options (`mlx5_0`, one size).
    ///
    /// ```rhai
    /// let r = perftest::read_bw("compute-03", "compute-02");
    /// ```
    #[rhai_fn(volatile, return_raw, name = "read_bw")]
    pub fn read_bw_default(ctx: NativeCallContext, server: &str, client: &str) -> RhaiResult<Map> {
        crate::perftest::run::pair(&ctx, ctx.fn_name(), server, client, &Map::new())
    }

    /// `perftest::send_lat(server, client)`: with the default options (`mlx5_0`, one size).
    ///
    /// ```rhai
    /// let r = perftest::send_lat("compute-03", "compute-02");
    /// ```
    #[rhai_fn(volatile, return_raw, name = "send_lat")]
    pub fn send_lat_default(ctx: NativeCallContext, server: &str, client: &str) -> RhaiResult<Map> {
        crate::perftest::run::pair(&ctx, ctx.fn_name(), server, client, &Map::new())
    }

    /// `perftest::write_lat(server, client)`: with the default options (`mlx5_0`, one size).
    ///
    /// ```rhai
    /// let r = perftest::write_lat("compute-03", "compute-02");
    /// ```
    #[rhai_fn(volatile, return_raw, name = "write_lat")]
    pub fn write_lat_default(
        ctx: NativeCallContext,
        server: &str,
        client: &str,
    ) -> RhaiResult<Map> {
        crate::perftest::run::pair(&ctx, ctx.fn_name(), server, client, &Map::new())
    }

    /// `perftest::read_lat(server, client)`: with the default options (`mlx5_0`, one size).
    ///
    /// ```rhai
    /// let r = perftest::read_lat("compute-03", "compute-02");
    /// ```
    #[rhai_fn(volatile, return_raw, name = "read_lat")]
    pub fn read_lat_default(ctx: NativeCallContext, server: &str, client: &str) -> RhaiResult<Map> {
        crate::perftest::run::pair(&ctx, ctx.fn_name(), server, client, &Map::new())
    }

    /// Runs a test between every pair of `hosts` (or the given `pairs: [[server, client], ...]`),
    /// at most `concurrency` tests at once (default 1), never with a host in two tests at
    /// once. Options: `test` (`send_bw`, default; any of the six), the test's own options.
    /// Returns an array of `#{server, client, ok, error, result}`: a failing pair does not
    /// stop the others.
    ///
    /// ```rhai
    /// let results = perftest::matrix(["node139", "node099", "node005", "node004"],
    ///                                #{ test: "send_bw", device: "mlx5_2", all_sizes: true, concurrency: 2 });
    /// for r in results { expect(r.ok && r.result.avg_gbps > 190.0, `${r.client} -> ${r.server}`); }
    /// ```
    #[rhai_fn(volatile, return_raw)]
    pub fn matrix(ctx: NativeCallContext, hosts: Array, options: Map) -> RhaiResult<Array> {
        crate::perftest::run::matrix(&ctx, hosts, &options)
    }
}

#[cfg(test)]
mod tests {
    use crate::test_support::TestHost;

    const UP: &str = "ofed=5.4-3.0.3.0";

    fn num(t: &TestHost, script: &str) -> f64 {
        t.eval(script).as_float().unwrap_or(f64::NAN)
    }

    #[test]
    fn ndr200_from_the_controller_and_edr_from_a_guest() {
        let ndr = "ofed=5.4-3.0.3.0&rate=200&ports=ib";
        let t = TestHost::guests(&[("node139", ndr), ("node099", ndr)], "controller").build();
        t.sleep("node139", 3);
        t.sleep("node099", 3);
        let _ = t.eval(r#"perftest::send_bw("node099", "node139", #{ all_sizes: true })"#);
        let avg = num(
            &t,
            r#"perftest::send_bw("node099", "node139", #{ all_sizes: true }).avg_gbps"#,
        );
        assert!((195.0..=197.5).contains(&avg), "{avg}");
        let t = TestHost::guests(&[("pt-02", UP), ("pt-03", UP)], "pt-02").build();
        t.sleep("pt-02", 3);
        t.sleep("pt-03", 3);
        let r =
            t.eval(r#"perftest::send_bw("pt-03", "pt-02", #{ device: "mlx5_0", size: 1048576 })"#);
        let r = r.try_cast::<rhai::Map>().unwrap_or_default();
        let avg = r
            .get("avg_gbps")
            .and_then(|v| v.as_float().ok())
            .unwrap_or(0.0);
        assert!((94.0..=97.5).contains(&avg), "{avg}");
        let lat = num(
            &t,
            r#"perftest::send_lat("pt-03", "pt-02", #{ device: "mlx5_0" }).typical_us"#,
        );
        assert!((1.0..=1.2).contains(&lat), "{lat}");
        let write = num(
            &t,
            r#"perftest::write_bw("pt-03", "pt-02", #{ device: "mlx5_0" }).avg_gbps"#,
        );
        assert!(write > 90.0, "{write}");
        let plain = num(&t, r#"perftest::send_bw("pt-03", "pt-02").avg_gbps"#);
        assert!(plain > 90.0, "{plain}");
        let read = num(
            &t,
            r#"perftest::read_lat("pt-03", "pt-02", #{ device: "mlx5_0" }).avg_us"#,
        );
        assert!(read > 1.0, "{read}");
    }

    #[test]
    fn roce_needs_addresses_and_loses_bandwidth_at_mtu_1500() {
        let t = TestHost::guests(&[("ra", UP), ("rb", UP)], "controller").build();
        // Without an address the port has no RoCE v2 IPv4 GID: refused before the test, with
        // the table the host printed (perftest itself would fail to move its QP to RTR).
        let error = t.error(r#"perftest::send_bw("rb", "ra", #{ device: "mlx5_1" })"#);
        assert!(
            error.contains("cannot choose the RoCE GID on `rb`: mlx5_1 port 1 has no RoCE v2 GID")
                && error.contains("show_gids printed index 0 fe80:"),
            "{error}"
        );
        for (host, ip) in [("ra", "192.168.5.2/24"), ("rb", "192.168.5.3/24")] {
            let req = cairn_runtime::ExecRequest::new(["ip", "addr", "add", ip, "dev", "ens224f1"]);
            assert_eq!(
                t.host.shared.exec_on(host, &req).map(|o| o.code).ok(),
                Some(0)
            );
        }
        let slow = num(
            &t,
            r#"perftest::send_bw("rb", "ra", #{ device: "mlx5_1", size: 8388608 }).avg_gbps"#,
        );
        assert!((70.0..=80.0).contains(&slow), "{slow}");
        for host in ["ra", "rb"] {
            let req =
                cairn_runtime::ExecRequest::new(["ip", "link", "set", "ens224f1", "mtu", "9000"]);
            assert_eq!(
                t.host.shared.exec_on(host, &req).map(|o| o.code).ok(),
                Some(0)
            );
        }
        let r = t.eval(r#"perftest::send_bw("rb", "ra", #{ device: "mlx5_1", size: 8388608 })"#);
        let r = r.try_cast::<rhai::Map>().unwrap_or_default();
        let fast = r
            .get("avg_gbps")
            .and_then(|v| v.as_float().ok())
            .unwrap_or(0.0);
        assert!(fast > 94.0, "{fast}");
        let header = r
            .get("header")
            .cloned()
            .and_then(|h| h.try_cast::<rhai::Map>())
            .unwrap_or_default();
        assert_eq!(
            header.get("gid_index").and_then(|g| g.as_int().ok()),
            Some(3)
        );
        let lat = num(
            &t,
            r#"perftest::send_lat("rb", "ra", #{ device: "mlx5_1" }).typical_us"#,
        );
        assert!((1.85..=2.1).contains(&lat), "{lat}");
    }

    #[test]
    fn bad_pairs_fail_and_the_server_is_always_stopped() {
        let t = TestHost::guests(&[("ba", UP), ("bb", UP), ("bare", "")], "controller").build();
        assert!(
            t.error(r#"perftest::send_bw("ba", "ba", #{})"#)
                .contains("a test needs two hosts")
        );
        assert!(
            t.error(r#"perftest::send_bw("nohost", "ba", #{})"#)
                .contains("is not a host of this run")
        );
        assert!(
            t.error(r#"perftest::send_bw("bb", "ba", #{ sise: 1 })"#)
                .contains("`perftest::send_bw` has no option `sise`; did you mean `size`?")
        );
        // The client checks its own port before it connects anywhere.
        let error = t.error(r#"perftest::send_bw("bare", "ba", #{})"#);
        assert!(error.contains("ib_send_bw on ba: port 1"), "{error}");
        // The ports are still in INIT: perftest refuses them before connecting, as the real
        // one does (not "Failed to modify QP to RTR").
        let error = t.error(r#"perftest::send_bw("bb", "ba", #{})"#);
        assert!(
            error.contains("port 1 of mlx5_0 is Init, not ACTIVE")
                && error.contains("Port number 1 state is Init"),
            "{error}"
        );
        assert!(!error.contains("Failed to modify QP"), "{error}");
        let running =
            std::fs::read_to_string(t.dir.path().join("sim/bb/state.json")).unwrap_or_default();
        let state: serde_json::Value = serde_json::from_str(&running).unwrap_or_default();
        assert_eq!(
            state["tools"]["processes"]["running"],
            serde_json::json!({})
        );
        let results =
            t.eval(r#"perftest::matrix(["ba", "bb", "bare"], #{ concurrency: 2 }).map(|r| r.ok)"#);
        assert_eq!(results.to_string(), "[false, false, false]");
    }
}
