//! The typed result of `flint query`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// What `flint -d DEV query [full]` printed. Fields the image does not print are absent.
/// The fields are the first device's; an admin's loop over devices prints one query after
/// another, each starting again at `Image type:`, and `devices` holds every one of them (the
/// first too, each with its own messages), while `errors` and `notices` hold all of them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FlintQuery {
    /// `Image type:` (`FS2`, `FS3`, `FS4`).
    pub image_type: Option<String>,
    /// `FW Version:` (`28.43.1014`): the image on flash, which runs after the next reset.
    pub fw_version: Option<String>,
    /// `FW Version(Running):`, printed only while the running firmware differs from the one on
    /// flash (burned, not yet activated by a reset or reboot).
    pub fw_version_running: Option<String>,
    /// `FW Release Date:` as printed, day.month.year (`7.11.2024`).
    pub fw_release_date: Option<String>,
    /// `MIC Version:` (FS2).
    pub mic_version: Option<String>,
    /// `Config Sectors:` (FS2, `query full`).
    pub config_sectors: Option<u32>,
    /// `Product Version:` (`28.43.1014`, `02.35.51.00`).
    pub product_version: Option<String>,
    /// `Part Number:`.
    pub part_number: Option<String>,
    /// `Description:` when it is the product description (not the address table's titles).
    pub description: Option<String>,
    /// `Rom Info:`: one entry per expansion ROM.
    pub rom_info: Vec<RomInfo>,
    /// `Device ID:` (the PCI device id in decimal, `4099`).
    pub device_id: Option<u32>,
    /// `Base GUID:` of the `UID GuidsNumber` table (FS3/FS4).
    pub base_guid: Option<Uid>,
    /// `Base MAC:` of the `UID GuidsNumber` table (FS3/FS4).
    pub base_mac: Option<Uid>,
    /// Other rows of the `UID GuidsNumber` table (`Orig Base GUID`...), by label.
    pub other_uids: BTreeMap<String, Uid>,
    /// `GUIDs:` of the `Node Port1 Port2 Sys image` table (FS2).
    pub guids: Option<PortIds>,
    /// `MACs:` of the `Node Port1 Port2 Sys image` table (FS2).
    pub macs: Option<PortIds>,
    /// `VSD:` (FS2): the vendor-specific data; absent when printed empty.
    pub vsd: Option<String>,
    /// `Image VSD:` as printed (`N/A`).
    pub image_vsd: Option<String>,
    /// `Device VSD:` as printed (`N/A`).
    pub device_vsd: Option<String>,
    /// `PSID:`: the board id (`MT_0000001244`).
    pub psid: Option<String>,
    /// `Security Attributes:` (`secure-fw`).
    pub security_attributes: Option<String>,
    /// `Default Update Method:` (`fw_ctrl`).
    pub default_update_method: Option<String>,
    /// `Life cycle:` (`GA SECURED`).
    pub life_cycle: Option<String>,
    /// `Secure Boot Capable:` (`Enabled`).
    pub secure_boot_capable: Option<String>,
    /// `EFUSE Security Ver:`.
    pub efuse_security_ver: Option<u32>,
    /// `Image Security Ver:`.
    pub image_security_ver: Option<u32>,
    /// `Security Ver Program:` as printed (`Manually ; Disabled`).
    pub security_ver_program: Option<String>,
    /// Any other field, by its label.
    pub other: BTreeMap<String, String>,
    /// `-E-` lines: errors.
    pub errors: Vec<String>,
    /// `-W-` and `-I-` lines.
    pub notices: Vec<String>,
    /// Each device's query, in order (empty inside an entry, and when the output holds only
    /// the tool's messages).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub devices: Vec<FlintQuery>,
}

/// One expansion ROM of `Rom Info:`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RomInfo {
    /// `type=`: `PXE`, `UEFI`, `UEFI Virtio net`...
    pub r#type: String,
    /// `version=`: `14.36.16`.
    pub version: Option<String>,
    /// `cpu=`: the architectures, as printed (`AMD64,AARCH64`).
    pub cpu: Option<String>,
    /// Any other `key=value`, by key.
    pub other: BTreeMap<String, String>,
}

/// One row of the `UID GuidsNumber` table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Uid {
    /// `UID`: the first address, as printed (hex).
    pub uid: String,
    /// `GuidsNumber`: how many consecutive addresses the device owns from it.
    pub guids_number: Option<u32>,
}

/// A `GUIDs:` or `MACs:` row of the FS2 table, one cell per column; empty cells are absent.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PortIds {
    /// `Node`.
    pub node: Option<String>,
    /// `Port1`.
    pub port1: Option<String>,
    /// `Port2`.
    pub port2: Option<String>,
    /// `Sys image`.
    pub sys_image: Option<String>,
}
