//! What an nccl-tests run proves of a fabric: the bus bandwidth at its largest size against what
//! the nodes' NICs should carry, and every row's data check.
//!
//! The expectation is NCCL's maintainers' rule of thumb: about 24 GB/s of bus bandwidth per
//! 200 Gb/s NIC, 12 per 100 Gb/s (NVIDIA/nccl-tests#119), so 0.12 GB/s per Gb/s of port rate,
//! times the NICs of a node; read at the largest size (`-e 8G`: "looking at the BusBW at a size
//! of 8G", NVIDIA/nccl#412), where the small sizes' latency no longer counts, which the `Avg bus
//! bandwidth` footer (a mean over every size) does not. On two nodes only a ring measures the
//! NICs (NCCL's other algorithms give figures beyond them, NVIDIA/nccl-tests#169): the launch
//! sets `NCCL_ALGO=Ring` there (`command.rs`).

use serde::Serialize;

use super::NcclTests;

/// GB/s of bus bandwidth a NIC carries per Gb/s of its port rate (24 GB/s at 200 Gb/s).
const BUSBW_PER_PORT_GBPS: f64 = 0.12;

/// The bus bandwidth, in GB/s, that `nics` NICs of `rate_gbps` each should carry.
pub(crate) fn expected_busbw(nics: usize, rate_gbps: f64) -> f64 {
    let nics = u32::try_from(nics).unwrap_or(u32::MAX);
    f64::from(nics) * rate_gbps * BUSBW_PER_PORT_GBPS
}

/// The verdict on one run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct NcclVerdict {
    pub(crate) ok: bool,
    /// The largest size's out-of-place bus bandwidth, GB/s; `null` when no row was printed.
    pub(crate) busbw_gbytes_sec: Option<f64>,
    /// That size, in bytes.
    pub(crate) at_bytes: Option<u64>,
    /// What the NICs should carry, GB/s.
    pub(crate) expected_gbytes_sec: f64,
    /// The least accepted: `expected × min_fraction`.
    pub(crate) least_gbytes_sec: f64,
    /// Every `#wrong` of the table, out-of-place and in-place, added up.
    pub(crate) wrong: u64,
    /// Older versions' `error` column: the largest data error of any row (0 when right).
    pub(crate) max_error: Option<f64>,
    /// Why the run failed, each in words; empty when it passed.
    pub(crate) failures: Vec<String>,
}

/// Judges `run` against `expected` GB/s: its largest size at least `min_fraction` of it, no
/// wrong element, the out-of-bounds check passed, and no failure of its own.
pub(crate) fn judge(run: &NcclTests, expected: f64, min_fraction: f64) -> NcclVerdict {
    let least = expected * min_fraction;
    let largest = run.results.iter().max_by_key(|row| row.size_bytes);
    let busbw = largest.map(|row| row.out_of_place.busbw_gbytes_sec);
    let wrong: u64 = run
        .results
        .iter()
        .flat_map(|row| [Some(&row.out_of_place), row.in_place.as_ref()])
        .flatten()
        .filter_map(|side| side.wrong)
        .sum();
    let max_error = run
        .results
        .iter()
        .flat_map(|row| [Some(&row.out_of_place), row.in_place.as_ref()])
        .flatten()
        .filter_map(|side| side.max_error)
        .reduce(f64::max);
    let mut failures = Vec::new();
    if let Some(error) = &run.error {
        failures.push(format!("the test failed: {}", error.message));
    }
    match (largest, busbw) {
        (Some(row), Some(busbw)) if busbw < least => failures.push(format!(
            "bus bandwidth {busbw:.2} GB/s at {} bytes is below {least:.2} GB/s ({:.0}% of the \
             {expected:.2} GB/s the NICs should carry)",
            row.size_bytes,
            min_fraction * 100.0
        )),
        (None, _) | (_, None) if run.error.is_none() => {
            failures.push("the test printed no result row".into());
        }
        _ => {}
    }
    if wrong > 0 {
        failures.push(format!("{wrong} elements failed the data check (#wrong)"));
    }
    if let Some(error) = max_error.filter(|e| *e > 0.0) {
        failures.push(format!(
            "the data check's largest error is {error:e}, not 0"
        ));
    }
    if run.out_of_bounds_ok == Some(false) {
        failures.push(format!(
            "out of bounds values: {} FAILED",
            run.out_of_bounds_values.unwrap_or(0)
        ));
    }
    NcclVerdict {
        ok: failures.is_empty(),
        busbw_gbytes_sec: busbw,
        at_bytes: largest.map(|row| row.size_bytes),
        expected_gbytes_sec: expected,
        least_gbytes_sec: least,
        wrong,
        max_error,
        failures,
    }
}

#[cfg(test)]
mod tests {
    use super::{expected_busbw, judge};

    const A3MEGA: &str =
        include_str!("../../../tests/fixtures/nccl-tests/a3mega-2x8-h100-all-reduce-8b-8g.txt");
    const OUT_OF_BOUNDS: &str = include_str!(
        "../../../tests/fixtures/nccl-tests/nccl-tests-issue-37-all-gather-4g-out-of-bounds.txt"
    );

    fn parsed(text: &str) -> crate::nccl::NcclTests {
        crate::nccl::parse(crate::test_support::output_of(text)).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn the_rule_of_thumb_is_24_gbytes_per_200g_nic() {
        assert!((expected_busbw(1, 200.0) - 24.0).abs() < 1e-9);
        assert!((expected_busbw(1, 100.0) - 12.0).abs() < 1e-9);
        assert!((expected_busbw(8, 400.0) - 384.0).abs() < 1e-9);
    }

    #[test]
    fn the_largest_size_is_judged_not_the_average() {
        let run = parsed(A3MEGA);
        // Eight 200G NICs a node: 192 GB/s; the 8 GiB row carries 338.82 (its average over
        // every size, 70.742, would have failed it).
        let passed = judge(&run, expected_busbw(8, 200.0), 0.9);
        assert!(passed.ok, "{:?}", passed.failures);
        assert_eq!(passed.at_bytes, Some(8_589_934_592));
        assert_eq!(passed.busbw_gbytes_sec, Some(338.82));
        // Against eight 400G NICs (384 GB/s) the same run falls short, in numbers.
        let short = judge(&run, expected_busbw(8, 400.0), 0.9);
        assert!(!short.ok);
        // One row's wrong elements fail it whatever its bandwidth.
        let wrong = parsed(&A3MEGA.replacen("338.82      0", "338.82      3", 1));
        let failed = judge(&wrong, expected_busbw(8, 200.0), 0.9);
        assert_eq!(
            failed.failures,
            ["3 elements failed the data check (#wrong)"]
        );
        assert_eq!(
            short.failures,
            [
                "bus bandwidth 338.82 GB/s at 8589934592 bytes is below 345.60 GB/s (90% of the \
              384.00 GB/s the NICs should carry)"
            ]
        );
    }

    #[test]
    fn a_data_error_and_out_of_bounds_values_fail_whatever_the_bandwidth() {
        let run = parsed(OUT_OF_BOUNDS);
        let verdict = judge(&run, 0.0, 0.0);
        assert_eq!(
            verdict.failures,
            [
                "the data check's largest error is 1e0, not 0",
                "out of bounds values: 2 FAILED"
            ]
        );
    }
}
