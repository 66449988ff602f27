//! The report of a 200-host run of recipe 1's shape (100 ESXi hosts with 3 reboots each, 100
//! VMs, the controller's 4 perftest runs for each of 50 pairs: 200 plots), journals written
//! here with the runtime's record types; prints the time to read them and write the page.

use cairn_runtime::RunFolders;
use serde_json::{Value, json};
use support::{Act, write_journal};

#[path = "../src/test_journals.rs"]
mod support;
#[path = "shared/timed_write.rs"]
mod timed_write;

const ESXI: usize = 100;
const VMS: usize = 100;

fn main() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let store = RunFolders::new(dir.path());
    let mut hosts: Vec<String> = (1..=ESXI).map(|i| format!("esx{i:03}")).collect();
    hosts.extend((1..=VMS).map(|i| format!("vm{i:03}")));
    let id = support::new_run(&store, &hosts);
    for (index, host) in hosts.iter().enumerate() {
        let esxi = index < ESXI;
        let actions: Vec<(&'static str, Value, Value)> = if esxi {
            let query = json!({"device_type": "ConnectX5", "part_number": "MCX556A-ECA_Ax",
                "pci_device_name": "3b:00.0", "psid": "MT_0000000008",
                "fw": if index == 7 { "16.31.1014" } else { "16.32.1010" }});
            let mut list = vec![("mlxfwmanager::query", json!({"device": "3b:00.0"}), query)];
            for _ in 0..3 {
                list.push((
                    "esxcli::vib_install",
                    json!({}),
                    json!({"vibs_installed":
                    ["MEL_bootbank_nmlx5-core_4.21.71.101-1OEM.702.0.0.17473468"]}),
                ));
                list.push(("reboot", json!({}), json!({"waited_ms": 125_000})));
            }
            list
        } else {
            vec![
                (
                    "ofed::info",
                    json!({}),
                    json!({"distribution": "MLNX_OFED_LINUX", "version": "5.4-3.0.3.0"}),
                ),
                (
                    "ib::wait_active",
                    json!({}),
                    json!({"device": "mlx5_0", "port": 1, "rate_gbps": 100.0, "link_layer": "InfiniBand"}),
                ),
                ("reboot", json!({}), json!({"waited_ms": 95_000})),
            ]
        };
        write_journal(
            &store,
            &id,
            (host, &hosts),
            if esxi { "esxi" } else { "guests" },
            37,
            &queries(actions),
        );
    }
    let rows = |lat: bool| -> Value {
        (1..=23)
            .map(|p| {
                let bytes = 1u64 << p;
                if lat {
                    json!({"bytes": bytes, "t_typical_usec": 1.0 + bytes as f64 / 12_000.0, "p99_usec": 1.3 + bytes as f64 / 11_000.0})
                } else {
                    json!({"bytes": bytes, "bw_average_gbps": (bytes as f64 / 40.0).min(96.0), "bw_peak_gbps": (bytes as f64 / 39.0).min(96.2)})
                }
            })
            .collect()
    };
    let mut tests = Vec::new();
    for pair in 0..VMS / 2 {
        let (client, server) = (
            format!("vm{:03}", 2 * pair + 1),
            format!("vm{:03}", 2 * pair + 2),
        );
        for device in ["mlx5_0", "mlx5_1"] {
            for (kind, lat) in [("bw", false), ("lat", true)] {
                tests.push(("perftest::send_bw", json!({"client": client, "server": server}), json!({
                    "kind": kind, "program": format!("ib_send_{kind}"), "client": client, "server": server,
                    "command": format!("ib_send_{kind} -a -d {device} {server}"),
                    "header": {"device": device, "link_type": "IB", "mtu_bytes": 4096, "other": {}}, "rows": rows(lat),
                    "test": null, "local": [], "remote": [], "columns": [], "warnings": [], "messages": []})));
            }
        }
    }
    let count = tests.len();
    support::write_controller(&store, &id, &hosts, &queries(tests));

    let out = dir.path().join("report.html");
    let times = timed_write::three_writes(&store, &id, &out);
    let size = std::fs::metadata(&out).map_or(0, |m| m.len());
    println!("| benchmark | median of 3 | best | target |");
    println!("| --- | --- | --- | --- |");
    println!(
        "| report of a {}-host run, {} plots, {:.1} MB page | {:.3} s | {:.3} s | < 1 s |",
        ESXI + VMS,
        count,
        size as f64 / 1e6,
        times[1],
        times[0]
    );
}

/// Each `(builtin, args, result)` as a recorded query (a reboot counts as a change).
fn queries(actions: Vec<(&'static str, Value, Value)>) -> Vec<Act> {
    actions
        .into_iter()
        .map(|(builtin, args, result)| Act::query(builtin, args, result))
        .collect()
}
