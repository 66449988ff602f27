//! `qos`: an adapter port's QoS settings, as the host's tools print them (a parser only): what a
//! lossless RoCE fabric needs of each host (trust state, PFC on the RoCE priority, the traffic
//! classes and their ETS shares).
//!
//! `mlnx_qos -i IFACE` is mlnx-tools' (MLNX_OFED and DOCA-OFED) `python/mlnx_qos`; the grammar is
//! `mlnx_qos.pest`.

mod parse;
mod types;

pub use types::{DscpToPriority, MlnxQos, PfcPriority, TrafficClass};

/// Parses `mlnx_qos -i IFACE [--trust ...|--pfc ...|...]` output (every setting command prints
/// the whole configuration after applying it).
///
/// Claims: output holding the tool's `PFC configuration:` table (its `priority` row of eight
/// columns and its `enabled` row), after only the lines mlnx_qos prints before it (`DCBX mode:`,
/// `Priority trust state:`, the `dscp2prio mapping:`, `Receive buffer size (bytes):`, `Cable
/// len:`, a line for each feature the device lacks) and followed only by its traffic classes;
/// or the tool's own failure lines alone (`ETS features are not supported on your system`, a
/// bad command line and its `Usage:` line), which are the result's `error`. Anything else is
/// refused, told the line mlnx_qos starts with.
pub fn parse(text: &str) -> Result<MlnxQos, crate::ParseError> {
    parse::parse(text)
}
