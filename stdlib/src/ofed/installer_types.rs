//! The typed result of an `mlnxofedinstall` transcript.

use serde::{Deserialize, Serialize};

use crate::grammar::mlxfwmanager::Mlxfwmanager;

/// What `mlnxofedinstall` (or MLNX_EN's `install`) printed, start to end.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OfedInstall {
    /// The product the installer names (`MLNX_OFED_LINUX`, `mlnx-en`), from `Below is the list
    /// of ... packages` or `This program will install the ... package`.
    pub product: Option<String>,
    /// `Logs dir:`: the folder of the per-package logs (`/tmp/MLNX_OFED_LINUX.86055.logs`).
    pub logs_dir: Option<String>,
    /// `General log file:` (`Log:` in older installers).
    pub general_log: Option<String>,
    /// The packages listed under `Below is the list of ... packages that you have chosen`.
    pub selected_packages: Vec<String>,
    /// The answer after `Do you want to continue?[y/N]:`; `Some("")` when the installer asked
    /// and got none (a run without `--force` and no terminal).
    pub confirmation: Option<String>,
    /// One entry per `Installing NAME-VERSION...` line, in order.
    pub installed: Vec<InstalledPackage>,
    /// How the installation ended.
    pub result: InstallResult,
    /// The firmware update the installer did, tried or did not attempt.
    pub firmware: FirmwareReport,
    /// The per-device PCIe link report (`Device (86:00.0):` blocks).
    pub pcie_links: Vec<PcieLink>,
    /// What the installer asks the user to do next (`To load the new driver, run:` ...).
    pub next_steps: Vec<NextStep>,
    /// True when the installer asked for a reboot (`Please reboot your system ...`) or the
    /// firmware update needs one (`Restart needed for updates to take effect.`).
    pub reboot_required: bool,
    /// `Error:`, `ERROR:`, `Failure:` and `Failed to install ...` lines, as printed.
    pub errors: Vec<String>,
    /// `Note:` lines, as printed.
    pub notes: Vec<String>,
    /// Every other line, as printed (progress such as `Removing old packages...`).
    pub other: Vec<String>,
}

/// One `Installing NAME-VERSION...` line.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct InstalledPackage {
    /// `mlnx-ofed-kernel-utils`.
    pub name: String,
    /// `5.6`, `56mlnx40`: from the last dash followed by a digit; empty when there is none.
    pub version: String,
}

/// How the installation ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum InstallResult {
    /// `Installation passed successfully` (`Installation finished successfully.` in the RPM
    /// installer's own words).
    Passed,
    /// A `Failure:`, `ERROR:` or `Failed to install ...` line, or `Error:` with no success.
    Failed,
    /// The installer asked `Do you want to continue?[y/N]:` and stopped there.
    NotConfirmed,
    /// None of these: the transcript ends before the installer said how it went.
    Unfinished,
}

/// The firmware step of the installer (skipped with `--without-fw-update`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FirmwareReport {
    /// What came of it.
    pub outcome: FirmwareOutcome,
    /// The `mlxfwmanager` query and update the installer ran, when it printed them.
    pub query: Option<Mlxfwmanager>,
    /// `The firmware for this device is not distributed inside Mellanox driver: ADDR (PSID: X)`.
    pub not_distributed: Vec<NotDistributed>,
    /// The firmware log: `Log File:`, `Real log file:`, or `See ...` after a failure.
    pub log_file: Option<String>,
}

/// What came of the installer's firmware step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FirmwareOutcome {
    /// The transcript shows no firmware step (`--without-fw-update`, or the installer stopped
    /// before it).
    NotAttempted,
    /// At least one device's update printed `Done`.
    Updated,
    /// The step ran and no device needed an update.
    UpToDate,
    /// `Failed to update Firmware.`, or an update that never printed `Done`.
    Failed,
}

/// A device whose firmware the installer does not carry (an OEM board).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NotDistributed {
    /// The PCI address as printed (`01:00.0`).
    pub pci: String,
    /// The board's PSID (`HUA0020040036`).
    pub psid: String,
}

/// One `Device (ADDR):` block of the PCIe link report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PcieLink {
    /// The PCI address as printed (`86:00.0`).
    pub pci: String,
    /// The `lspci` line under it, without the address (`Infiniband controller: Mellanox ...`).
    pub description: Option<String>,
    /// `Link Width:` (`x16`; `8x` in old installers, which print `Link Width is not 8x`
    /// otherwise: then `not 8x`).
    pub link_width: Option<String>,
    /// `PCI Link Speed:` (`8GT/s`, `16GT/s`; `2.5Gb/s` or `Unknown` in old installers).
    pub link_speed: Option<String>,
}

/// Something the installer asks the user to do.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NextStep {
    /// The line that asks, as printed (`To load the new driver, run:`).
    pub what: String,
    /// The command it gives on the next line (`/etc/init.d/openibd restart`), if any.
    pub command: Option<String>,
}
