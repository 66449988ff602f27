//! Variants of the published `perfquery` outputs (`tests/fixtures/perfquery/`) that one sample
//! cannot show, built from the print formats of rdma-core's `infiniband-diags/perfquery.c`.

use super::parse;
use crate::test_support::{output_of, variants};

const SWITCH: &str =
    include_str!("../../../../tests/fixtures/perfquery/switch-x-two-ports-infiniband-exporter.txt");
const DETAILS: &str =
    include_str!("../../../../tests/fixtures/perfquery/rcv-error-details-infiniband-exporter.txt");
const LAB: &str =
    include_str!("../../../../tests/fixtures/perfquery/leaf-port-head-ibsim-ncp-ain-lab.txt");

#[test]
fn line_ends_and_indentation_do_not_change_the_result() {
    for fixture in [SWITCH, DETAILS, LAB] {
        let expected = parse(output_of(fixture)).unwrap_or_else(|e| panic!("{e}"));
        for text in variants(fixture) {
            assert_eq!(parse(&text).ok().as_ref(), Some(&expected), "{text:?}");
        }
    }
}

#[test]
fn each_port_is_a_block_of_counters_by_name() {
    let out = parse(output_of(SWITCH)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.blocks.len(), 2);
    let port2 = &out.blocks[1];
    assert!(port2.extended);
    assert_eq!((port2.lid, port2.port), (Some(1719), 2));
    assert_eq!(port2.cap_mask2.as_deref(), Some("0x0000002"));
    assert_eq!(port2.counters.get("PortXmitWait"), Some(&36_510_964));
    assert_eq!(
        port2.counters.get("PortXmitData"),
        Some(&26_006_570_014_026)
    );
    assert_eq!(
        port2.other.get("CounterSelect2").map(String::as_str),
        Some("0x00000000")
    );
    let details = parse(output_of(DETAILS)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(details.blocks[0].title, "PortRcvErrorDetails counters");
    assert_eq!(details.blocks[0].cap_mask, None);
}

/// `IBWARN` lines (stderr, `2>&1`) before a block and `IBEXIT`'s line: perfquery's
/// `PerfMgt ClassPortInfo CapMask ...; No extended counter support indicated` and
/// `can't resolve destination port %s`; a port addressed by a direct route
/// (`portid2str`: `DR path slid 0; dlid 0; 0,1`).
#[test]
fn warnings_errors_and_a_direct_route() {
    let text = format!(
        "ibwarn: [21453] dump_perfcounters: PerfMgt ClassPortInfo CapMask 0x1300; No extended counter support indicated\n\n{}",
        output_of(LAB)
    );
    let out = parse(&text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.warnings.len(), 1);
    assert_eq!(out.warnings[0].line, 1);
    assert_eq!(out.blocks[0].counters.get("PortSelect"), Some(&33));
    let failed = "perfquery: iberror: failed: can't resolve destination port 99\n";
    let out = parse(failed).unwrap_or_else(|e| panic!("{e}"));
    let error = out.error.unwrap_or_else(|| panic!("no error"));
    assert_eq!((error.kind.as_str(), error.line), ("iberror", 1));
    assert!(out.blocks.is_empty());
    let dr = output_of(LAB).replace("Lid 4 port 33", "DR path slid 0; dlid 0; 0,1 port 33");
    let out = parse(&dr).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.blocks[0].port_id, "DR path slid 0; dlid 0; 0,1");
    assert_eq!(out.blocks[0].lid, None);
}

#[test]
fn refusals() {
    for text in [
        "hello world\n",
        "ibwarn: [2001] mad_rpc_open_port: can't open UMAD port ((null):0)\n",
        "ibqueryerrors: iberror: failed: discover failed\n",
        // Fields without their header.
        "SymbolErrorCounter:..............0\nLinkDownedCounter:...............0\n",
    ] {
        assert!(parse(text).is_err(), "{text:?}");
    }
    let huge = output_of(LAB).replace(
        "PortRcvErrors:...................0",
        "PortRcvErrors:...................99999999999999999999999",
    );
    let error = parse(&huge).err().map(|e| e.message);
    assert_eq!(
        error.as_deref(),
        Some("PortRcvErrors `99999999999999999999999` is out of range")
    );
}
