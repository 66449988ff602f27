//! perftest: `ib_send_bw`, `ib_write_bw`, `ib_read_bw`, `ib_atomic_bw`, the matching `_lat`
//! tools and `raw_ethernet_*`, client and server side.
//!
//! Reads the banner settings, the local and remote queue pair addresses (with RoCE GIDs), the
//! results table in every layout perftest prints (Gb/s with `--report_gbits`, MB/s or MiB/s
//! without, `-a` sweeps or one size, latency tables with or without percentiles, `-D`
//! duration tables, warnings inside the table), the legacy 1.x layout, and perftest's error
//! output, which becomes a typed [`PerftestError`] rather than a parse failure. The grammar is
//! `perftest.pest`.

pub mod builtins;
pub(crate) mod command;
pub(crate) mod gid;
mod measurement;
mod oversubscription;
mod parse;
mod port_state;
pub(crate) mod programs;
pub(crate) mod run;
pub(crate) mod sim;
mod sim_figures;
mod sim_served;
mod types;

pub use types::{PairedRun, PerftestError, PerftestHeader, PerftestRow, PerftestRun, QpAddress};

/// Parses the output of one perftest run.
///
/// Claims: its banner (a `... BW Test` / `... Latency Test` title), or, without one, an error
/// line with a line of perftest's own (the server's box, a set-up line, an error only perftest
/// prints); only then are other lines messages. Anything else is refused.
pub fn parse(text: &str) -> Result<PerftestRun, crate::ParseError> {
    parse::parse(text)
}

/// The namespace the builtins are registered under, and so the first half of the name each
/// journals its actions under (`perftest::name`).
pub(crate) const NAMESPACE: &str = "perftest";

#[cfg(test)]
mod tests;
