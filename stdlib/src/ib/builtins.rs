//! The `ib::` builtins: RDMA port status and the InfiniBand fabric, as a guest sees them
//! (VMware's guide section 2.4, the blog post "InfiniBand Performance Test").

use rhai::plugin::*;

/// The `ib::` module.
///
/// `ib::wait_active` fails naming the state the port is stuck in: `port mlx5_0:1 is INIT
/// (LinkUp), not ACTIVE, after 60 s`.
///
/// ```rhai
/// let p = ib::wait_active("mlx5_0", 1, 60);
/// log(`${p.device} ${p.state} ${p.phys_state} ${p.rate_gbps} Gb/sec (${p.rate_text})`);
/// let names = ib::netdiscover().channel_adapters.map(|ca| ca.description);
/// ```
#[export_module]
pub mod ib_builtins {
    use std::time::Duration;

    use cairn_runtime::ActionError;
    use rhai::{Array, Dynamic, Map, NativeCallContext};
    use serde_json::json;

    use crate::action::{self, RhaiResult};
    use crate::ib::{command, reads};

    /// Every RDMA port, from `ibstatus`: an array of `#{device, port, default_gid, base_lid,
    /// sm_lid, state, state_code, phys_state, phys_state_code, rate_gbps, rate_text, width,
    /// speed, link_layer}` (`state` is `ACTIVE`, `INIT`, ...; `link_layer` `InfiniBand` or
    /// `Ethernet`).
    ///
    /// ```rhai
    /// for p in ib::status() { log(`${p.device}: ${p.state} ${p.rate_gbps} Gb/s ${p.link_layer}`); }
    /// ```
    #[rhai_fn(volatile, return_raw)]
    pub fn status(ctx: NativeCallContext) -> RhaiResult<Array> {
        let ports = action::query_typed(
            &ctx,
            crate::ib::NAMESPACE,
            json!({}),
            "ibstatus's ports",
            |io| reads::ports(io, command::IBSTATUS),
        )?;
        action::as_array(&ports)
    }

    /// `ibstat`: `#{cas: [#{name, ca_type, firmware_version, node_guid, ports: [#{port, state,
    /// physical_state, rate_gbps, base_lid, sm_lid, port_guid, link_layer}]}]}`.
    ///
    /// ```rhai
    /// let fw = ib::stat().cas[0].firmware_version;
    /// ```
    #[rhai_fn(volatile, return_raw)]
    pub fn stat(ctx: NativeCallContext) -> RhaiResult<Map> {
        let adapters = action::query_typed(
            &ctx,
            crate::ib::NAMESPACE,
            json!({}),
            "ibstat's channel adapters",
            reads::adapters,
        )?;
        action::as_map(&adapters)
    }

    /// `ibv_devinfo`: an array of devices `#{hca_id, transport, fw_ver, node_guid,
    /// vendor_part_id, ports: [#{port, state, max_mtu_bytes, active_mtu_bytes, sm_lid, port_lid,
    /// link_layer}]}`.
    ///
    /// ```rhai
    /// let roce = ib::devinfo().find(|d| d.hca_id == "mlx5_1");
    /// log(`RoCE active MTU ${roce.ports[0].active_mtu_bytes}`);
    /// ```
    #[rhai_fn(volatile, return_raw)]
    pub fn devinfo(ctx: NativeCallContext) -> RhaiResult<Array> {
        let devices = action::query_typed(
            &ctx,
            crate::ib::NAMESPACE,
            json!({}),
            "ibv_devinfo's devices",
            reads::devices,
        )?;
        action::as_array(&devices)
    }

    /// The fabric from `ibnetdiscover`: `#{switches, channel_adapters, routers}`, each node
    /// `#{node_ref, guid, description, lid, port_count, ports: [#{port, lid, width, speed,
    /// remote}]}`; a host channel adapter's description is `"HOST DEVICE"`, as the subnet
    /// manager knows it.
    ///
    /// ```rhai
    /// let fabric = ib::netdiscover();
    /// let names = fabric.channel_adapters.map(|ca| ca.description);
    /// expect(names.contains("ibb-03 mlx5_0"), "ibb-03 is not on the fabric");
    /// ```
    #[rhai_fn(volatile, return_raw)]
    pub fn netdiscover(ctx: NativeCallContext) -> RhaiResult<Map> {
        let fabric = action::query_typed(
            &ctx,
            crate::ib::NAMESPACE,
            json!({}),
            "ibnetdiscover's fabric",
            reads::fabric,
        )?;
        action::as_map(&fabric)
    }

