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
mod oversubscription;
mod parse;
mod port_state;
pub(crate) mod run;
pub(crate) mod sim;
mod types;

pub use types::{PerftestError, PerftestHeader, PerftestRow, PerftestRun, QpAddress};

/// Parses the output of one perftest run.
pub fn parse(text: &str) -> Result<PerftestRun, crate::ParseError> {
    parse::parse(text)
}

/// The namespace the builtins are registered under, and so the first half of the name each
/// journals its actions under (`perftest::name`).
pub(crate) const NAMESPACE: &str = "perftest";

/// Registers the `perftest::` builtins: `perftest::send_bw`, `write_bw`, `read_bw`,
/// `send_lat`, `write_lat`, `read_lat` (server, client, options) and `perftest::matrix`.
pub fn install(engine: &mut rhai::Engine) {
    static MODULE: std::sync::OnceLock<rhai::Shared<rhai::Module>> = std::sync::OnceLock::new();
    let module = MODULE
        .get_or_init(|| rhai::Shared::new(rhai::exported_module!(builtins::perftest_builtins)))
        .clone();
    for declared in command::PAIR_OPTIONS
        .iter()
        .chain([&command::MATRIX_OPTIONS])
    {
        cairn_runtime::declare_options(declared);
    }
    engine.register_static_module(NAMESPACE, module);
}

#[cfg(test)]
mod tests;
