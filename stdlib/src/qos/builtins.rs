//! The `qos::` builtins: a RoCE port's lossless settings on a Linux host (trust, PFC, ETS, the
//! DSCP map with `mlnx_qos`; ECN's switches in sysfs; RDMA-CM's default ToS with
//! `cma_roce_tos`), each read, compared, and changed only where it differs.

use rhai::plugin::*;

/// The `qos::` module.
///
/// Every setting here is runtime state: the kernel keeps it in the driver, and a reboot or a
/// driver reload (`ofed::restart`) brings the defaults back. Apply them after the host's last
/// reboot, and call them again after any later one: each compares first, so a call after a
/// reboot puts back what was lost, and a second run changes nothing. Check them after a reboot
/// with `qos::read` and `expect` (docs/design.md, "Runtime settings and reboots").
///
/// ```rhai
/// let roce = net::ifname_for("mlx5_1", 1);
/// qos::set(roce, #{ trust: "dscp", pfc: [0,0,0,1,0,0,0,0], dscp2prio: [[26, 3]] });
/// qos::set_ecn(roce, #{ priorities: [3], notification_point: true, reaction_point: true });
/// qos::set_roce_tos("mlx5_1", #{ dscp: 26, ecn: true });   // ToS 106
/// expect(qos::read(roce).pfc[3].enabled, "PFC is off on priority 3");
/// ```
#[export_module]
pub mod qos_builtins {
    use rhai::{Array, Dynamic, Map, NativeCallContext};
    use serde_json::json;

    use crate::action::{self, Change, Compared, RhaiResult};
    use crate::qos::types::MlnxQos;
    use crate::qos::wanted::{self, ECN_OPTIONS, SET_OPTIONS, TOS_OPTIONS};
    use crate::qos::{command, plan, reads};

    /// An interface's QoS settings, from `mlnx_qos -i IFACE -a`: `#{dcbx_mode, trust_state,
    /// dscp2prio: [#{prio, dscp: [...]}], cable_len, pfc: [#{priority, enabled, buffer}],
    /// tcs: [#{tc, tsa, bw_percent, ratelimit_gbps, priorities}], ...}` (fields as in
    /// docs/parsers.md, `mlnx-qos`). A port without DCB fails with the tool's words.
    ///
    /// ```rhai
    /// let q = qos::read("ens1f0");
    /// expect(q.trust_state == "dscp", "ens1f0 does not trust DSCP");
    /// ```
    #[rhai_fn(volatile, return_raw)]
    pub fn read(ctx: NativeCallContext, ifname: &str) -> RhaiResult<Dynamic> {
        super::checked_ifname(&ctx, ifname)?;
        let ifname = ifname.to_owned();
        let qos = action::query_typed(
            &ctx,
            crate::qos::NAMESPACE,
            json!({ "ifname": ifname }),
            "mlnx_qos's settings",
            |io| reads::mlnx_qos(io, &command::show(&ifname)),
        )?;
        rhai::serde::to_dynamic(&qos)
    }

    /// Sets an interface's trust state, PFC, traffic classes and DSCP map with `mlnx_qos`, only
    /// where they differ: `trust` (`"dscp"` or `"pcp"`), `pfc` (eight 0/1, one per priority),
    /// `tsa` (eight of `"ets"`, `"strict"`, `"vendor"`, one per traffic class), `tcbw` (eight
    /// ETS shares summing to 100), `prio_tc` (each priority's traffic class), `dscp2prio`
    /// (`[[DSCP, PRIORITY], ...]`; `--trust dscp` first writes the default map, DSCP N to
    /// priority N >> 3). Returns the `mlnx_qos` command lines it ran, in check mode those it
    /// would run; `[]` when nothing differs.
    ///
    /// ```rhai
    /// qos::set("ens1f0", #{ trust: "dscp", pfc: [0,0,0,1,0,0,0,0], dscp2prio: [[26, 3]] });
    /// ```
    #[rhai_fn(volatile, return_raw)]
    pub fn set(ctx: NativeCallContext, ifname: &str, options: Map) -> RhaiResult<Array> {
        super::checked_ifname(&ctx, ifname)?;
        action::check_options(&ctx, &SET_OPTIONS, &options)?;
        let wanted = wanted::qos_wanted(&options).map_err(|e| action::bad_argument(&ctx, e))?;
        let ifname = ifname.to_owned();
        let change = Change::redo(
            crate::qos::NAMESPACE,
            json!({ "ifname": ifname, "options": action::options_json(&options)? }),
            json!([]),
        );
        let value = change.run(
            &ctx,
            |io| reads::mlnx_qos(io, &command::show(&ifname)),
            |_, now: MlnxQos| {
                let mut calls = plan::settings(&now, &wanted);
                let trust_set = calls.iter().any(|c| c.iter().any(|(f, _)| *f == "--trust"));
                let dscp = plan::dscp2prio(&now, &wanted, trust_set);
                if !dscp.is_empty() {
                    calls.push(dscp);
                }
                if calls.is_empty() {
                    return Ok(Compared::Same(json!([])));
                }
                let lines: Vec<String> = calls
                    .iter()
                    .map(|flags| command::set(&ifname, flags).join(" "))
                    .collect();
                Ok(Compared::unmarked(json!(lines), calls))
            },
            |io, calls, mut planned| {
                let mut ran = Vec::new();
                for flags in calls
                    .iter()
                    .filter(|c| c.iter().all(|(f, _)| *f != "--dscp2prio"))
                {
                    let argv = command::set(&ifname, flags);
                    reads::mlnx_qos(io, &argv)?;
                    ran.push(argv.join(" "));
                }
                // The map in effect now that trust is set, not the one predicted.
                let now = reads::mlnx_qos(io, &command::show(&ifname))?;
                let dscp = plan::dscp2prio(&now, &wanted, false);
                if !dscp.is_empty() {
                    let argv = command::set(&ifname, &dscp);
                    reads::mlnx_qos(io, &argv)?;
                    ran.push(argv.join(" "));
                }
                planned.value = json!(ran);
                Ok(planned)
            },
        )?;
        let ran: Vec<String> = action::result_typed(&ctx, &value, "the mlnx_qos commands run")?;
        Ok(ran.into_iter().map(Dynamic::from).collect())
    }

