//! The typed results of `mlxconfig query` and `mlxconfig set`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// What `mlxconfig [-e] query` printed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MlxconfigQuery {
    /// One entry per `Device #N:` block (or one without a number when the output is a bare
    /// `Configurations:` block, as a query of named parameters prints).
    pub devices: Vec<QueryDevice>,
    /// The tool's messages printed outside any device block.
    #[serde(flatten)]
    pub messages: Messages,
}

/// One `Device #N:` block of `mlxconfig query`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QueryDevice {
    /// The header fields of the block.
    #[serde(flatten)]
    pub header: DeviceHeader,
    /// `Configurations:`: one entry per parameter line, in the order printed.
    pub configurations: Vec<Parameter>,
    /// The messages printed inside the block, such as
    /// `-E- Failed to query device current configuration`.
    #[serde(flatten)]
    pub messages: Messages,
}

/// The header fields of a `Device #N:` block.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DeviceHeader {
    /// N of `Device #N:`; absent for a bare `Configurations:` block.
    pub number: Option<u32>,
    /// `Device type:` (`ConnectX5`).
    pub device_type: Option<String>,
    /// `Name:`: the part number (`MCX555A-ECA_Ax_Bx`), `N/A` on some hosts.
    pub name: Option<String>,
    /// `Description:`: the product description.
    pub description: Option<String>,
    /// `Device:`: the device the tool opened (`/dev/mst/mt4119_pciconf0`).
    pub device: Option<String>,
    /// Any other header field, by its label.
    pub other: BTreeMap<String, String>,
}

/// One parameter line of `mlxconfig query`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Parameter {
    /// The parameter's name: `LINK_TYPE_P1`, `ESWITCH_HAIRPIN_DESCRIPTORS[0]`.
    pub name: String,
    /// True when `-e` printed `*` before it: the next-boot value differs from the default or
    /// the current one.
    pub modified: bool,
    /// The `Default` column (`-e` only).
    pub default: Option<ConfigValue>,
    /// The `Current` column (`-e` only, or older tools that print `Current` alone).
    pub current: Option<ConfigValue>,
    /// The `Next Boot` column: what the firmware will use after the next reboot.
    pub next_boot: Option<ConfigValue>,
}

/// One value cell, as `mlxconfig` prints it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConfigValue {
    /// The cell as printed: `IB(1)`, `True(1)`, `0`, `Array[0..7]`.
    pub text: String,
    /// The label of `LABEL(N)` (`IB`, `True`, `_256KB`); absent for a plain value.
    pub label: Option<String>,
    /// N of `LABEL(N)`, or the value itself when it is a plain decimal number; absent for
    /// other texts such as `Array[0..7]`.
    pub number: Option<u64>,
}

/// The `-E-`, `-W-` and `-I-` lines, without their prefix.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Messages {
    /// `-E-` lines: errors.
    pub errors: Vec<String>,
    /// `-W-` lines: warnings.
    pub warnings: Vec<String>,
    /// `-I-` lines: information, such as the reboot notice.
    pub info: Vec<String>,
}

/// `mlxconfig::query`'s result: the device's block, and its parameters by name. It is
/// journaled as this type and a replayed one is read back into it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DeviceQuery {
    /// The `Device #N:` block as printed.
    #[serde(flatten)]
    pub device: QueryDevice,
    /// Each parameter of `configurations` by its name.
    pub params: BTreeMap<String, ParamValues>,
    /// True in check mode on a host where MFT is not installed yet: nothing was queried.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub predicted: bool,
    /// With `predicted`: what a value of `params` would read, had it been asked for
    /// (`unknown until MFT is installed`), so a check prints that instead of a blank.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unknown: Option<String>,
}

/// One parameter's values in [`DeviceQuery::params`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ParamValues {
    /// The `Default` column.
    pub default: Option<ConfigValue>,
    /// The `Current` column.
    pub current: Option<ConfigValue>,
    /// The `Next Boot` column.
    pub next_boot: Option<ConfigValue>,
    /// `*` before it: the next-boot value differs from the default or the current one.
    pub modified: bool,
}

/// What `mlxconfig [-y] set KEY=VALUE...` printed. The device's fields are those of the
/// first device's output; an admin's loop over devices prints one output per device, each
/// starting again at `Device #1:`, and `devices` holds every one of them (the first too). The
/// outcome fields read the whole output: `applied` only when every device applied, `error` the
/// first error of any device, `reboot_required` when any asked for it, and every message.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MlxconfigSet {
    /// The header fields of the `Device #1:` block.
    #[serde(flatten)]
    pub header: DeviceHeader,
    /// `Configurations:  Next Boot  New`: one entry per parameter being set.
    pub configurations: Vec<SetParameter>,
    /// The answer after `Apply new Configuration? (y/n) [n] :` (`y`, also printed under `-y`).
    pub answer: Option<String>,
    /// What followed `Applying...` (`Done!`); absent when the tool did not apply.
    pub applying: Option<String>,
    /// True when the answer was yes and the tool printed `Applying... Done!`: the values are
    /// staged. An answer of `n` (or none) applies nothing (`-E- Aborted by user.`).
    pub applied: bool,
    /// The tool's own error: the first `-E-` line (`aborted` for `Aborted by user.`, else
    /// `tool`), with its line.
    pub error: Option<crate::grammar::ToolError>,
    /// Lines after the prompt that the parser does not know, with their line numbers.
    pub other: Vec<crate::grammar::Message>,
    /// True when the tool printed its `-I- Please reboot machine to load new configurations.`
    /// notice: the new values take effect at the next reboot.
    pub reboot_required: bool,
    /// All `-E-`, `-W-` and `-I-` lines.
    #[serde(flatten)]
    pub messages: Messages,
    /// Each device's output, in order, with its own outcome (empty inside an entry).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub devices: Vec<MlxconfigSet>,
}

/// One parameter line of `mlxconfig set`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SetParameter {
    /// The parameter's name: `SRIOV_EN`.
    pub name: String,
    /// `Next Boot`: the value configured before this change.
    pub next_boot: Option<ConfigValue>,
    /// `New`: the value being set.
    pub new: Option<ConfigValue>,
}
