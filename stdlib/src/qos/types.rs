//! The typed result of `mlnx_qos -i IFACE`.

use serde::{Deserialize, Serialize};

use crate::grammar::{Message, ToolError};

/// An interface's QoS settings as `mlnx_qos` prints them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MlnxQos {
    /// The tool's warning without its stars (`WARNING: lldpad service is running and may
    /// overwrite your settings`); `null` when not printed.
    pub warning: Option<String>,
    /// `DCBX mode:`: `OS controlled` or `Firmware controlled`.
    pub dcbx_mode: Option<String>,
    /// `Priority trust state:`: `pcp` or `dscp`.
    pub trust_state: Option<String>,
    /// `dscp2prio mapping:` (trust `dscp`): each priority with its DSCP values in printed order;
    /// `[]` when not printed.
    pub dscp2prio: Vec<DscpToPriority>,
    /// `Receive buffer size (bytes):`: the eight receive buffers' sizes; `null` when not printed.
    pub receive_buffer_size_bytes: Option<Vec<u64>>,
    /// `max_buffer_size=`: the device's total receive buffer in bytes.
    pub max_buffer_size_bytes: Option<u64>,
    /// `Cable len:` in meters.
    pub cable_len: Option<u32>,
    /// `PFC configuration:`: one entry per priority column.
    pub pfc: Vec<PfcPriority>,
    /// The traffic classes, in printed order.
    pub tcs: Vec<TrafficClass>,
    /// The features the device lacks, printed before the configuration (`Rate limit is not
    /// supported on your system!`), with their line numbers; `[]` when none.
    pub notices: Vec<Message>,
    /// The tool's own failure instead of the configuration: kind `unsupported` (`ETS features
    /// are not supported on your system`, or a lacking feature the command needed), `usage`,
    /// `failed` (a setting the device refused), `permission` (not root); the line as printed
    /// and its number.
    pub error: Option<ToolError>,
}

/// The DSCP values one priority takes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DscpToPriority {
    /// The priority (`prio:3`).
    pub prio: u8,
    /// Its DSCP values, from every `prio:N dscp:` line of it.
    pub dscp: Vec<u8>,
}

/// One priority of the PFC table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PfcPriority {
    /// The column's priority.
    pub priority: u8,
    /// `enabled` is `1`: pause frames are honoured and sent for this priority (lossless).
    pub enabled: bool,
    /// The `buffer` row: the receive buffer the priority maps to; `null` without the row.
    pub buffer: Option<u8>,
}

/// One traffic class and the priorities mapped to it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrafficClass {
    /// `tc:`.
    pub tc: u8,
    /// `ratelimit:` in Gb/s; `null` for `unlimited`.
    pub ratelimit_gbps: Option<f64>,
    /// `tsa:`: `ets`, `strict`, `vendor` or `unknown`; `null` when not printed.
    pub tsa: Option<String>,
    /// `bw:` for an ETS class, in percent.
    pub bw_percent: Option<u8>,
    /// The ` priority:` lines under it.
    pub priorities: Vec<u8>,
}
