//! Variants of the published `ibqueryerrors` outputs (`tests/fixtures/ibqueryerrors/`) that
//! one sample cannot show, each built from the print formats of rdma-core's
//! `infiniband-diags/ibqueryerrors.c`.

use super::parse;
use crate::test_support::{output_of, variants};

const LIST: &str =
    include_str!("../../../../tests/fixtures/ibqueryerrors/sx6036-ceph-linux-rdma-list.txt");
const LAB: &str = include_str!(
    "../../../../tests/fixtures/ibqueryerrors/leaf-symbol-errors-ibsim-ncp-ain-lab.txt"
);

#[test]
fn line_ends_and_indentation_do_not_change_the_result() {
    for fixture in [LIST, LAB] {
        let expected = parse(output_of(fixture)).unwrap_or_else(|e| panic!("{e}"));
        for text in variants(fixture) {
            assert_eq!(parse(&text).ok().as_ref(), Some(&expected), "{text:?}");
        }
    }
}

#[test]
fn the_published_counters_are_numbers_by_name() {
    let out = parse(output_of(LIST)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.nodes.len(), 4);
    let switch = &out.nodes[2];
    assert_eq!(switch.guid.as_deref(), Some("0x2c903006e29b0"));
    assert_eq!(switch.name, "MF0;ys23ib4:SX6036/U1");
    assert!(switch.ports[0].all_ports && switch.ports[0].port.is_none());
    assert_eq!(switch.ports[1].port, Some(0));
    assert_eq!(
        switch.ports[6].counters.get("SymbolErrorCounter"),
        Some(&65535)
    );
    let summary = out.summary.unwrap_or_else(|| panic!("no summary"));
    assert_eq!((summary.bad_nodes, summary.bad_ports), (4, Some(14)));
    assert_eq!(summary.thresholds.map(|t| t.len()), Some(0));
    assert_eq!(summary.suppressed, Some(vec![]));
}

/// `-r` prints `print_port_config`'s line under each port: `       Link info: %6d%4d[%2s]
/// ==%s==>  %s`, the link and peer as `iblinkinfo` prints them (the peer's line is the lab's
/// `iblinkinfo` line for the same port); `--data` adds the data counters with their scaled
/// value (`[%s == %lu (%5.3f%s)]`); without a threshold file the thresholds line is `## (null)`
/// (`printf("## %s\n", NULL)`); `-c` names the suppressed counters; a failed PMA query prints
/// its `ibwarn` line on stderr and the failures line in the summary.
#[test]
fn report_port_data_counters_and_the_other_summary_lines() {
    let text = "\
Errors for 0x200002 \"hxa-su1-leaf-r1\"
   GUID 0x200002 port 33: [SymbolErrorCounter == 250] [PortXmitData == 123456 (482.250KB)]
       Link info:      4  33[  ] ==( 4X           2.5 Gbps Active/  LinkUp)==>  0x0000000000200000      2    1[  ] \"hxa-spine01\" ( )
   GUID 0x200002 port 34: [LinkDownedCounter == 1]
       Link info:      4  34[  ] ==(                Down/ Polling)==>             [  ] \"\" ( )
ibwarn: [4321] query_cap_mask: classportinfo query failed on hxa-gpu04 mlx5_1, Lid 15 port 1

## Summary: 16 nodes checked, 1 bad nodes found
##          226 ports checked, 2 ports have errors beyond threshold
## (null)
##          1 PMA query failures
## Suppressed: PortRcvSwitchRelayErrors PortXmitWait
";
    let out = parse(text).unwrap_or_else(|e| panic!("{e}"));
    let ports = &out.nodes[0].ports;
    assert_eq!(ports[0].counters.get("PortXmitData"), Some(&123_456));
    assert_eq!(
        ports[0].scaled.get("PortXmitData").map(String::as_str),
        Some("482.250KB")
    );
    let up = ports[0].link.as_ref().unwrap_or_else(|| panic!("no link"));
    assert_eq!(
        (up.lid, up.port, up.width.as_deref(), up.speed.as_deref()),
        (4, 33, Some("4X"), Some("2.5 Gbps"))
    );
    assert_eq!(
        (up.state.as_str(), up.physical_state.as_str()),
        ("Active", "LinkUp")
    );
    let peer = up.remote.as_ref().unwrap_or_else(|| panic!("no peer"));
    assert_eq!(
        (peer.lid, peer.port, peer.name.as_str()),
        (2, 1, "hxa-spine01")
    );
    assert_eq!(peer.could_be, None);
    let down = ports[1].link.as_ref().unwrap_or_else(|| panic!("no link"));
    assert_eq!((down.width.as_deref(), down.state.as_str()), (None, "Down"));
    assert_eq!(
        (down.physical_state.as_str(), down.remote.is_none()),
        ("Polling", true)
    );
    assert_eq!(out.warnings.len(), 1);
    assert_eq!(out.warnings[0].line, 6);
    let summary = out.summary.unwrap_or_else(|| panic!("no summary"));
    assert_eq!(summary.thresholds, None);
    assert_eq!(summary.pma_query_failures, 1);
    assert_eq!(
        summary.suppressed,
        Some(vec![
            "PortRcvSwitchRelayErrors".to_owned(),
            "PortXmitWait".to_owned()
        ])
    );
}