    /// `ibqueryerrors`: every port of the fabric with an error counter above 0 (no threshold
    /// file): `#{nodes: [#{kind, guid, name, ports: [#{guid, port, all_ports, counters,
    /// scaled, link}]}], summary: #{nodes_checked, bad_nodes, ports_checked, bad_ports,
    /// thresholds, pma_query_failures, suppressed}, warnings, error}`. The tool's own fatal
    /// line fails the call.
    ///
    /// ```rhai
    /// let q = ib::query_errors();
    /// expect(q.summary.bad_nodes == 0, q.nodes.map(|n| n.name));
    /// ```
    #[rhai_fn(volatile, return_raw)]
    pub fn query_errors(ctx: NativeCallContext) -> RhaiResult<Map> {
        let errors = action::query_typed(
            &ctx,
            crate::ib::NAMESPACE,
            json!({}),
            "ibqueryerrors' ports",
            reads::query_errors,
        )?;
        action::as_map(&errors)
    }

    /// `perfquery -x LID PORT`: that port's extended counters, `#{title, extended, port_id,
    /// lid, port, cap_mask, cap_mask2, counters: #{SymbolErrorCounter, LinkDownedCounter,
    /// PortXmitData, ...}, other}`.
    ///
    /// ```rhai
    /// let c = ib::perfquery(20, 1).counters;
    /// log(`symbol errors ${c.SymbolErrorCounter}, link downs ${c.LinkDownedCounter}`);
    /// ```
    #[rhai_fn(volatile, return_raw)]
    pub fn perfquery(ctx: NativeCallContext, lid: i64, port: i64) -> RhaiResult<Map> {
        let (Ok(lid), Ok(port)) = (u32::try_from(lid), u32::try_from(port)) else {
            return Err(action::bad_argument(
                &ctx,
                format!("LID {lid} and port {port} must be whole numbers from 0"),
            ));
        };
        let args = json!({ "lid": lid, "port": port });
        let block = action::query_typed(
            &ctx,
            crate::ib::NAMESPACE,
            args,
            "perfquery's counters",
            |io| reads::perfquery(io, lid, port),
        )?;
        action::as_map(&block)
    }

    /// `iblinkinfo`: every node and its ports' links, `#{nodes: [#{kind, guid, name, ports:
    /// [#{guid, lid, port, width, speed, state, physical_state, remote: #{lid, port, name,
    /// could_be}}]}], warnings, error}`, and `links`: each link that is up once, named by
    /// both ends, `#{a: #{node, port, lid}, b, width, speed, name}` (`node01 mlx5_0 port 1
    /// to MF0;ib-sw01:MSB7800/U1 port 1`).
    ///
    /// ```rhai
    /// for l in ib::link_info().links { if l.width != "4X" { log(`${l.name} at ${l.width}`); } }
    /// ```
    #[rhai_fn(volatile, return_raw)]
    pub fn link_info(ctx: NativeCallContext) -> RhaiResult<Map> {
        let info = action::query_typed(
            &ctx,
            crate::ib::NAMESPACE,
            json!({}),
            "iblinkinfo's nodes",
            reads::link_info,
        )?;
        let mut map = action::as_map(&info)?;
        let links = crate::ib::fabric_links::Links::of(&info).links;
        map.insert(
            "links".into(),
            Dynamic::from_array(action::as_array(&links)?),
        );
        Ok(map)
    }

