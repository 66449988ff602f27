use crate::test_support::{sim_exec as run, sim_host};

fn metal(dir: &std::path::Path) -> cairn_runtime::sim::SimHost {
    sim_host(
        crate::models::metal::rhel8_metal(),
        "node01",
        dir.join("node01"),
        &[("ofed", "5.4-3.0.3.0")],
    )
}

/// The RoCE interface of the host's first port (`ibdev2netdev`'s `mlx5_0 port 1 ==> IF`).
fn roce_ifname(host: &cairn_runtime::sim::SimHost) -> String {
    let text = run(host, &["ibdev2netdev"]).stdout;
    text.lines()
        .find_map(|l| l.strip_prefix("mlx5_0 port 1 ==> "))
        .and_then(|rest| rest.split_whitespace().next())
        .map(str::to_owned)
        .unwrap_or_else(|| panic!("{text}"))
}

#[test]
fn every_output_parses_with_the_mlnx_qos_parser_and_settings_are_lost_at_reboot() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let host = metal(dir.path());
    let roce = roce_ifname(&host);
    let shown = run(&host, &["mlnx_qos", "-i", &roce]);
    assert_eq!(shown.code, 0, "{shown:?}");
    let qos = crate::qos::parse(&shown.stdout).unwrap_or_else(|e| panic!("{e}\n{}", shown.stdout));
    assert_eq!(qos.trust_state.as_deref(), Some("pcp"));
    assert!(qos.pfc.iter().all(|p| !p.enabled));
    assert_eq!(
        qos.tcs
            .iter()
            .find(|t| t.tc == 0)
            .map(|t| t.priorities.clone()),
        Some(vec![1])
    );
    let trust = run(&host, &["mlnx_qos", "-i", &roce, "--trust", "dscp"]);
    let qos = crate::qos::parse(&trust.stdout).unwrap_or_else(|e| panic!("{e}\n{}", trust.stdout));
    assert_eq!(qos.trust_state.as_deref(), Some("dscp"));
    assert_eq!(qos.dscp2prio[3].dscp, vec![31, 30, 29, 28, 27, 26, 25, 24]);
    run(
        &host,
        &["mlnx_qos", "-i", &roce, "--pfc", "0,0,0,1,0,0,0,0"],
    );
    let moved = run(&host, &["mlnx_qos", "-i", &roce, "--dscp2prio", "set,46,3"]);
    let qos = crate::qos::parse(&moved.stdout).unwrap_or_else(|e| panic!("{e}\n{}", moved.stdout));
    // The moved DSCP comes first in its new priority, which now wraps onto a second line.
    assert_eq!(
        qos.dscp2prio[3].dscp,
        vec![46, 31, 30, 29, 28, 27, 26, 25, 24]
    );
    assert!(qos.dscp2prio[5].dscp.iter().all(|d| *d != 46));
    assert!(
        moved
            .stdout
            .contains("\tprio:3 dscp:46,31,30,29,28,27,26,25,\n\tprio:3 dscp:24,\n")
    );
    assert!(qos.pfc[3].enabled);
    let ets = run(
        &host,
        &[
            "mlnx_qos",
            "-i",
            &roce,
            "-a",
            "--tsa",
            "ets,ets,ets,ets,ets,ets,strict,strict",
            "--tcbw",
            "10,10,10,50,10,10,0,0",
        ],
    );
    let qos = crate::qos::parse(&ets.stdout).unwrap_or_else(|e| panic!("{e}\n{}", ets.stdout));
    assert_eq!(qos.tcs.len(), 8);
    assert_eq!(qos.tcs[3].bw_percent, Some(50));
    assert_eq!(qos.tcs[6].tsa.as_deref(), Some("strict"));
    for (argv, said) in [
        (vec!["--pfc", "0,0,0,1"], "pfc list must have 8 items"),
        (
            vec!["--trust", "dscp", "--dscp2prio", "set,26,3"],
            "cannot be used at the same time",
        ),
        (
            vec!["--tcbw", "10,10,10,10,10,10,0,0"],
            "[Errno 22] Invalid argument",
        ),
    ] {
        let mut command = vec!["mlnx_qos", "-i", roce.as_str()];
        command.extend(argv);
        let refused = run(&host, &command);
        assert_eq!(refused.code, 1);
        assert!(refused.stdout.contains(said), "{refused:?}");
    }
    let unsupported = run(&host, &["mlnx_qos", "-i", "ens192"]);
    let parsed = crate::qos::parse(&unsupported.stdout).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(parsed.error.map(|e| e.kind), Some("unsupported".to_owned()));
    // ECN and ToS, then a reboot: every setting is back to the driver's default.
    let np3 = format!("/sys/class/net/{roce}/ecn/roce_np/enable/3");
    assert_eq!(run(&host, &["cat", &np3]).stdout, "1\n");
    let off = host
        .exec(&cairn_runtime::ExecRequest {
            stdin: Some("0\n".into()),
            ..cairn_runtime::ExecRequest::new(["tee", np3.as_str()])
        })
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((off.code, off.stdout.as_str()), (0, "0\n"));
    assert_eq!(run(&host, &["cat", &np3]).stdout, "0\n");
    assert_eq!(
        run(
            &host,
            &["cma_roce_tos", "-d", "mlx5_0", "-p", "1", "-t", "106"]
        )
        .stdout,
        "106\n"
    );
    run(&host, &["reboot"]);
    let up = host.clock().sleep(
        std::time::Duration::from_secs(3600),
        &cairn_runtime::Cancel::default(),
    );
    assert!(up.is_ok());
    let rebooted = run(&host, &["mlnx_qos", "-i", &roce]);
    let qos = crate::qos::parse(&rebooted.stdout).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(qos.trust_state.as_deref(), Some("pcp"));
    assert!(qos.pfc.iter().all(|p| !p.enabled));
    assert_eq!(run(&host, &["cat", &np3]).stdout, "1\n");
    assert_eq!(run(&host, &["cma_roce_tos", "-d", "mlx5_0"]).stdout, "0\n");
}
