//! The OFED driver stack's state (layer 1): what the `ofed` simulator keeps in its slot, which
//! the other guest printers (`ib`, `net`) read to know whether the drivers are loaded and since
//! when, and the adapter firmware they print.

use cairn_runtime::sim::SimContext;

/// The OFED tool's state (slot `ofed`).
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct OfedState {
    /// The version `mlnxofedinstall` installed.
    pub(crate) installed: Option<String>,
    /// The drivers of the installed version are loaded (after a reboot).
    pub(crate) loaded: bool,
    /// Bumped every time the drivers load: interface settings made before are lost.
    pub(crate) generation: u64,
    /// When the drivers last loaded, on the host's clock.
    pub(crate) loaded_millis: u64,
    /// Folders unpacked by `tar`.
    pub(crate) unpacked: Vec<String>,
    /// Packages installed with `dnf`.
    pub(crate) packages: Vec<String>,
    /// The adapter firmware the installer burned (the `guest_fw` option until then).
    #[serde(default)]
    pub(crate) firmware: Option<String>,
    /// The installed version is DOCA-OFED's (`ofed_info -s` prints `OFED-internal-...`).
    #[serde(default)]
    pub(crate) doca: bool,
    /// The DOCA-Host repo package `rpm -i` added (its file name without `.rpm`).
    #[serde(default)]
    pub(crate) doca_repo: Option<String>,
}

/// The adapter's firmware: on a bare-metal host the image its first adapter runs now; in a
/// guest, the one the installer burned, else the `guest_fw` option, else the VMware guide's
/// ConnectX-5 16.32.1010 (VMware's vSphere 7 InfiniBand/RoCE guide).
pub(crate) fn adapter_firmware(host: &SimContext<'_>, state: &OfedState) -> String {
    if crate::machine::metal::is_metal(host)
        && let Some(adapter) = crate::machine::metal::adapters(host).into_iter().next()
    {
        return crate::machine::firmware::images(host, &adapter).1;
    }
    state
        .firmware
        .clone()
        .or_else(|| host.option("guest_fw").map(str::to_owned))
        .unwrap_or_else(|| "16.32.1010".to_owned())
}
