//! What the simulated `mlnxofedinstall` prints, in the real installer's words and order (as in
//! the transcripts under `tests/fixtures/mlnxofedinstall/`: `Logs dir:`, the package list, the
//! `Installing ...` lines, the firmware step run through `mlxfwmanager` unless
//! `--without-fw-update`, the `Device (ADDR):` PCIe link report, the result and the next step).
//! Every transcript it makes parses with [`crate::ofed::parse_install`].

use cairn_runtime::sim::SimContext;

use crate::machine::guest::{GuestHw, LinkLayer};
use crate::machine::ofed::{OfedState, adapter_firmware};

/// The packages the simulated installer lists and installs. Only those whose version is the
/// OFED release's own (`ofed-scripts-5.4`, as `Installing ofed-scripts-5.6...` in OFED 5.6's
/// transcript), so no other package's version is made up.
const PACKAGES: &[&str] = &[
    "ofed-scripts",
    "mlnx-ofed-kernel-utils",
    "mlnx-ofed-kernel-modules",
    "iser-modules",
    "isert-modules",
    "srp-modules",
];

/// The firmware the installer finds and what it does about it.
pub(crate) struct FirmwarePlan {
    /// The firmware on the adapter now.
    pub(crate) current: String,
    /// The firmware the OFED bundle carries.
    pub(crate) bundled: String,
}

impl FirmwarePlan {
    /// The adapter's firmware now, and the bundle's: the `ofed_fw` option, else the same.
    pub(crate) fn of(host: &SimContext<'_>, state: &OfedState) -> Self {
        let current = adapter_firmware(host, state);
        let bundled = host
            .option("ofed_fw")
            .map_or_else(|| current.clone(), str::to_owned);
        Self { current, bundled }
    }

    /// After the step: the adapter runs the bundle's image when it was burned.
    pub(crate) fn apply(&self, state: &mut OfedState) {
        if self.updates() {
            state.firmware = Some(self.bundled.clone());
        }
    }

    /// The bundle's image is newer: the installer burns it (it never downgrades, as the real
    /// `mlxfwmanager` reports `Up to date` for an older image).
    pub(crate) fn updates(&self) -> bool {
        newer(&self.bundled, &self.current)
    }
}

/// Whether dotted version `a` is newer than `b` (`16.35.1012` > `16.32.1010`).
pub(crate) fn newer(a: &str, b: &str) -> bool {
    let parts = |v: &str| -> Vec<u64> { v.split('.').map(|p| p.parse().unwrap_or(0)).collect() };
    parts(a) > parts(b)
}

/// The start of every run: the log folder and the package list.
pub(crate) fn header(logs: &str) -> String {
    let mut text = format!(
        "Logs dir: {logs}\nGeneral log file: {logs}/general.log\n\n\
         Below is the list of MLNX_OFED_LINUX packages that you have chosen\n\
         (some may have been added by the installer due to package dependencies):\n\n"
    );
    for package in PACKAGES {
        text.push_str(package);
        text.push('\n');
    }
    text.push_str(
        "\nThis program will install the MLNX_OFED_LINUX package on your machine.\n\
         Note that all other Mellanox, OEM, OFED, RDMA or Distribution IB packages will be removed.\n\
         Those packages are removed due to conflicts with MLNX_OFED_LINUX, do not reinstall them.\n\n",
    );
    text
}

/// The rest of a run that installs `version`: packages, firmware (`None` with
/// `--without-fw-update`), the PCIe link report, the result and the next step.
pub(crate) fn install_body(
    hw: &GuestHw,
    version: &str,
    logs: &str,
    firmware: Option<&FirmwarePlan>,
) -> String {
    let release = version.split('-').next().unwrap_or(version);
    let mut text = String::from(
        "Checking SW Requirements...\nRemoving old packages...\nInstalling new packages\n",
    );
    for package in PACKAGES {
        text.push_str(&format!("Installing {package}-{release}...\n"));
    }
    if let Some(plan) = firmware {
        text.push_str(&firmware_step(hw, plan, Some(logs)));
    }
    for port in &hw.ports {
        let address = port.pci.trim_start_matches("0000:");
        let class = match port.link_layer {
            LinkLayer::InfiniBand => "Infiniband controller",
            LinkLayer::Ethernet => "Ethernet controller",
        };
        let model = if port.model.is_empty() {
            "Mellanox Technologies MT27800 Family [ConnectX-5]"
        } else {
            &port.model
        };
        text.push_str(&format!(
            "Device ({address}):\n\t{address} {class}: {model}\n\tLink Width: x16\n\tPCI Link Speed: 8GT/s\n\n"
        ));
    }
    text.push_str(
        "Installation passed successfully\nTo load the new driver, run:\n/etc/init.d/openibd restart\n",
    );
    text
}

/// `Attempting to perform Firmware update...` and `mlxfwmanager`'s query and update, one
/// device per passed-through function; the installer adds its `Log File:` line, DOCA's
/// `mlnx-fw-updater` prints none (NVIDIA's DGX Spark Aerial guide).
pub(crate) fn firmware_step(hw: &GuestHw, plan: &FirmwarePlan, logs: Option<&str>) -> String {
    let mut text = String::from(
        "Attempting to perform Firmware update...\nQuerying Mellanox devices firmware ...\n",
    );
    let update = plan.updates();
    let status = if update {
        "Update required"
    } else {
        "Up to date"
    };
    let available = if update { &plan.bundled } else { &plan.current };
    let mut count = 0;
    for (index, port) in hw.ports.iter().enumerate() {
        let address = port.pci.trim_start_matches("0000:");
        let bus = address.split(':').next().unwrap_or("0b");
        let Some(adapter) = crate::machine::esxi::parse_adapters(&format!("cx5@{bus}"))
            .ok()
            .and_then(|a| a.into_iter().next())
        else {
            continue;
        };
        count += 1;
        text.push_str(&crate::machine::firmware_query::block(
            index + 1,
            &adapter,
            address,
            &plan.current,
            Some(available),
            status,
        ));
    }
    if update && count > 0 {
        text.push_str(&format!(
            "\n---------\nFound {count} device(s) requiring firmware update...\n\n"
        ));
        for n in 1..=count {
            text.push_str(&format!(
                "Device #{n}: Updating FW ...\nFSMST_INITIALIZE -   OK\nWriting Boot image component -   OK\nDone\n\n"
            ));
        }
        text.push_str("Restart needed for updates to take effect.\n");
    } else {
        text.push('\n');
    }
    if let Some(logs) = logs {
        text.push_str(&format!("Log File: {logs}/fw_update.log\n"));
    }
    text
}