    /// Sets ECN for RoCE on an interface's priorities
    /// (`/sys/class/net/IFACE/ecn/roce_np/enable/PRIO`, the notification point that sends
    /// congestion notifications, and `roce_rp/enable/PRIO`, the reaction point that slows down
    /// on them), only the switches that differ: `priorities` (`[3]`), `notification_point`
    /// and/or `reaction_point` (true or false; one left out is left as it is). Returns the
    /// files it wrote, in check mode those it would write; `[]` when nothing differs.
    ///
    /// ```rhai
    /// qos::set_ecn("ens1f0", #{ priorities: [3], notification_point: true, reaction_point: true });
    /// ```
    #[rhai_fn(volatile, return_raw)]
    pub fn set_ecn(ctx: NativeCallContext, ifname: &str, options: Map) -> RhaiResult<Array> {
        super::checked_ifname(&ctx, ifname)?;
        action::check_options(&ctx, &ECN_OPTIONS, &options)?;
        let wanted = wanted::ecn_wanted(&options).map_err(|e| action::bad_argument(&ctx, e))?;
        let mut switches = Vec::new();
        for prio in &wanted.priorities {
            for (np, want) in [
                (true, wanted.notification_point),
                (false, wanted.reaction_point),
            ] {
                if let Some(want) = want {
                    switches.push((command::ecn_path(ifname, np, *prio), want));
                }
            }
        }
        let change = Change::redo(
            crate::qos::NAMESPACE,
            json!({ "ifname": ifname, "options": action::options_json(&options)? }),
            json!([]),
        );
        let value = change.run(
            &ctx,
            |io| {
                let mut differ = Vec::new();
                for (path, want) in &switches {
                    if reads::ecn(io, path)? != *want {
                        differ.push((path.clone(), *want));
                    }
                }
                Ok(differ)
            },
            |_, differ: Vec<(String, bool)>| {
                if differ.is_empty() {
                    return Ok(Compared::Same(json!([])));
                }
                let paths: Vec<&String> = differ.iter().map(|(p, _)| p).collect();
                Ok(Compared::unmarked(json!(paths), differ))
            },
            |io, differ, planned| {
                for (path, want) in differ {
                    let argv = vec!["tee".to_owned(), path];
                    reads::run(io, &argv, Some(if want { "1\n" } else { "0\n" }))?;
                }
                Ok(planned)
            },
        )?;
        let written: Vec<String> = action::result_typed(&ctx, &value, "the ECN files written")?;
        Ok(written.into_iter().map(Dynamic::from).collect())
    }

