//! Unit tests of the nccl-tests parser: what one published output cannot show.

use super::parse;

const A3MEGA: &str =
    include_str!("../../../tests/fixtures/nccl-tests/a3mega-2x8-h100-all-reduce-8b-8g.txt");

fn a3mega() -> &'static str {
    crate::test_support::output_of(A3MEGA)
}

#[test]
fn line_ends_and_indentation_do_not_change_the_result() {
    let expected = parse(a3mega());
    assert!(expected.is_ok());
    for text in crate::test_support::variants(A3MEGA) {
        assert_eq!(
            parse(&text).ok(),
            expected.as_ref().ok().cloned(),
            "{text:?}"
        );
    }
}

/// The newest nccl-tests prints its version, the test's name before and after, and `unalign:`
/// (the lines NVIDIA/dgx-spark-playbooks#103 quotes from nccl-tests 2.20.0).
#[test]
fn version_collective_lines_and_unalign() {
    let text = a3mega()
        .replace(
            "# nThread 1 nGpus 1 minBytes 8 maxBytes 8589934592 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0\n",
            "# nccl-tests version 2.20.0 (b4d5bee) nccl-headers=23102 nccl-library=23102\n\
             # Collective test starting: all_reduce_perf\n\
             # nThread 1 nGpus 1 minBytes 8192 maxBytes 8589934592 step: 2(factor) warmup iters: 10 iters: 100 agg iters: 1 validation: 1 graph: 0 unalign: 0\n",
        )
        + "#\n# Collective test concluded: all_reduce_perf\n";
    let run = parse(&text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(run.version.as_deref(), Some("2.20.0"));
    assert_eq!(run.test.as_deref(), Some("all_reduce_perf"));
    let settings = run.settings.unwrap_or_else(|| panic!("no settings"));
    assert_eq!(settings.unalign, Some(0));
    assert_eq!(settings.warmup_iters, 10);
    assert_eq!(settings.iters, 100);
    assert_eq!(settings.min_bytes, 8192);
    assert!(run.messages.is_empty(), "{:?}", run.messages);
}

/// NCCL's own lines among the test's: `NCCL INFO` lines are messages, `NCCL WARN` lines
/// warnings (the lines of NVIDIA/nccl-tests#131), a launcher's `--tag-output` prefix is dropped
/// (aws/aws-k8s-tester#503), and the test's failure lines (`src/common.h`) are its error, after
/// the table titles (as NVIDIA/nccl-tests issues publish them: `GENOA-06: Test NCCL failure
/// common.cu:392 ...` and its `Test failure` trail).
#[test]
fn nccl_warnings_tagged_lines_and_the_tests_failure() {
    let head: String = a3mega()
        .lines()
        .take(22)
        .map(|l| format!("[1,0]<stdout>:{l}\n"))
        .collect();
    let text = format!(
        "Meowth:8756:8756 [0] NCCL INFO Bootstrap : Using eth0:192.168.0.183<0>\n\
         \n\
         Meowth:8756:8772 [1] graph/search.cc:890 NCCL WARN Could not find a path for pattern 4, falling back to simple order\n\
         {head}\
         GENOA-06: Test NCCL failure common.cu:392 'unhandled cuda error (run with NCCL_DEBUG=INFO for details) / '\n \
         .. GENOA-06 pid 5068: Test failure common.cu:590\n"
    );
    let run = parse(&text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(run.devices.len(), 16);
    assert!(run.results.is_empty());
    assert_eq!(run.warnings.len(), 1);
    assert_eq!(run.warnings[0].line, 3);
    assert_eq!(run.messages[0].line, 1);
    let error = run.error.unwrap_or_else(|| panic!("no error"));
    assert_eq!(error.kind, "nccl");
    assert_eq!(error.line, 26);
    assert!(
        error
            .message
            .starts_with("GENOA-06: Test NCCL failure common.cu:392")
    );
    assert_eq!(run.messages.last().map(|m| m.line), Some(27));
}

/// Older nccl-tests: a rank line without `Group` and with a bus id (`[0x01]`), no `agg iters`
/// nor `graph` (the shapes NVIDIA/nccl-tests#107 and #131 publish); `#wrong` as `N/A` when the
/// data is not checked (`-c 0`).
#[test]
fn older_rank_lines_settings_and_unchecked_rows() {
    let text = "# nThread 1 nGpus 1 minBytes 1310720000 maxBytes 1310720000 step: 1048576(bytes) warmup iters: 5 iters: 20 validation: 1\n\
                #\n\
                # Using devices\n\
                #   Rank  0 Pid   1320 on ip-172-31-20-228 device  0 [0x00] Tesla V100-SXM2-16GB\n\
                #\n\
                #       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n\
                  1310720000     327680000     float     sum      -1   1310.2  1000.37 1000.37    N/A   1309.9  1000.60 1000.60    N/A\n";
    let run = parse(text).unwrap_or_else(|e| panic!("{e}"));
    let settings = run.settings.unwrap_or_else(|| panic!("no settings"));
    assert_eq!(settings.step, 1_048_576);
    assert_eq!(settings.step_kind, "bytes");
    assert_eq!(settings.agg_iters, None);
    assert_eq!(settings.graph, None);
    assert_eq!(run.devices[0].group, None);
    assert_eq!(run.devices[0].pci, "0x00");
    assert_eq!(run.devices[0].name, "Tesla V100-SXM2-16GB");
    assert_eq!(run.results[0].out_of_place.wrong, None);
    assert_eq!(run.results[0].root, Some(-1));
}

#[test]
fn a_row_missing_a_cell_is_refused_at_the_row_and_a_stranger_is_refused() {
    let broken = a3mega().replace(
        "     1048576        262144     float     sum      -1    203.2    5.16    9.68      0    207.2    5.06    9.49      0",
        "     1048576        262144     float     sum      -1    203.2    5.16    9.68      0    207.2    5.06    9.49",
    );
    let error = parse(&broken).err();
    assert_eq!(
        error.as_ref().map(|e| e.message.as_str()),
        Some("a size row of 12 cells where the table has 13")
    );
    assert_eq!(error.map(|e| e.span.offset()), broken.find("     1048576"));
    let not_a_number = a3mega().replace("  135.8    0.00", "  135.x    0.00");
    assert!(parse(&not_a_number).is_err());
    assert!(parse("hello world\n").is_err());
    assert!(parse("").is_err());
    assert!(parse("Meowth:8756:8756 [0] NCCL INFO Bootstrap : Using eth0\n").is_err());
}