    /// The fabric's error counters now (`iblinkinfo` and `ibqueryerrors`): `#{ports:
    /// [#{node, guid, port, link, counters}]}`, every port with a counter above 0 on its link
    /// named by both ends. Read it before a test and give it to `ib::counter_deltas` after.
    ///
    /// ```rhai
    /// let before = ib::error_counters();
    /// perftest::send_bw("node02", #{ device: "mlx5_0" });
    /// let moved = ib::counter_deltas(before);
    /// expect(moved.is_empty(), moved.map(|d| `${d.link}: ${d.counter} +${d.delta}`));
    /// ```
    #[rhai_fn(volatile, return_raw)]
    pub fn error_counters(ctx: NativeCallContext) -> RhaiResult<Map> {
        let counters = action::query_typed(
            &ctx,
            crate::ib::NAMESPACE,
            json!({}),
            "the fabric's error counters",
            reads::error_counters,
        )?;
        action::as_map(&counters)
    }

    /// Reads the fabric's error counters again and returns every counter that grew since
    /// `before` (an `ib::error_counters()`): `[#{node, port, link, counter, before, after,
    /// delta}]`, `link` named by both ends; empty when nothing moved. A counter lower than
    /// before was cleared in between: its delta is what it holds now.
    ///
    /// ```rhai
    /// let moved = ib::counter_deltas(before);
    /// ```
    #[rhai_fn(volatile, return_raw)]
    pub fn counter_deltas(ctx: NativeCallContext, before: Map) -> RhaiResult<Array> {
        let before: crate::ib::counters::ErrorCounters =
            rhai::serde::from_dynamic(&Dynamic::from_map(before)).map_err(|e| {
                action::bad_argument(
                    &ctx,
                    format!("`before` is not what ib::error_counters() returns: {e}"),
                )
            })?;
        let args = json!({ "before": action::json(&before) });
        let moved = action::query_typed(
            &ctx,
            crate::ib::NAMESPACE,
            args,
            "the counters that moved",
            |io| Ok(reads::error_counters(io)?.since(&before)),
        )?;
        action::as_array(&moved)
    }

    /// Runs `ibdiagnet` on this host (one whose IB port sees the subnet manager) and checks the
    /// fabric from the `ibdiagnet2.db_csv` it writes: the cabling against `topology` (a design
    /// file in ibnetdiscover's format, beside the runbook), exactly one master subnet manager,
    /// no cable below `width` (`4X`) or `speed` (`EDR`), no port counter over its threshold
    /// (`thresholds: #{ SymbolErrorCounter: 10 }`; without it SymbolErrorCounter,
    /// LinkDownedCounter and PortRcvErrors must be 0). Options also `device` (`-i`) and `output`
    /// (`-o`, default `/var/tmp/ibdiagnet2`). `from: "node001"` runs it on that host of the run
    /// from this one (an `on controller` stage): the findings then fail the controller's
    /// stage, not the host that ran the scan. Read-only. Returns `#{ok, findings: [#{check,
    /// node, guid, port, link, found, message}], subnet_managers, masters: [#{node,
    /// description, guid, port, state, priority}], switches, channel_adapters, links, db_csv,
    /// from}`; `check` is `topology`, `subnet_manager`, `width`, `speed` or `counter`, `link`
    /// the cable blamed (`node042 port 1 to ib-leaf02 port 42`), `found` what it had (`1X`).
    ///
    /// ```rhai
    /// let d = ib::ibdiagnet(#{ width: "4X", speed: "EDR", topology: "labs/fabric.topo" });
    /// expect(d.ok, d.findings.map(|f| f.message));
    /// ```
    #[rhai_fn(volatile, return_raw)]
    pub fn ibdiagnet(ctx: NativeCallContext, options: rhai::Map) -> RhaiResult<Dynamic> {
        crate::ib::ibdiagnet::run::ibdiagnet(&ctx, &options)
    }

    /// `ib::ibdiagnet()`: the subnet managers and the default counter thresholds only.
    ///
    /// ```rhai
    /// let d = ib::ibdiagnet();
    /// ```
    #[rhai_fn(volatile, return_raw, name = "ibdiagnet")]
    pub fn ibdiagnet_default(ctx: NativeCallContext) -> RhaiResult<Dynamic> {
        crate::ib::ibdiagnet::run::ibdiagnet(&ctx, &rhai::Map::new())
    }