    /// Sets RDMA-CM's default ToS of an RDMA device's port (`cma_roce_tos -d DEV -p 1 -t TOS`)
    /// from the RoCE traffic's `dscp` (0 to 63) and whether its packets are ECN-capable (`ecn`):
    /// the ToS byte is DSCP << 2 with ECT(0) in the low bits, computed here, never typed (DSCP 26
    /// with ECN is 106, not 26). Only when it differs; returns whether it changed. RDMA-CM
    /// applications (`ib_write_bw -R`, NCCL over RDMA-CM, NVMe-oF) take it; others set their own
    /// traffic class.
    ///
    /// ```rhai
    /// qos::set_roce_tos("mlx5_1", #{ dscp: 26, ecn: true });
    /// ```
    #[rhai_fn(volatile, return_raw)]
    pub fn set_roce_tos(ctx: NativeCallContext, device: &str, options: Map) -> RhaiResult<bool> {
        if !action::valid_device(device) {
            return Err(action::bad_argument(
                &ctx,
                format!("`{device}` is not an RDMA device name (`mlx5_1`)"),
            ));
        }
        action::check_options(&ctx, &TOS_OPTIONS, &options)?;
        let (dscp, ecn) =
            wanted::tos_wanted(&options).map_err(|e| action::bad_argument(&ctx, e))?;
        let tos = command::tos(dscp, ecn);
        let device = device.to_owned();
        let change = Change::redo(
            crate::qos::NAMESPACE,
            json!({ "device": device, "dscp": dscp, "ecn": ecn }),
            json!(true),
        );
        let value = change.run(
            &ctx,
            |io| reads::roce_tos(io, &device),
            |_, now| {
                if now == tos {
                    return Ok(Compared::Same(json!(false)));
                }
                Ok(Compared::unmarked(json!(true), ()))
            },
            |io, (), planned| {
                reads::run(io, &command::roce_tos(&device, Some(tos)), None)?;
                Ok(planned)
            },
        )?;
        action::result_typed(&ctx, &value, "whether it changed")
    }
}

use rhai::NativeCallContext;

use crate::action::{self, RhaiResult};

/// Refuses a name `ip` would not take, before anything runs.
fn checked_ifname(ctx: &NativeCallContext, ifname: &str) -> RhaiResult<()> {
    if action::valid_ifname(ifname) {
        Ok(())
    } else {
        Err(action::bad_argument(
            ctx,
            format!("`{ifname}` is not an interface name"),
        ))
    }
}

#[cfg(test)]
mod tests {
    use crate::test_support::TestHost;

    fn metal() -> TestHost {
        TestHost::builder(crate::models::metal::rhel8_metal)
            .host("node01", "ofed=5.4-3.0.3.0")
            .current("node01")
            .build()
    }

    const SET: &str = r#"qos::set(net::ifname_for("mlx5_0", 1), #{ trust: "dscp", pfc: [0,0,0,1,0,0,0,0], dscp2prio: [[46, 3]] })"#;

    #[test]
    fn each_setting_changes_once_and_the_tos_is_computed() {
        let t = metal();
        let ran: Vec<String> = t.eval(SET).into_typed_array().unwrap_or_default();
        let roce = t.eval(r#"net::ifname_for("mlx5_0", 1)"#).to_string();
        assert_eq!(
            ran,
            [
                format!("mlnx_qos -i {roce} --trust dscp"),
                format!("mlnx_qos -i {roce} --pfc 0,0,0,1,0,0,0,0"),
                format!("mlnx_qos -i {roce} --dscp2prio set,46,3"),
            ]
        );
        assert_eq!(t.eval(SET).into_array().map(|a| a.len()).ok(), Some(0));
        let ecn =
            format!(r#"qos::set_ecn("{roce}", #{{ priorities: [3], notification_point: false }})"#);
        assert_eq!(t.eval(&ecn).into_array().map(|a| a.len()).ok(), Some(1));
        assert_eq!(t.eval(&ecn).into_array().map(|a| a.len()).ok(), Some(0));
        let tos = r#"qos::set_roce_tos("mlx5_0", #{ dscp: 26, ecn: true })"#;
        assert_eq!(t.eval(tos).as_bool().ok(), Some(true));
        assert_eq!(t.eval(tos).as_bool().ok(), Some(false));
        let tos_now = t
            .eval(r#"run(["cma_roce_tos", "-d", "mlx5_0"]).stdout"#)
            .to_string();
        assert_eq!(tos_now, "106\n");
        let typo = t.error(&format!(r#"qos::set("{roce}", #{{ trsut: "dscp" }})"#));
        assert!(typo.contains("did you mean `trust`"), "{typo}");
        let no_dcb = t.error(r#"qos::read("ens192")"#);
        assert!(
            no_dcb.contains("ETS features are not supported"),
            "{no_dcb}"
        );
    }

    #[test]
    fn check_mode_says_what_it_would_run_and_runs_nothing() {
        let t = metal().again(true);
        let would: Vec<String> = t.eval(SET).into_typed_array().unwrap_or_default();
        assert_eq!(would.len(), 3, "{would:?}");
        let trust = t.eval(r#"qos::read(net::ifname_for("mlx5_0", 1)).trust_state"#);
        assert_eq!(trust.to_string(), "pcp");
    }
}
