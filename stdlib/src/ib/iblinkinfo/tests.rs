//! Variants of the published `iblinkinfo` outputs (`tests/fixtures/iblinkinfo/`) that one
//! sample cannot show, built from the print formats of rdma-core's
//! `infiniband-diags/iblinkinfo.c` (`print_port`, `print_node_header`).

use super::parse;
use crate::test_support::{output_of, variants};

const LINPACK: &str =
    include_str!("../../../../tests/fixtures/iblinkinfo/sb7700-edr-two-hosts-linpack-notes.txt");
const LAB: &str = include_str!(
    "../../../../tests/fixtures/iblinkinfo/leaf-switches-only-line-mode-ibsim-ncp-ain-lab.txt"
);

#[test]
fn line_ends_and_indentation_do_not_change_the_result() {
    for fixture in [LINPACK, LAB] {
        let expected = parse(output_of(fixture)).unwrap_or_else(|e| panic!("{e}"));
        for text in variants(fixture) {
            assert_eq!(parse(&text).ok().as_ref(), Some(&expected), "{text:?}");
        }
    }
}

#[test]
fn nodes_ports_and_peers() {
    let out = parse(output_of(LINPACK)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.nodes.len(), 3);
    let switch = &out.nodes[2];
    assert_eq!(switch.kind.as_deref(), Some("switch"));
    assert_eq!(switch.name.as_deref(), Some("MF0;SB7700:MSB7700/U1"));
    assert_eq!(switch.guid.as_deref(), Some("0x506b4b0300820910"));
    assert_eq!(switch.ports.len(), 18);
    let down = &switch.ports[0].link;
    assert_eq!(
        (down.state.as_str(), down.physical_state.as_str()),
        ("Down", "Polling")
    );
    assert!(down.remote.is_none() && down.width.is_none());
    let host = &out.nodes[0].ports[0];
    assert_eq!(host.guid.as_deref(), Some("0xec0d9a03003d62be"));
    assert_eq!(host.link.speed.as_deref(), Some("25.78125 Gbps"));
    let peer = host
        .link
        .remote
        .as_ref()
        .unwrap_or_else(|| panic!("no peer"));
    assert_eq!((peer.lid, peer.port), (2, 17));

    let lab = parse(output_of(LAB)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(lab.nodes.len(), 1);
    assert_eq!(lab.nodes[0].name.as_deref(), Some("hxa-su2-leaf-r2"));
    let up = &lab.nodes[0].ports[0].link;
    let peer = up.remote.as_ref().unwrap_or_else(|| panic!("no peer"));
    assert_eq!(peer.guid.as_deref(), Some("0x0000000000200000"));
    assert_eq!(
        peer.could_be.as_deref(),
        Some("Could be 12X Could be 10.0 Gbps")
    );
}

/// What one sample cannot show, from `print_port`'s formats: an FDR10 speed (`sprintf(speed,
/// "10.0 Gbps (FDR10)")`, in `%18s`), external port numbers (`[%2s]`), `-a`'s `(HOQ:%d
/// VL_Stall:%d)` after the link, `"Port not available"` for an up port whose peer was not
/// discovered, a `Router:` header and an `ibwarn` line.
#[test]
fn fdr10_external_ports_hoq_and_an_unavailable_peer() {
    let text = "\
Switch: 0x0002c903006e29b0 MF0;ys23ib4:SX6036/U1:
           2    1[ 1] ==( 4X  10.0 Gbps (FDR10) Active/  LinkUp) (HOQ:19 VL_Stall:7)==>       3    1[  ] \"dl380g7 mlx4_0\" ( )
           2    2[12] ==( 4X   14.0625 Gbps Active/  LinkUp)==>    \"Port not available\"
ibwarn: [4321] ibnd_discover_fabric: process_one_node failed
Router: gw01 mlx5_0:
      0x0002c903000e0b72      7    1[  ] ==( 4X   14.0625 Gbps Active/  LinkUp)==>       2    3[ 3] \"MF0;ys23ib4:SX6036/U1\" (Could be 10.0 Gbps (FDR10))
";
    let out = parse(text).unwrap_or_else(|e| panic!("{e}"));
    let fdr10 = &out.nodes[0].ports[0].link;
    assert_eq!(fdr10.speed.as_deref(), Some("10.0 Gbps (FDR10)"));
    assert_eq!(
        (fdr10.ext_port, fdr10.hoq_life, fdr10.vl_stall),
        (Some(1), Some(19), Some(7))
    );
    let unavailable = &out.nodes[0].ports[1].link;
    assert!(unavailable.remote_unavailable && unavailable.remote.is_none());
    assert_eq!(unavailable.ext_port, Some(12));
    assert_eq!(out.nodes[1].kind.as_deref(), Some("router"));
    let peer = out.nodes[1].ports[0].link.remote.as_ref();
    assert_eq!(peer.and_then(|p| p.ext_port), Some(3));
    assert_eq!(
        peer.and_then(|p| p.could_be.as_deref()),
        Some("Could be 10.0 Gbps (FDR10)")
    );
    assert_eq!(out.warnings.len(), 1);
    assert_eq!(out.warnings[0].line, 4);
}

#[test]
fn refusals() {
    for text in [
        "hello world\n",
        "ibwarn: [2001] mad_rpc_open_port: can't open UMAD port ((null):0)\n",
        "perfquery: iberror: failed: can't resolve destination port 99\n",
        // ibqueryerrors -r's link line.
        "       Link info:      4  34[  ] ==(                Down/ Polling)==>             [  ] \"\" ( )\n",
    ] {
        assert!(parse(text).is_err(), "{text:?}");
    }
    let error = parse("iblinkinfo: iberror: failed: discover failed\n")
        .ok()
        .and_then(|out| out.error);
    assert_eq!(error.map(|e| e.line), Some(1));
    let huge = output_of(LAB).replace(" 33[", " 99999999999999999999[");
    let error = parse(&huge).err().map(|e| e.message);
    assert_eq!(
        error.as_deref(),
        Some("port number `99999999999999999999` is out of range")
    );
}
