//! The simulated `ethtool -S IFACE` of a RoCE port: the PFC pause frame counters mlx5 prints
//! for each priority with PFC on (`mlx5e_grp_per_prio_fill_strings`: `rx_prioN_pause` and
//! `tx_prioN_pause`, in that order), under ethtool's `NIC statistics:` title, five blanks before
//! each `name: value` as `do_gstats` prints them. Only those: the real driver prints hundreds
//! more (the pause durations and transitions among them), which the simulator does not model. The counters move as `crate::machine::qos` counts them: a
//! sender receives pause frames on the priority its RoCE traffic takes, when PFC is on there.
//! Any other `ethtool` command says plainly that it is not simulated.

use cairn_runtime::ExecOutput;
use cairn_runtime::sim::{SimContext, SimTool};

use crate::machine::guest::out;
use crate::machine::interfaces::own_interfaces;
use crate::machine::qos;

/// `ethtool -S IFACE`.
pub(crate) struct EthtoolSim;

impl SimTool for EthtoolSim {
    fn commands(&self) -> &[&'static str] {
        &["ethtool"]
    }

    fn run(&self, host: &mut SimContext<'_>, argv: &[String]) -> ExecOutput {
        let args: Vec<&str> = argv.iter().skip(1).map(String::as_str).collect();
        let ["-S" | "--statistics", ifname] = args.as_slice() else {
            return out(
                127,
                "",
                format!(
                    "cairn sim: `{}` is not simulated (it answers `ethtool -S IFACE` of a RoCE port)\n",
                    argv.join(" ")
                ),
            );
        };
        let Some(device) = own_interfaces(host)
            .into_iter()
            .find(|i| i.name == *ifname && i.link_type == "ether")
            .and_then(|i| i.rdma)
        else {
            return out(
                127,
                "",
                format!("cairn sim: `ethtool -S {ifname}` is not simulated (only a RoCE port's)\n"),
            );
        };
        let state = qos::load(host);
        let pauses = qos::pause_frames(host, &state, ifname, &device);
        let pfc = state.port(ifname).pfc;
        let mut text = "NIC statistics:\n".to_owned();
        for prio in (0..8).filter(|p| pfc[*p]) {
            // A sender receives pauses; the simulator sends none (its receivers never congest).
            text.push_str(&format!(
                "     rx_prio{prio}_pause: {}\n     tx_prio{prio}_pause: 0\n",
                pauses[prio]
            ));
        }
        out(0, text, "")
    }
}

#[cfg(test)]
mod tests {
    use crate::test_support::{sim_exec as run, sim_host};

    /// The counters parse with the `ethtool-stats` parser, appear for the priorities with PFC
    /// on, and move with perftest traffic only on the priority its DSCP maps to.
    #[test]
    fn pause_counters_move_only_on_a_lossless_priority_that_carries_the_traffic() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let host = sim_host(
            crate::models::metal::rhel8_metal(),
            "node01",
            dir.path().join("node01"),
            &[("ofed", "5.4-3.0.3.0")],
        );
        let map = run(&host, &["ibdev2netdev"]).stdout;
        let roce = map
            .lines()
            .find_map(|l| l.strip_prefix("mlx5_0 port 1 ==> "))
            .and_then(|rest| rest.split_whitespace().next())
            .unwrap_or_else(|| panic!("{map}"))
            .to_owned();
        let counters = |host: &cairn_runtime::sim::SimHost| {
            let text = run(host, &["ethtool", "-S", &roce]).stdout;
            let stats =
                crate::net::ethtool::parse_stats(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
            stats
                .stats
                .into_iter()
                .map(|s| (s.name, s.value))
                .collect::<Vec<_>>()
        };
        assert_eq!(counters(&host), Vec::<(String, u64)>::new());
        run(&host, &["mlnx_qos", "-i", &roce, "--trust", "dscp"]);
        run(
            &host,
            &["mlnx_qos", "-i", &roce, "--pfc", "0,0,0,1,0,0,0,0"],
        );
        // ToS 26 is DSCP 6, priority 0: the traffic is not on the lossless priority.
        run(&host, &["cma_roce_tos", "-d", "mlx5_0", "-t", "26"]);
        let state_file = host.dir().join(cairn_runtime::sim::STATE_FILE);
        let bump = |runs: u64| {
            let text = std::fs::read_to_string(&state_file).unwrap_or_else(|e| panic!("{e}"));
            let mut state: serde_json::Value =
                serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}"));
            state["tools"]["ib_send_bw"]["runs"] = serde_json::json!(runs);
            std::fs::write(&state_file, state.to_string()).unwrap_or_else(|e| panic!("{e}"));
        };
        bump(2);
        assert_eq!(
            counters(&host),
            [
                ("rx_prio3_pause".to_owned(), 0),
                ("tx_prio3_pause".to_owned(), 0)
            ]
        );
        run(&host, &["cma_roce_tos", "-d", "mlx5_0", "-t", "106"]);
        bump(4);
        let moved = counters(&host);
        assert!(moved[0].1 > 0, "{moved:?}");
        assert_eq!(moved[1].1, 0);
    }
}
