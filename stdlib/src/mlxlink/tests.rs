//! Variants of the published mlxlink outputs (`tests/fixtures/mlxlink/`) that one sample
//! cannot show.

use super::parse;
use crate::test_support::output_of;

const HDR: &str =
    include_str!("../../../tests/fixtures/mlxlink/cx6-hdr-ib-ber-monitor-unsupported.txt");
const SPECTRUM: &str =
    include_str!("../../../tests/fixtures/mlxlink/spectrum-25g-sonic-nvidia-docs.txt");

/// `-c`'s section, made of the lines the same published log greps out of `mlxlink
/// --show_counters` on the same adapter (`Symbol BER : 15E-255` and per-lane raw errors).
const COUNTERS: &str = "
Physical Counters and BER Info
------------------------------
Symbol Errors                   : 0
Symbol BER                      : 15E-255
Effective Physical Errors       : 0
Effective Physical BER          : 15E-255
Raw Physical Errors Per Lane    : 3183333,242074
Raw Physical BER                : 1E-8
Link Error Recovery Counter     : 0
";

#[test]
fn counters_are_numbers_and_bers_as_printed() {
    let text = format!("{}{COUNTERS}", output_of(HDR));
    let out = parse(&text).unwrap_or_else(|e| panic!("{e}"));
    let counters = out.counters.unwrap_or_else(|| panic!("no counters"));
    assert_eq!(counters.raw_physical_errors_per_lane, [3_183_333, 242_074]);
    assert_eq!(counters.effective_physical_errors, Some(0));
    assert_eq!(counters.symbol_ber.as_deref(), Some("15E-255"));
    assert_eq!(counters.raw_physical_ber.as_deref(), Some("1E-8"));
    assert_eq!(counters.link_error_recovery_counter, Some(0));
    assert_eq!(counters.link_down_counter, None);
    // The error printed before the section is still read.
    assert_eq!(out.errors.len(), 1);
}

#[test]
fn a_lane_count_that_does_not_fit_points_at_the_lane() {
    let text = format!(
        "{}{}",
        output_of(HDR),
        COUNTERS.replace("3183333,242074", "3183333,99999999999999999999999")
    );
    let error = parse(&text).err().map(|e| (e.message, e.span.offset()));
    let lane = text.find("99999999999999999999999").unwrap_or_default();
    assert_eq!(
        error,
        Some((
            "lane error count `99999999999999999999999` is out of range".to_owned(),
            lane
        ))
    );
}

/// On Linux mlxlink switches colours around an error and a coloured value
/// (`MlxlinkRecord::changeColorOS`: `ESC[31m` then a line of one space; the reset at the start of
/// the next line); a terminal capture keeps the switches.
#[test]
fn colour_switches_of_a_terminal_capture_are_read_past() {
    let plain = parse(output_of(HDR)).unwrap_or_else(|e| panic!("{e}"));
    let coloured = output_of(HDR)
        .replacen(" \n-E-", "\u{1b}[31m \n-E-", 1)
        .replacen("HCA\n \n", "HCA\n\u{1b}[0m \n", 1)
        .replacen(": Active\n", ": \u{1b}[32mActive\n\u{1b}[0m", 1);
    assert_ne!(coloured, output_of(HDR));
    assert_eq!(parse(&coloured).ok(), Some(plain));
}

#[test]
fn an_older_mft_prints_no_tool_information() {
    let out = parse(output_of(SPECTRUM)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.tool, None);
    assert_eq!(out.operational.fec.as_deref(), Some("Firecode FEC"));
    assert_eq!(out.sections.len(), 3);
}

#[test]
fn a_loop_over_devices_is_one_output_per_capture() {
    let text = format!("{}{}", output_of(SPECTRUM), output_of(SPECTRUM));
    let error = parse(&text).err().map(|e| e.message);
    assert_eq!(
        error.as_deref(),
        Some("a second `Operational Info` section: one mlxlink output per capture")
    );
}

#[test]
fn a_speed_mask_of_another_shape_is_an_error_at_it() {
    let text = output_of(SPECTRUM).replace("0x38000000 (25G)", "25G");
    let error = parse(&text).err().map(|e| e.message);
    assert_eq!(
        error.as_deref(),
        Some("expected a speed mask and its speeds, `0x0000003f (EDR,FDR,...)`")
    );
}

#[test]
fn other_output_is_refused() {
    // An mlxfwmanager device block has a title over dashes and `label: value` lines too.
    let mlxfwmanager = "Device #1:\n----------\n\n  Device Type:      ConnectX5\n  PSID:             MT_0000000008\n";
    assert!(parse(mlxfwmanager).is_err());
    // mlxlink's sections without `Operational Info`, or its error alone, are not a port query.
    let tail = output_of(HDR)
        .split_once("\nSupported Info")
        .map(|(_, rest)| format!("Supported Info{rest}"))
        .unwrap_or_default();
    assert!(parse(&tail).is_err());
    assert!(parse("-E- \"--show_ber_monitor\" option is not supported for HCA\n").is_err());
    assert!(parse("hello world\n").is_err());
    assert!(parse("").is_err());
}

#[test]
fn the_error_line_keeps_its_words() {
    let out = parse(output_of(HDR)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        out.errors,
        ["\"--show_ber_monitor\" option is not supported for HCA"]
    );
    let coloured = output_of(HDR).replacen("-E-", "\u{1b}[31m-E-", 1);
    assert_eq!(parse(&coloured).ok().map(|o| o.errors), Some(out.errors));
}
