//! Variants of the published ibdiagnet console outputs (`tests/fixtures/ibdiagnet-summary/`)
//! that one sample cannot show.

use super::parse;
use crate::test_support::{output_of, variants};

const UFM: &str = include_str!(
    "../../../../tests/fixtures/ibdiagnet-summary/ar-dump-fabric-summary-ufm-recipe.txt"
);
const IBUTILS: &str = include_str!(
    "../../../../tests/fixtures/ibdiagnet-summary/ibutils-1.5.7-two-hosts-archwiki.txt"
);

#[test]
fn line_ends_and_indentation_do_not_change_the_result() {
    for fixture in [UFM, IBUTILS] {
        let expected = parse(output_of(fixture)).unwrap_or_else(|e| panic!("{e}"));
        for text in variants(fixture) {
            assert_eq!(parse(&text).ok().as_ref(), Some(&expected), "{text:?}");
        }
    }
}

#[test]
fn stages_in_either_column_order_and_the_fabric() {
    let out = parse(output_of(UFM)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.format, "ibdiagnet2");
    assert_eq!(out.stages.len(), 3);
    assert_eq!((out.stages[0].warnings, out.stages[0].errors), (3, 0));
    assert_eq!((out.warnings, out.errors), (3, 0));
    let fabric = out.fabric.unwrap_or_else(|| panic!("no fabric"));
    assert_eq!(
        (fabric.total_nodes, fabric.switches, fabric.channel_adapters),
        (Some(15), Some(3), Some(9))
    );
    assert_eq!(out.messages.len(), 1);
    let old = parse(output_of(IBUTILS)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(old.format, "ibdiagnet1");
    assert_eq!(old.stages.len(), 8);
    let ipoib = &old.stages[7];
    assert_eq!(
        (ipoib.name.as_str(), ipoib.errors, ipoib.warnings),
        ("IPoIB Subnets Check", 0, 1)
    );
    assert_eq!(old.log_file.as_deref(), Some("/tmp/ibdiagnet.log"));
}

/// ibdiagnet2's table with longer stage names (`Speed / Width checks`, from the same tool's
/// published table shape), a comment, errors, and the log line that follows it; and the
/// `Fabric Summary` of a SHARP run (the same recipe's `--sharp` capture) with its
/// aggregation lines and no stage table.
#[test]
fn comments_errors_the_log_line_and_a_sharp_fabric() {
    let text = "\
Summary
-I- Stage                     Warnings   Errors     Comment
-I- Speed / Width checks      0          15         See ibdiagnet2.log
-I- Nodes Information         16         0

-I- You can find detailed errors/warnings in: /var/tmp/ibdiagnet2/ibdiagnet2.log
";
    let out = parse(text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.stages[0].name, "Speed / Width checks");
    assert_eq!(out.stages[0].errors, 15);
    assert_eq!(out.stages[0].comment.as_deref(), Some("See ibdiagnet2.log"));
    assert_eq!((out.errors, out.warnings), (15, 16));
    assert_eq!(
        out.log_file.as_deref(),
        Some("/var/tmp/ibdiagnet2/ibdiagnet2.log")
    );
    let sharp = "\
-I- SHARP check trees finished successfully

---------------------------------------------
Fabric Summary

Total Nodes             : 24
IB Switches             : 4
IB Channel Adapters     : 16
IB Aggregation Nodes    : 4
IB Routers              : 0

Number of aggregation nodes version 1: 4
Number of LL aggregation trees: 2
Unique job IDs: 1024
";
    let out = parse(sharp).unwrap_or_else(|e| panic!("{e}"));
    let fabric = out.fabric.unwrap_or_else(|| panic!("no fabric"));
    assert_eq!(fabric.aggregation_nodes, Some(4));
    assert_eq!(
        fabric
            .other
            .get("Number of LL aggregation trees")
            .map(String::as_str),
        Some("2")
    );
    assert!(out.stages.is_empty());
}

#[test]
fn refusals() {
    for text in [
        "hello world\n",
        "-I- Discovering ... 2 nodes (0 Switches & 2 CA-s) discovered.\n-W- Topology file is not specified.\n",
        "Summary\nnothing here\n",
    ] {
        assert!(parse(text).is_err(), "{text:?}");
    }
    let huge = output_of(UFM).replace(
        "Total Nodes             : 15",
        "Total Nodes             : 99999999999999999999999",
    );
    assert_eq!(
        parse(&huge).err().map(|e| e.message).as_deref(),
        Some("Total Nodes `99999999999999999999999` is out of range")
    );
}
