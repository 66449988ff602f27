//! The typed result of `mst status`.

use serde::{Deserialize, Serialize};

/// What `mst status [-v|-vv]` printed. A layout fills the sections it prints and leaves the
/// others empty: the Linux default prints `mst_modules` and `mst_devices`, `-v`/`-vv` print
/// `pci_devices` (after `mst_modules` on Linux), ESXi prints `pci_devices` alone.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MstStatus {
    /// `MST modules:`: each MST kernel module and whether it is loaded.
    pub mst_modules: Vec<MstModule>,
    /// `MST devices:`: the device files of the Linux default layout.
    pub mst_devices: Vec<MstDevice>,
    /// `PCI devices:`: the table of `-v`, `-vv` and of ESXi, one row per PCI function.
    pub pci_devices: Vec<PciDevice>,
}

/// One line of `MST modules:`, such as `MST PCI configuration module is not loaded`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MstModule {
    /// The module's name between `MST` and `module`: `PCI` or `PCI configuration`.
    pub name: String,
    /// False when the line says `is not loaded`.
    pub loaded: bool,
}

/// One entry of `MST devices:`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MstDevice {
    /// The device file as printed: `/dev/mst/mt4119_pciconf0` (a bare `mt4119_pciconf0` on ESXi).
    pub mst: String,
    /// The access method after the dash: `PCI configuration cycles access.`, `PCI direct access.`
    pub access: Option<String>,
    /// `domain:bus:dev.fn`: the PCI address with its domain, `0000:06:00.0`.
    pub domain_bus_dev_fn: Option<String>,
    /// `addr.reg`: the configuration-space offset of the address register (PCI configuration access).
    pub addr_reg: Option<u64>,
    /// `data.reg`: the configuration-space offset of the data register (PCI configuration access).
    pub data_reg: Option<u64>,
    /// `cr_bar.gw_offset`: the gateway offset in the CR BAR, `-1` when none.
    pub cr_bar_gw_offset: Option<i64>,
    /// `bar`: the BAR address of direct (`pci_cr`) access, as printed (`0xd4000000`).
    pub bar: Option<String>,
    /// `size`: the size of the mapped BAR, as printed (`0x100000`).
    pub size: Option<String>,
    /// Any other `key=value` on the detail line, by key.
    pub other: std::collections::BTreeMap<String, String>,
    /// `Chip revision is: 00`, as printed.
    pub chip_revision: Option<String>,
}

/// One row of the `PCI devices:` table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PciDevice {
    /// `DEVICE_TYPE` as printed: `ConnectX5(rev:0)`, or `NA` for a virtual function.
    pub device_type: String,
    /// `MST`: the MST device name (`mt4119_pciconf1`, `/dev/mst/mt4119_pciconf0.1`), or `NA`
    /// when the MST modules are not loaded.
    pub mst: String,
    /// `PCI`: the PCI address as printed, usually without the domain (`3b:00.0`).
    pub pci: String,
    /// `RDMA`: the RDMA device (`mlx5_0`); absent when the cell is empty.
    pub rdma: Option<String>,
    /// `NET`: the network interface as printed, with mst's `net-` prefix (`net-vmnic0`).
    pub net: Option<String>,
    /// `NUMA`: the NUMA node of the function; absent when the cell is empty.
    pub numa: Option<i64>,
    /// The cells of columns a newer MFT prints and this parser does not read, by their title
    /// (`VFIO` since MFT 4.34); a column with an empty cell is left out. Absent from records
    /// journaled before it was read.
    #[serde(default)]
    pub other: std::collections::BTreeMap<String, String>,
}
