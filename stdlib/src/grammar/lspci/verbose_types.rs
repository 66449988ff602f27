//! The typed result of `lspci -vv` / `-vvv`.

use serde::Serialize;

use super::types::PciDevice;
use crate::grammar::Message;

/// Every function `lspci -vv` printed, with the details the runbooks read.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LspciVerbose {
    /// The functions, in output order.
    pub devices: Vec<PciFunction>,
    /// Unindented lines that are not a function (`pcilib: ...` warnings), with their lines.
    pub messages: Vec<Message>,
}

/// One function's block.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PciFunction {
    /// The function's line, read as `lspci` reads it (address, class, vendor, device, model,
    /// revision).
    #[serde(flatten)]
    pub device: PciDevice,
    /// The line number of the function's line, from 1.
    pub line: usize,
    /// `Subsystem:` (the board's vendor and name).
    pub subsystem: Option<String>,
    /// `NUMA node:`.
    pub numa_node: Option<u32>,
    /// `LnkCap:` of the `Express` capability: what the device can do.
    pub link_capability: Option<PcieLink>,
    /// `LnkSta:`: what the link trained at.
    pub link_status: Option<PcieLink>,
    /// The `Vital Product Data` capability.
    pub vpd: Option<Vpd>,
    /// `Kernel driver in use:`.
    pub driver: Option<String>,
    /// `Kernel modules:`.
    pub modules: Vec<String>,
    /// Every `Capabilities:` title (`[48] Vital Product Data`), in order.
    pub capabilities: Vec<String>,
    /// A bridge's `Bus: primary=16, secondary=17, subordinate=1c`: the buses behind it.
    pub bridge_buses: Option<BridgeBuses>,
    /// The `Access Control Services` capability's `ACSCtl:` flags that are on (`SrcValid`,
    /// `ReqRedir`, ...), as pciutils' `ls-ecaps.c` prints them with `+`; `[]` when every flag is
    /// off; `null` without the capability.
    pub acs_control: Option<Vec<String>>,
}

/// A bridge's bus numbers (hexadecimal in the output).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct BridgeBuses {
    /// The bus the bridge is on.
    pub primary: u8,
    /// The bus right behind it.
    pub secondary: u8,
    /// The highest bus behind it: a function on a bus from `secondary` to `subordinate` is
    /// behind this bridge.
    pub subordinate: u8,
}

/// `Port #8, Speed 8GT/s, Width x8, ...` or `Speed 32GT/s (ok), Width x16 (ok)`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PcieLink {
    /// `Port #N` (`LnkCap` only).
    pub port: Option<u32>,
    /// The speed as printed (`8GT/s`, `2.5GT/s`).
    pub speed: Option<String>,
    /// The lanes of `Width xN`.
    pub lanes: Option<u32>,
    /// `LnkSta` marked the speed or width `(downgraded)`.
    pub downgraded: bool,
}

/// The `Vital Product Data` capability (pciutils `ls-vpd.c`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Vpd {
    /// `Product Name:`, trailing padding removed.
    pub product_name: Option<String>,
    /// `[PN] Part number:`.
    pub part_number: Option<String>,
    /// `[SN] Serial number:`.
    pub serial_number: Option<String>,
    /// Every `[KW] name: value` field, in order.
    pub fields: Vec<VpdField>,
    /// False when lspci printed `Not readable` (as without root).
    pub readable: bool,
}

/// `[EC] Engineering changes: AC`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct VpdField {
    /// `EC`.
    pub keyword: String,
    /// `Engineering changes`.
    pub name: String,
    /// `AC`, the padding lspci prints after it removed.
    pub value: String,
    /// Under `Read-only fields:` (else `Read/write fields:`).
    pub read_only: bool,
}
