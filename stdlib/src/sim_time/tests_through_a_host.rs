//! The duration options through a simulated host: the clock advances by the option's time
//! when the operation happens, not when nothing changes, and a bad value stops the host opening.

use std::collections::BTreeMap;
use std::sync::Arc;

use cairn_runtime::sim::SimTransport;
use cairn_runtime::{ExecRequest, Transport};

fn esx(dir: &std::path::Path, extra: &[(&str, &str)]) -> Result<SimTransport, String> {
    let mut options = BTreeMap::from([("clock".to_owned(), "virtual".to_owned())]);
    for (k, v) in extra {
        options.insert((*k).to_owned(), (*v).to_owned());
    }
    let model = Arc::new(crate::models::esxi7::esxi7());
    SimTransport::new("esx01", dir, model, options).map_err(|e| e.to_string())
}

fn millis_after(host: &mut SimTransport, argv: &[&str]) -> u64 {
    let before = host.clock().now_millis();
    let out = host
        .exec(&ExecRequest::new(argv.iter().copied()))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.code, 0, "{}", out.stderr);
    host.clock().now_millis() - before
}

const INSTALL: [&str; 7] = [
    "esxcli",
    "software",
    "vib",
    "install",
    "-v",
    "/n/mft-4.22.1.11-10EM-703.0.0.18644231.x86_64.vib",
    "-f",
];

#[test]
fn a_vib_install_takes_its_time_once_and_a_no_op_install_none() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let mut host = esx(dir.path(), &[("vib_install_secs", "60")]).unwrap_or_else(|e| panic!("{e}"));
    let mut dry = INSTALL.to_vec();
    dry.push("--dry-run");
    assert_eq!(millis_after(&mut host, &dry), 0);
    assert_eq!(millis_after(&mut host, &INSTALL), 60_000);
    assert_eq!(millis_after(&mut host, &INSTALL), 0, "Host is not changed");
}

#[test]
fn without_the_option_an_install_takes_no_time() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let mut host = esx(dir.path(), &[]).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(millis_after(&mut host, &INSTALL), 0);
}

#[test]
fn a_bad_duration_stops_the_host_opening_with_the_option_named() {
    for (key, bad) in [("vib_install_secs", "-5"), ("fw_burn_secs", "soon")] {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let Err(message) = esx(dir.path(), &[(key, bad)]) else {
            panic!("{key}={bad} was accepted");
        };
        assert!(message.contains(key), "{message}");
    }
}
