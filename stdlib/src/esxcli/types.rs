//! The typed results of the `esxcli` commands cairn reads.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// One row of `esxcli software vib list`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Vib {
    /// `Name` (`nmlx5-core`).
    pub name: String,
    /// `Version` (`4.23.0.36-14vmw.801.0.0.21495797`).
    pub version: String,
    /// `Vendor` (`VMW`, `MEL`).
    pub vendor: String,
    /// `Acceptance Level` (`VMwareCertified`, `PartnerSupported`...).
    pub acceptance_level: String,
    /// `Install Date`, as printed (`2023-04-29`).
    pub install_date: String,
    /// `Platforms` (ESXi 8 only: `host`).
    pub platforms: Option<String>,
}

/// What `esxcli software vib install|update` printed: the `Installation Result` record, or
/// the error esxcli reported.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct VibInstall {
    /// `Message:` (`The update completed successfully, but the system needs to be rebooted...`).
    pub message: Option<String>,
    /// `Reboot Required:`.
    pub reboot_required: Option<bool>,
    /// `VIBs Installed:`, one entry per VIB id.
    pub vibs_installed: Vec<String>,
    /// `VIBs Removed:`.
    pub vibs_removed: Vec<String>,
    /// `VIBs Skipped:`.
    pub vibs_skipped: Vec<String>,
    /// `Components Installed:` (component-based ESXi 7+ results).
    pub components_installed: Vec<String>,
    /// `Components Removed:`.
    pub components_removed: Vec<String>,
    /// `Components Skipped:`.
    pub components_skipped: Vec<String>,
    /// Any other field of the record, by its label.
    pub other: BTreeMap<String, String>,
    /// The error esxcli printed instead of a result (` [MetadataDownloadError]`).
    pub error: Option<EsxcliError>,
}

/// An esxcli error: ` [ErrorName]` and the message lines under it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EsxcliError {
    /// The name in brackets: `MetadataDownloadError`, `DependencyError`...
    pub kind: String,
    /// The message lines, trimmed, in order.
    pub lines: Vec<String>,
}

/// One row of `esxcli system module parameters list -m MODULE`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModuleParameter {
    /// `Name` (`DRSS`, `max_vfs`).
    pub name: String,
    /// `Type` (`int`, `uint`, `charp`, `array of int`).
    pub r#type: String,
    /// `Value`: the value set for the next module load, as printed; absent when unset.
    pub value: Option<String>,
    /// `Description`, with any continuation lines joined by one space.
    pub description: String,
}

/// One row of `esxcli hardware pci pcipassthru list`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PciPassthru {
    /// `Device ID`: the PCI address (`0000:3b:00.0`).
    pub device_id: String,
    /// `Enabled`: whether passthrough (DirectPath I/O) is configured for the device.
    pub enabled: bool,
}

/// One option of `esxcli system settings advanced list [-o OPTION]`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct AdvancedOption {
    /// `Path` (`/Net/NetNetqNumaIOCpuPinThreshold`).
    pub path: String,
    /// `Type` (`integer`, `string`).
    pub r#type: Option<String>,
    /// `Int Value`: the current value of an integer option.
    pub int_value: Option<i64>,
    /// `Default Int Value`.
    pub default_int_value: Option<i64>,
    /// `Min Value`.
    pub min_value: Option<i64>,
    /// `Max Value`.
    pub max_value: Option<i64>,
    /// `String Value`: the current value of a string option; absent when printed empty.
    pub string_value: Option<String>,
    /// `Default String Value`; absent when printed empty.
    pub default_string_value: Option<String>,
    /// `Valid Characters`; absent when printed empty.
    pub valid_characters: Option<String>,
    /// `Description`.
    pub description: Option<String>,
    /// `Host Specific` (ESXi 7+).
    pub host_specific: Option<bool>,
    /// `Impact` (ESXi 7+: `none`, `reboot`...).
    pub impact: Option<String>,
    /// Any other field, by its label.
    pub other: BTreeMap<String, String>,
}
