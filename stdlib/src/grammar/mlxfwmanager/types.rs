//! The typed result of `mlxfwmanager` and `mlxup`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// What `mlxfwmanager [--query|--online -u]` or `mlxup` printed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Mlxfwmanager {
    /// One entry per `Device #N:` block of the query.
    pub devices: Vec<FwDevice>,
    /// `Release notes for the available Firmware:`: the numbered list (`mlxup`).
    pub release_notes: Vec<ReleaseNote>,
    /// N of `Found N device(s) requiring firmware update...` (the sum over a loop's outputs).
    pub devices_requiring_update: Option<u32>,
    /// True when the tool printed `All listed device(s) firmware images are up to date.` and
    /// no output of a loop found a device requiring an update.
    pub all_up_to_date: bool,
    /// The answer after `Perform FW update? [y/N]:`.
    pub answer: Option<String>,
    /// One entry per `Device #N: Updating FW ...` (per device of each output, in a loop's).
    pub updates: Vec<DeviceUpdate>,
    /// The tool's own failure: the first `Fail : REASON` of an update (kind `update_failed`)
    /// or `-E-` line (kind `tool`), with its words and line.
    pub error: Option<crate::grammar::ToolError>,
    /// True when the tool printed `Restart needed for updates to take effect.`
    pub restart_needed: bool,
    /// `Log File:`: where the tool wrote its log.
    pub log_file: Option<String>,
    /// Other lines of the update part, as printed (progress such as `Saving output...`).
    pub other: Vec<String>,
    /// `-E-` lines: errors.
    pub errors: Vec<String>,
    /// `-W-` lines: warnings.
    pub warnings: Vec<String>,
    /// `-I-` lines: information.
    pub info: Vec<String>,
}

/// One `Device #N:` block of the query.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FwDevice {
    /// N of `Device #N:`.
    pub number: u32,
    /// `Device Type:` (`ConnectX5`, `BlueField2`).
    pub device_type: Option<String>,
    /// `Part Number:` (`MCX556A-ECA_Ax`).
    pub part_number: Option<String>,
    /// `Description:`, with the lines it wrapped onto joined by one space.
    pub description: Option<String>,
    /// `PSID:`: the board id that selects the firmware image (`MT_0000000008`).
    pub psid: Option<String>,
    /// `PCI Device Name:`: the device as the tool names it (`/dev/mst/mt4119_pciconf0`,
    /// `3b:00.0`, `mt4099_pci_cr0`).
    pub pci_device_name: Option<String>,
    /// `Base GUID:`, as printed (hex, no separators).
    pub base_guid: Option<String>,
    /// `Base MAC:`, as printed (hex, no separators).
    pub base_mac: Option<String>,
    /// `Port1 GUID:`, `Port1 MAC:`...: the per-port addresses ConnectX-3 prints instead of the
    /// base ones.
    pub ports: Vec<PortAddress>,
    /// `Versions:  Current  Available`: one entry per firmware component.
    pub versions: Vec<ComponentVersion>,
    /// `Status:` (`Up to date`, `Update required`, `No matching image found`).
    pub status: Option<String>,
    /// True when a line `...` stood for fields left out of the copy.
    pub elided: bool,
    /// Any other field, by its label.
    pub other: BTreeMap<String, String>,
}

/// The GUID and MAC of one port (`Port1 GUID:`, `Port1 MAC:`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PortAddress {
    /// The port number, 1 for `Port1`.
    pub port: u32,
    /// `PortN GUID:`, as printed.
    pub guid: Option<String>,
    /// `PortN MAC:`, as printed (may be masked, as in `0002c9xxxxxx`).
    pub mac: Option<String>,
}

/// One row of the `Versions:` table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ComponentVersion {
    /// The component: `FW`, `FW (Running)` (the running firmware when a newer one awaits a
    /// reset), `PXE`, `UEFI`, `UEFI Virtio net`...
    pub component: String,
    /// `Current`: the version on the adapter; absent when the tool printed `N/A`.
    pub current: Option<String>,
    /// `Available`: the version of the matching image; absent when the tool printed `N/A`.
    pub available: Option<String>,
}

/// One entry of `Release notes for the available Firmware:`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReleaseNote {
    /// The entry's number.
    pub number: u32,
    /// The device family (`ConnectX5`).
    pub device_type: String,
    /// The firmware version in parentheses.
    pub version: String,
    /// The release notes' address.
    pub url: String,
}

/// One `Device #N: Updating FW ...` of the update.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DeviceUpdate {
    /// N of `Device #N:`.
    pub device: u32,
    /// The steps, in order (`FSMST_INITIALIZE -   OK`).
    pub steps: Vec<UpdateStep>,
    /// True when the tool printed `Done` after the steps.
    pub done: bool,
    /// `Fail : REASON`: why the update failed (`The Digest in the signature is wrong`).
    pub failure: Option<String>,
}

/// One `STEP -   STATUS` line of an update.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct UpdateStep {
    /// What the step does: `Writing Boot image component`.
    pub name: String,
    /// Its outcome as printed: `OK`.
    pub status: String,
}
