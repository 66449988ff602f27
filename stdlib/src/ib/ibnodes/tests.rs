//! Variants of the published `ibhosts` and `ibswitches` outputs (`tests/fixtures/ibnodes/`)
//! that one sample cannot show, from rdma-core's `infiniband-diags/scripts/ibnodes.in` (the
//! hosts, then the switches), `ibswitches.in` (`enhanced port 0`) and the lines all three pass
//! through (`/ibwarn:/`, `/iberror:/`).

use super::parse;
use crate::test_support::{output_of, variants};

const SWITCHES: &str =
    include_str!("../../../../tests/fixtures/ibnodes/switches-ibsim-ncp-ain-lab.txt");
const HOSTS: &str =
    include_str!("../../../../tests/fixtures/ibnodes/two-connectx-hosts-archwiki.txt");

#[test]
fn line_ends_and_indentation_do_not_change_the_result() {
    for fixture in [SWITCHES, HOSTS] {
        let expected = parse(output_of(fixture)).unwrap_or_else(|e| panic!("{e}"));
        for text in variants(fixture) {
            assert_eq!(parse(&text).ok().as_ref(), Some(&expected), "{text:?}");
        }
    }
}

/// `ibnodes` is `ibhosts; ibswitches`: one output after the other.
#[test]
fn ibnodes_prints_the_hosts_then_the_switches() {
    let text = format!("{}{}", output_of(HOSTS), output_of(SWITCHES));
    let out = parse(&text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.nodes.len(), 8);
    let host = &out.nodes[0];
    assert_eq!((host.kind.as_str(), host.ports), ("ca", 2));
    assert_eq!(host.name, "MT25408 ConnectX Mellanox Technologies");
    assert_eq!((host.lid, host.port0.as_deref()), (None, None));
    let spine = &out.nodes[5];
    assert_eq!(spine.name, "hxa-spine02");
    assert_eq!(spine.guid, "0x0000000000200001");
    assert_eq!(
        (spine.lid, spine.lmc, spine.port0.as_deref()),
        (Some(3), Some(0), Some("base"))
    );
}

#[test]
fn an_enhanced_port_0_a_router_and_discoverys_lines() {
    let text = "\
ibwarn: [3088] _do_madrpc: recv failed: Connection timed out
Switch\t: 0x0002c90200482d08 ports 36 \"MF0;sw-ib-01:SX6036/U1\" enhanced port 0 lid 12 lmc 0
Router\t: 0x0002c903000e0b70 ports 2 \"gw01 mlx5_0\"
";
    let out = parse(text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.nodes[0].port0.as_deref(), Some("enhanced"));
    assert_eq!(out.nodes[0].name, "MF0;sw-ib-01:SX6036/U1");
    assert_eq!(out.nodes[1].kind, "router");
    assert_eq!(out.warnings.len(), 1);
    let failed = "ibnetdiscover: iberror: failed: discover failed\n";
    let error = parse(failed).ok().and_then(|o| o.error);
    assert_eq!(error.map(|e| e.line), Some(1));
}

#[test]
fn refusals() {
    for text in [
        "",
        "hello world\n",
        "ibwarn: [3088] _do_madrpc: recv failed: Connection timed out\n",
        "sminfo: iberror: failed: query\n",
        // `ibnetdiscover -l` prints device and vendor ids: another command's list.
        "Ca\t : 0x0002c90300002f78 ports 2 devid 0x1003 vendid 0x2c9 \"hostname mlx4_0\"\n",
    ] {
        assert!(parse(text).is_err(), "{text:?}");
    }
    let huge = output_of(SWITCHES).replace("lid 9 lmc 0", "lid 9 lmc 300");
    assert_eq!(
        parse(&huge).err().map(|e| e.message).as_deref(),
        Some("LMC `300` is out of range")
    );
}
