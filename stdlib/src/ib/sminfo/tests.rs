//! Variants of the published `sminfo` outputs (`tests/fixtures/sminfo/`) that one sample
//! cannot show, from rdma-core's `infiniband-diags/sminfo.c` (its `statestr` names and
//! `IBEXIT("query")`) and libibmad's `IBWARN` in `mad_rpc`.

use super::parse;
use crate::test_support::{output_of, variants};

const LIST: &str =
    include_str!("../../../../tests/fixtures/sminfo/master-mthca-ofed-openmpi-list.txt");
const LAB: &str =
    include_str!("../../../../tests/fixtures/sminfo/failover-standby-master-ibsim-ncp-ain-lab.txt");

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
fn the_master_and_a_standby() {
    let out = parse(output_of(LAB)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        (out.lid, out.priority, out.state),
        (Some(16), Some(12), Some(3))
    );
    assert_eq!(out.guid.as_deref(), Some("0x100013"));
    assert!(out.master);
    let standby = output_of(LAB).replace("state 3 SMINFO_MASTER", "state 2 SMINFO_STANDBY");
    let out = parse(&standby).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.state_name.as_deref(), Some("SMINFO_STANDBY"));
    assert!(!out.master);
    let unknown = output_of(LAB).replace("state 3 SMINFO_MASTER", "state 7 ???");
    assert_eq!(parse(&unknown).ok().and_then(|o| o.state), Some(7));
}

/// No SM answers: libibmad warns on stderr, then sminfo exits with its own line.
#[test]
fn no_subnet_manager_is_the_tools_error() {
    let text = "ibwarn: [12345] mad_rpc: _do_madrpc failed; dport (Lid 0)\nsminfo: iberror: failed: query\n";
    let out = parse(text).unwrap_or_else(|e| panic!("{e}"));
    let error = out.error.unwrap_or_else(|| panic!("no error"));
    assert_eq!(
        (error.kind.as_str(), error.message.as_str(), error.line),
        ("iberror", "sminfo: iberror: failed: query", 2)
    );
    assert_eq!(out.lid, None);
    assert_eq!(out.warnings.len(), 1);
}

#[test]
fn refusals() {
    let twice = format!("{0}{0}", output_of(LAB));
    for text in [
        "hello world\n",
        "ibwarn: [12345] mad_rpc: _do_madrpc failed; dport (Lid 0)\n",
        "perfquery: iberror: failed: can't resolve destination port 99\n",
        "sminfo: sm lid 16\n",
        twice.as_str(),
    ] {
        assert!(parse(text).is_err(), "{text:?}");
    }
    let huge = output_of(LAB).replace("priority 12", "priority 300");
    assert_eq!(
        parse(&huge).err().map(|e| e.message).as_deref(),
        Some("priority `300` is out of range")
    );
}
