//! Variants of the published `ibv_rc_pingpong` transcripts (`tests/fixtures/ibv-rc-pingpong/`)
//! that one sample cannot show, built from the print formats of rdma-core's
//! `libibverbs/examples/rc_pingpong.c`.

use super::parse;
use crate::test_support::{output_of, variants};

const IB: &str =
    include_str!("../../../../tests/fixtures/ibv-rc-pingpong/ib-no-gid-openmpi-list.txt");
const ROCE: &str =
    include_str!("../../../../tests/fixtures/ibv-rc-pingpong/rxe-roce-client-linux-rdma-list.txt");
const HANG: &str =
    include_str!("../../../../tests/fixtures/ibv-rc-pingpong/rxe-client-hangs-softroce-issue.txt");

#[test]
fn line_ends_and_indentation_do_not_change_the_result() {
    for fixture in [IB, ROCE, HANG] {
        let expected = parse(output_of(fixture)).unwrap_or_else(|e| panic!("{e}"));
        for text in variants(fixture) {
            assert_eq!(parse(&text).ok().as_ref(), Some(&expected), "{text:?}");
        }
    }
}

#[test]
fn addresses_and_results() {
    let out = parse(output_of(ROCE)).unwrap_or_else(|e| panic!("{e}"));
    let local = out.local.unwrap_or_else(|| panic!("no local address"));
    assert_eq!((local.lid, local.qpn.as_str()), (0, "0x000011"));
    assert_eq!(local.gid.as_deref(), Some("::ffff:172.31.40.122"));
    assert_eq!(out.bytes, Some(8_192_000));
    assert_eq!(out.bandwidth_mbit_per_sec, Some(2192.72));
    assert_eq!((out.iters, out.usec_per_iter), (Some(1000), Some(29.89)));
    assert!(out.completed && out.error.is_none() && out.messages.is_empty());
    let ib = parse(output_of(IB)).unwrap_or_else(|e| panic!("{e}"));
    let remote = ib.remote.unwrap_or_else(|| panic!("no remote address"));
    assert_eq!((remote.lid, remote.gid), (0x5d, None));
    let hang = parse(output_of(HANG)).unwrap_or_else(|e| panic!("{e}"));
    assert!(!hang.completed && hang.iters.is_none() && hang.remote.is_some());
}

/// The tool's errors are data: `Failed status %s (%d) for wr_id %d` (with
/// `ibv_wc_status_str`'s words) after the addresses, `Failed to modify QP to RTR`, and an
/// output of error lines alone (`Couldn't connect to %s:%d`, the client with no server).
#[test]
fn the_tools_errors_are_data() {
    let text = format!(
        "{}Failed status transport retry counter exceeded (12) for wr_id 2\n",
        output_of(HANG)
    );
    let out = parse(&text).unwrap_or_else(|e| panic!("{e}"));
    let error = out.error.unwrap_or_else(|| panic!("no error"));
    assert_eq!((error.kind.as_str(), error.line), ("completion", 3));
    let rtr = parse(
        "  local address:  LID 0x0004, QPN 0x00019c, PSN 0x349c3a, GID fe80::5c25:7303:cf:eaa5\nFailed to modify QP to RTR\nCouldn't connect to remote QP\n",
    );
    let rtr = rtr.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(rtr.error.map(|e| e.kind).as_deref(), Some("qp_state"));
    assert_eq!(rtr.messages.len(), 1);
    let alone = parse("Couldn't connect to node02:18515\n").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        alone.error.map(|e| (e.kind, e.message)),
        Some((
            "connect".to_owned(),
            "Couldn't connect to node02:18515".to_owned()
        ))
    );
}

/// `-t` prints the receive completion clock cycles, `-c` a line per page that did not check;
/// a line the parser does not know (the shell's, a login banner) is a message.
#[test]
fn timestamps_checked_pages_and_messages() {
    let text = format!(
        "{}Max receive completion clock cycles = 1873\nMin receive completion clock cycles = 212\nAverage receive completion clock cycles = 300.250000\ninvalid data in page 1\nConnection to node02 closed.\n",
        output_of(ROCE)
    );
    let out = parse(&text).unwrap_or_else(|e| panic!("{e}"));
    let cycles = out.completion_cycles.unwrap_or_else(|| panic!("no cycles"));
    assert_eq!(
        (cycles.max, cycles.min, cycles.average),
        (Some(1873.0), Some(212.0), Some(300.25))
    );
    assert_eq!(out.invalid_pages, [1]);
    assert_eq!(out.messages.len(), 1);
    assert_eq!(out.messages[0].line, 9);
}

#[test]
fn refusals() {
    for text in [
        "hello world\n",
        "",
        // perftest's address line: no commas, no double blank.
        " local address: LID 0x04 QPN 0xba1c93 PSN 0xbb1ff7\n",
        // Legacy perftest's: the same shape, the LID in two digits.
        "  local address:  LID 0x02, QPN 0x70004b, PSN 0xc14da8\n",
        // An error-looking line among a stranger's lines is not this tool's failure.
        "Starting job\nCouldn't connect to node02:18515\n",
    ] {
        assert!(parse(text).is_err(), "{text:?}");
    }
    let huge = output_of(ROCE).replace("8192000 bytes", "99999999999999999999999 bytes");
    assert_eq!(
        parse(&huge).err().map(|e| e.message).as_deref(),
        Some("bytes `99999999999999999999999` is out of range")
    );
}
