//! How a simulated host shows that it booted, as the real operating system does.

/// The trace a boot leaves on a host, which the runtime reads to prove that a reboot happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BootMarker {
    /// Linux: `/proc/sys/kernel/random/boot_id` holds a new UUID at every boot, and
    /// `journalctl --list-boots` lists one line per boot.
    ProcBootId,
    /// ESXi: no `/proc` boot id; `/var/log/vmksummary.log` gains a `Host has booted` line at
    /// every boot (and a `bootstop: Host is rebooting` line when a reboot starts).
    VmkSummary,
}

impl BootMarker {
    /// The file that holds the current boot id, for [`BootMarker::ProcBootId`].
    pub const BOOT_ID_PATH: &'static str = "/proc/sys/kernel/random/boot_id";
    /// The log that records boots, for [`BootMarker::VmkSummary`].
    pub const VMKSUMMARY_PATH: &'static str = "/var/log/vmksummary.log";
}
