//! The `gpu::` builtins' command lines (argv, never a shell line).

/// `nvidia-smi topo -m`: the GPU/NIC matrix.
pub(super) const TOPO: &[&str] = &["nvidia-smi", "topo", "-m"];

/// `cat FILE`: one sysfs file.
pub(super) fn cat(path: &str) -> Vec<String> {
    vec!["cat".to_owned(), path.to_owned()]
}

/// `lspci -vvv`: every function with its capabilities (the bridges' ACS).
pub(super) const LSPCI: &[&str] = &["lspci", "-vvv"];

/// `setpci -s BDF ECAP_ACS+0x6.w=0000`: the bridge's ACS control register cleared (NCCL's
/// troubleshooting guide).
pub(super) fn disable_acs(address: &str) -> Vec<String> {
    ["setpci", "-s", address, "ECAP_ACS+0x6.w=0000"]
        .map(str::to_owned)
        .to_vec()
}