/// A clean fabric prints the summary alone; the tool's own fatal line is its output, data.
#[test]
fn a_clean_fabric_and_the_tools_own_error() {
    let clean = "\n## Summary: 16 nodes checked, 0 bad nodes found\n##          226 ports checked, 0 ports have errors beyond threshold\n## (null)\n## Suppressed:\n";
    let out = parse(clean).unwrap_or_else(|e| panic!("{e}"));
    assert!(out.nodes.is_empty());
    let failed = "ibwarn: [2001] mad_rpc_open_port: can't open UMAD port ((null):0)\nibqueryerrors: iberror: failed: Failed to open (null) port 0\n";
    let out = parse(failed).unwrap_or_else(|e| panic!("{e}"));
    let error = out.error.unwrap_or_else(|| panic!("no error"));
    assert_eq!((error.kind.as_str(), error.line), ("iberror", 2));
    assert_eq!(out.warnings.len(), 1);
}

#[test]
fn refusals() {
    for text in [
        // Warnings alone, another tool's fatal line, `hello world`.
        "ibwarn: [2001] mad_rpc_open_port: can't open UMAD port ((null):0)\n",
        "perfquery: iberror: failed: can't resolve destination port 99\n",
        "hello world\n",
        // A port line before its node's line.
        "   GUID 0x200002 port 33: [SymbolErrorCounter == 250]\n## Summary: 1 nodes checked, 1 bad nodes found\n",
        // A summary line before `## Summary:`.
        "##          226 ports checked, 1 ports have errors beyond threshold\n",
    ] {
        assert!(parse(text).is_err(), "{text:?}");
    }
    let huge = output_of(LAB).replace("== 250", "== 99999999999999999999999");
    let error = parse(&huge).err().map(|e| e.message);
    assert_eq!(
        error.as_deref(),
        Some("`99999999999999999999999` is not a number in range")
    );
}

/// The first lines of a published `ibqueryerrors --details --suppress-common --data
/// --report-port --switch` run (guilbaults/infiniband-exporter issue 12): libibnetdisc's
/// `src/query_smp.c:199; ...` line before the output, a switch whose extended error counters
/// print their scaled value too (`(19.353K)`) and `--details`' `PortLocalPhysicalErrors`
/// without one. The published port line is cut after `PortRcvPkts` here, as the page
/// shows it only in part.
#[test]
fn scaled_error_counters_details_and_a_discovery_error() {
    let text = "\
src/query_smp.c:199; umad (DR path slid 0; dlid 0; 0,1,10,19 Attr 0x11:0) bad status 110; Connection timed out
Errors for 0xb8599f0300383ec0 \"ibswh2 [255-B05] HDR-40\"
   GUID 0xb8599f0300383ec0 port ALL: [SymbolErrorCounter == 19817 (19.353K)] [LinkDownedCounter == 37 (37.000)] [PortXmitDiscards == 8 (8.000)] [PortLocalPhysicalErrors == 8] [PortXmitWait == 2417380683166 (2.199T)] [PortXmitData == 5044493407069892 (17.922PB)] [PortRcvData == 5044493406602707 (17.922PB)] [PortXmitPkts == 5101051455966 (4.639T)] [PortRcvPkts == 5101051441855 (4.639T)]
";
    let out = parse(text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.nodes[0].name, "ibswh2 [255-B05] HDR-40");
    let all = &out.nodes[0].ports[0];
    assert_eq!(all.counters.get("SymbolErrorCounter"), Some(&19_817));
    assert_eq!(all.counters.get("PortLocalPhysicalErrors"), Some(&8));
    assert_eq!(
        all.scaled.get("PortXmitData").map(String::as_str),
        Some("17.922PB")
    );
    assert!(!all.scaled.contains_key("PortLocalPhysicalErrors"));
    assert_eq!(out.warnings.len(), 1);
    assert!(out.warnings[0].text.starts_with("src/query_smp.c:199;"));
    assert!(out.summary.is_none());
}
