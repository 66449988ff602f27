//! Whether GPUDirect RDMA can register GPU memory: the peer-memory module the NVIDIA driver ships
//! (`nvidia-peermem`, since R470) loaded, and the older `nv_peer_mem` (Mellanox's nv_peer_memory,
//! which it replaces) not loaded beside it. The signal is NCCL's own: `net_ib.cc`'s
//! `ncclIbGdrSupport` looks for `/sys/kernel/mm/memory_peers/nv_mem/version`, `.../nv_mem_nc/version`
//! and `/sys/module/nvidia_peermem/version` (the last since NCCL 2.23, after NVIDIA/nccl#1676: a
//! DGX OS upgrade from nv_peer_mem to nvidia-peermem disabled GPUDirect RDMA for older NCCL), and
//! logs `NET/IB : GPU Direct RDMA Disabled for HCA` when none is there (NVIDIA/nccl#1537, #1939,
//! where the module was loaded but the `memory_peers` file absent).

use serde::{Deserialize, Serialize};

/// The module's own version file.
pub(super) const NVIDIA_PEERMEM: &str = "/sys/module/nvidia_peermem/version";
/// The older module's version file.
pub(super) const NV_PEER_MEM: &str = "/sys/module/nv_peer_mem/version";
/// The peer-memory client both register with MLNX_OFED's peer-memory API.
pub(super) const NV_MEM_CLIENT: &str = "/sys/kernel/mm/memory_peers/nv_mem/version";

/// What the host's sysfs says of the peer-memory modules: each file's content, `null` when absent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Peermem {
    /// `/sys/module/nvidia_peermem/version`: the driver's module is loaded (its version).
    pub nvidia_peermem: Option<String>,
    /// `/sys/module/nv_peer_mem/version`: the older module is loaded (its version).
    pub nv_peer_mem: Option<String>,
    /// `/sys/kernel/mm/memory_peers/nv_mem/version`: a peer-memory client registered with
    /// MLNX_OFED (either module's version).
    pub nv_mem_client: Option<String>,
}

impl Peermem {
    /// Why GPUDirect RDMA is not ready, with the next step; `None` when it is.
    pub fn problem(&self) -> Option<(String, String)> {
        let found = self.found();
        match (&self.nvidia_peermem, &self.nv_peer_mem) {
            (None, _) => Some((
                format!("nvidia-peermem is not loaded ({NVIDIA_PEERMEM} is absent; found: {found}): NCCL disables GPUDirect RDMA and perftest --use_cuda cannot register GPU memory"),
                "load it with `modprobe nvidia-peermem` (it ships with the NVIDIA driver) and list it in /etc/modules-load.d so it loads at every boot".to_owned(),
            )),
            (Some(new), Some(old)) => Some((
                format!("the old nv_peer_mem {old} is loaded beside nvidia-peermem {new}: two peer-memory clients for the same GPU memory"),
                "unload it (`rmmod nv_peer_mem`) and remove its package or service (nv_peer_mem, nvidia-peer-memory) so it does not load at boot: nvidia-peermem replaces it".to_owned(),
            )),
            (Some(_), None) => None,
        }
    }

    /// What was found, in words (`nvidia_peermem 535.129.03, nv_mem client 535.129.03`).
    fn found(&self) -> String {
        let found: Vec<String> = [
            ("nvidia_peermem", &self.nvidia_peermem),
            ("nv_peer_mem", &self.nv_peer_mem),
            ("nv_mem client", &self.nv_mem_client),
        ]
        .iter()
        .filter_map(|(name, version)| version.as_ref().map(|v| format!("{name} {v}")))
        .collect();
        if found.is_empty() {
            "no peer-memory module".to_owned()
        } else {
            found.join(", ")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Peermem;

    fn peermem(new: Option<&str>, old: Option<&str>) -> Peermem {
        Peermem {
            nvidia_peermem: new.map(str::to_owned),
            nv_peer_mem: old.map(str::to_owned),
            nv_mem_client: old.or(new).map(str::to_owned),
        }
    }

    #[test]
    fn the_problem_names_what_was_found_and_the_next_step() {
        assert_eq!(peermem(Some("535.129.03"), None).problem(), None);
        let (missing, help) = peermem(None, None).problem().unwrap_or_default();
        assert!(
            missing.contains("found: no peer-memory module"),
            "{missing}"
        );
        assert!(help.contains("modprobe nvidia-peermem"), "{help}");
        let (both, help) = peermem(Some("535.129.03"), Some("1.3-0"))
            .problem()
            .unwrap_or_default();
        assert!(both.contains("nv_peer_mem 1.3-0 is loaded beside nvidia-peermem 535.129.03"));
        assert!(help.contains("rmmod nv_peer_mem"), "{help}");
        let (old_only, _) = peermem(None, Some("1.3-0")).problem().unwrap_or_default();
        assert!(
            old_only.contains("found: nv_peer_mem 1.3-0, nv_mem client 1.3-0"),
            "{old_only}"
        );
    }
}
