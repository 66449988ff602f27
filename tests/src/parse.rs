//! `cairn parse` on hostile outputs: errors far into a long line render (miette's graphical
//! handler panicked past column 65,535), and long blank runs do not make a parser quadratic.

use std::time::{Duration, Instant};

use cairn_tests::Lab;

/// `cairn parse TOOL FILE` on `text`: its run and how long it took.
fn parse(lab: &Lab, tool: &str, text: &str) -> (cairn_tests::Run, Duration) {
    let file = lab.write(&format!("{tool}.txt"), text);
    let started = Instant::now();
    let run = lab.cairn(&["parse", tool, &file.display().to_string()]);
    (run, started.elapsed())
}

#[test]
fn an_error_past_column_65535_is_rendered_not_a_panic() {
    let lab = Lab::new();
    let cases = [
        (
            "ofed-info",
            format!("MLNX_OFED_LINUX-5.4-3.0.3.0:\n{}X\n", " ".repeat(70_000)),
        ),
        (
            "ibdev2netdev",
            format!(
                "rocep1s0f0 port 1 ==> enp1s0f0np0 (Up){}x\n",
                " ".repeat(500_000)
            ),
        ),
        (
            "mst-status",
            format!(
                " PCI devices:\n -----{}-------\n DEVICE_TYPE  MST  PCI  RDMA  NET  NUMA\n",
                "\t".repeat(20_000)
            ),
        ),
        (
            "ibv-devinfo",
            format!("hca_id:\tmlx5_0\n{}\n", "q".repeat(70_000)),
        ),
    ];
    for (tool, text) in cases {
        let (run, _) = parse(&lab, tool, &text);
        assert_eq!(run.code, 2, "{tool}: {}", run.stderr);
        assert!(!run.stderr.contains("panicked"), "{tool}: {}", run.stderr);
        assert!(
            run.stderr.contains("does not parse"),
            "{tool}: {}",
            run.stderr
        );
        assert!(
            run.stderr.contains('…'),
            "{tool}: the long line is folded: {}",
            run.stderr
        );
    }
}

#[test]
fn long_blank_runs_parse_in_linear_time() {
    let lab = Lab::new();
    let blanks = " ".repeat(200_000);
    let cases = [
        (
            "ibv-devinfo",
            format!("hca_id:\tmlx5_0\n\ttransport:\t\t\tInfiniBand (0)\n\tsys_image_gui{blanks}x"),
        ),
        (
            "esxcli-advanced",
            format!("   Path: /Po{blanks}wer/CpuPolicy\n   Type: string\n   Int Value: 0\n"),
        ),
        ("perftest", format!("{}\n", "\t".repeat(200_000))),
        (
            "ibstatus",
            format!("Infiniband device 'mlx4_0' port 1 status:\n\tstate:\t\t 4: ACTIVE{blanks}\n"),
        ),
    ];
    for (tool, text) in cases {
        let (run, took) = parse(&lab, tool, &text);
        assert!(run.code == 0 || run.code == 2, "{tool}: {}", run.stderr);
        // A debug build on a busy machine; the quadratic grammar took minutes here.
        assert!(took < Duration::from_secs(10), "{tool}: {took:?}");
    }
}