    /// Waits until a port is `ACTIVE` (polling `ibstatus DEV:PORT` every second on the host's
    /// clock) and returns it; fails after `timeout` seconds with the state it is stuck in.
    ///
    /// ```rhai
    /// let p = ib::wait_active("mlx5_0", 1, 60);
    /// log(`LID ${p.base_lid}`);
    /// ```
    #[rhai_fn(volatile, return_raw)]
    pub fn wait_active(
        ctx: NativeCallContext,
        device: &str,
        port: i64,
        timeout: i64,
    ) -> RhaiResult<Map> {
        if !crate::action::valid_device(device) {
            return Err(action::bad_argument(
                &ctx,
                format!("`{device}` is not an RDMA device name"),
            ));
        }
        let (Ok(port), Ok(timeout)) = (u32::try_from(port), u64::try_from(timeout)) else {
            return Err(action::bad_argument(
                &ctx,
                "port and timeout must not be negative".into(),
            ));
        };
        let device = device.to_owned();
        let args = json!({ "device": device, "port": port, "timeout": timeout });
        let port = action::query_typed(
            &ctx,
            crate::ib::NAMESPACE,
            args,
            "an ibstatus port",
            |io| {
                let clock = io.clock();
                let started = clock.now_millis();
                loop {
                    let state = reads::port(io, &device, port)?;
                    if state.state.as_deref() == Some("ACTIVE") {
                        return Ok(state);
                    }
                    let waited = clock.now_millis().saturating_sub(started);
                    if waited >= timeout.saturating_mul(1000) {
                        let now = state.state.as_deref().unwrap_or("unknown");
                        let phys = state.phys_state.as_deref().unwrap_or("unknown");
                        return Err(ActionError::Failed(format!(
                            "`{}` port {device}:{port} is {now} ({phys}), not ACTIVE, after {timeout} s",
                            io.host()
                        )));
                    }
                    io.wait(Duration::from_secs(1))?;
                }
            },
        )?;
        action::as_map(&port)
    }
}

#[cfg(test)]
mod tests {
    use crate::test_support::TestHost;

    #[test]
    fn ports_fabric_and_waiting_for_active() {
        let t = TestHost::guests(
            &[
                ("ibb-02", "ofed=5.4-3.0.3.0"),
                ("ibb-03", "ofed=5.4-3.0.3.0"),
            ],
            "ibb-02",
        )
        .build();
        assert_eq!(t.eval("ib::status()[0].state").to_string(), "INIT");
        let port = t.eval(r#"ib::wait_active("mlx5_0", 1, 10)"#);
        let port = port.try_cast::<rhai::Map>().unwrap_or_default();
        assert_eq!(
            port.get("state").map(ToString::to_string).as_deref(),
            Some("ACTIVE")
        );
        assert_eq!(
            port.get("base_lid").and_then(|l| l.as_int().ok()),
            Some(0x14)
        );
        assert_eq!(t.eval("ib::status()[1].link_layer").to_string(), "Ethernet");
        assert_eq!(t.eval("ib::stat().cas.len()").as_int().ok(), Some(2));
        assert_eq!(
            t.eval("ib::devinfo()[1].ports[0].active_mtu_bytes")
                .as_int()
                .ok(),
            Some(1024)
        );
        t.sleep("ibb-03", 5);
        let names = t.eval("ib::netdiscover().channel_adapters.map(|c| c.description)");
        assert_eq!(names.to_string(), r#"["ibb-02 mlx5_0", "ibb-03 mlx5_0"]"#);
    }

    #[test]
    fn without_a_subnet_manager_the_port_stays_in_init() {
        let t = TestHost::guests(&[("g", "ofed=5.4-3.0.3.0&subnet_manager=false")], "g").build();
        let error = t.error(r#"ib::wait_active("mlx5_0", 1, 5)"#);
        assert!(
            error.contains("port mlx5_0:1 is INIT (LinkUp), not ACTIVE, after 5 s"),
            "{error}"
        );
        assert!(
            t.error(r#"ib::wait_active("mlx5_0; x", 1, 5)"#)
                .contains("not an RDMA device")
        );
        let t = TestHost::guests(&[("bare", "")], "bare").build();
        assert!(t.error("ib::status()").contains("exited with 127"));
    }
}
