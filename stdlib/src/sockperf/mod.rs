//! sockperf: the server's start-up lines and the ping-pong client's latency summary
//! (average, standard deviation, message counters, percentiles), with the libvma banner when
//! sockperf runs under `LD_PRELOAD=libvma.so`.
//!
//! The grammar (`sockperf.pest`) reads a stream of prefixed items rather than lines, because
//! sockperf's stdout and stderr interleave within lines and published copies run whole
//! outputs together on one line.

pub mod builtins;
pub(crate) mod command;
mod parse;
pub(crate) mod sim;
mod types;

pub use types::{
    Percentile, RunCounters, SockperfAddress, SockperfOutput, VmaBanner, VmaParameter,
};

/// Parses sockperf output.
pub fn parse(text: &str) -> Result<SockperfOutput, crate::ParseError> {
    parse::parse(text)
}

/// The namespace the builtins are registered under, and so the first half of the name each
/// journals its actions under (`sockperf::name`).
pub(crate) const NAMESPACE: &str = "sockperf";

/// Registers the `sockperf::` builtins: `sockperf::ping_pong(server, client, #{...})`.
pub fn install(engine: &mut rhai::Engine) {
    static MODULE: std::sync::OnceLock<rhai::Shared<rhai::Module>> = std::sync::OnceLock::new();
    let module = MODULE
        .get_or_init(|| rhai::Shared::new(rhai::exported_module!(builtins::sockperf_builtins)))
        .clone();
    cairn_runtime::declare_options(&builtins::PING_PONG_OPTIONS);
    engine.register_static_module(NAMESPACE, module);
}
