//! The `Device #N:` block of `mlxfwmanager`'s query (layer 1), as the simulated `mlxfwmanager`
//! prints it and as the OFED installers' firmware step (`mlnx-fw-updater`, which runs
//! `mlxfwmanager`) prints it too. The format is the real tool's (reference fixtures under
//! `tests/fixtures/mlxfwmanager/`); `mlxfwmanager/sim.rs`'s tests read it back with the parser.

use crate::machine::esxi::Adapter;

/// One `Device #N:` block of the query, as `mlxfwmanager` prints it.
pub(crate) fn block(
    number: usize,
    adapter: &Adapter,
    pci: &str,
    fw: &str,
    available: Option<&str>,
    status: &str,
) -> String {
    let na = |v: Option<&str>| v.unwrap_or("N/A").to_owned();
    let kind = adapter.kind;
    format!(
        "\nDevice #{number}:\n----------\n\n  Device Type:      {}\n  Part Number:      {}\n  Description:      {}\n  PSID:             {}\n  PCI Device Name:  {pci}\n  Base GUID:        {}\n  Base MAC:         {}\n  Versions:         Current        Available     \n     FW             {:<15}{:<14}\n     PXE            {:<15}{:<14}\n     UEFI           {:<15}{:<14}\n\n  Status:           {status}\n",
        kind.device_type,
        kind.part_number,
        kind.description,
        kind.psid,
        adapter.base_guid(),
        adapter.base_mac(),
        fw,
        na(available),
        kind.pxe,
        "N/A",
        kind.uefi,
        "N/A",
    )
}
