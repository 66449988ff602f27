//! Each GPU's nearest NIC in `nvidia-smi topo -m`'s matrix: the NIC its traffic should use for
//! GPUDirect RDMA, and the CPUs and NUMA node to pin its process to. Nearest is the best link
//! kind in the driver's own legend order, PIX (at most one PCIe bridge), then PXB (several
//! bridges, no host bridge), PHB (through the host bridge), NODE (between host bridges of one
//! NUMA node), SYS (across the sockets; `SOC` in older drivers). NCCL's default GPUDirect RDMA
//! level stops short of SYS (`NCCL_NET_GDR_LEVEL`, NCCL's environment variables), so a GPU whose
//! nearest NIC is SYS, or with several NICs at its best kind, is said in `note`, never hidden.

use serde::{Deserialize, Serialize};

use super::types::{NvidiaSmiTopo, TopoDevice};

/// The link kinds from nearest to farthest.
const ORDER: &[&str] = &["PIX", "PXB", "PHB", "NODE", "SYS"];

/// The matrix, and each GPU with its nearest NIC.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GpuTopology {
    /// `nvidia-smi topo -m` as parsed (`nvidia-smi-topo` in docs/parsers.md).
    pub matrix: NvidiaSmiTopo,
    /// One entry per GPU row, in printed order.
    pub gpus: Vec<GpuNic>,
}

/// A GPU and the NICs nearest to it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GpuNic {
    /// `GPU0`.
    pub gpu: String,
    /// The nearest NIC's RDMA device (`mlx5_0`; the column's name when the matrix names no
    /// RDMA device); `null` when there is no NIC, or several at the same kind (a tie).
    pub nic: Option<String>,
    /// Every NIC at the nearest link kind, in column order (more than one: a tie).
    pub nearest: Vec<String>,
    /// The link kind to them (`PIX`); `null` when the matrix has no NIC.
    pub link: Option<String>,
    /// `NUMA Affinity` (`0`); `null` when not printed.
    pub numa_affinity: Option<String>,
    /// `CPU Affinity` (`0-55,112-167`); `null` when not printed.
    pub cpu_affinity: Option<String>,
    /// What a pairing cannot say by itself: a tie, or no NIC closer than SYS.
    pub note: Option<String>,
}

/// How near a link kind is (lower is nearer); a kind outside the legend's order sorts last.
fn rank(link: &str) -> usize {
    let link = if link == "SOC" { "SYS" } else { link };
    ORDER
        .iter()
        .position(|kind| *kind == link)
        .unwrap_or(ORDER.len())
}

/// Whether a row is a GPU's.
fn is_gpu(device: &TopoDevice) -> bool {
    device.name.starts_with("GPU")
}

/// A NIC as the pairing names it: its RDMA device, else its column.
fn nic_name(device: &TopoDevice) -> String {
    device
        .rdma_device
        .clone()
        .unwrap_or_else(|| device.name.clone())
}

/// Pairs each GPU of `matrix` with its nearest NICs.
pub fn nearest_nics(matrix: NvidiaSmiTopo) -> GpuTopology {
    let nics: Vec<(usize, &TopoDevice)> = matrix
        .devices
        .iter()
        .enumerate()
        .filter(|(_, device)| !is_gpu(device))
        .collect();
    let gpus = matrix
        .devices
        .iter()
        .filter(|device| is_gpu(device))
        .map(|gpu| {
            let links: Vec<(&str, String)> = nics
                .iter()
                .filter_map(|(column, nic)| {
                    gpu.links
                        .get(*column)
                        .map(|link| (link.as_str(), nic_name(nic)))
                })
                .collect();
            let best = links.iter().map(|(link, _)| rank(link)).min();
            let nearest: Vec<(&str, String)> = links
                .into_iter()
                .filter(|(link, _)| Some(rank(link)) == best)
                .collect();
            pairing(gpu, &nearest)
        })
        .collect();
    GpuTopology { matrix, gpus }
}

/// A GPU's pairing from the NICs at its nearest kind.
fn pairing(gpu: &TopoDevice, nearest: &[(&str, String)]) -> GpuNic {
    let link = nearest.first().map(|(link, _)| (*link).to_owned());
    let names: Vec<String> = nearest.iter().map(|(_, nic)| nic.clone()).collect();
    let note = match (names.as_slice(), link.as_deref()) {
        ([], _) => Some("no NIC in the matrix".to_owned()),
        (_, Some(link)) if rank(link) >= rank("SYS") => Some(format!(
            "no NIC closer than {link}: GPUDirect RDMA crosses the sockets ({})",
            names.join(", ")
        )),
        ([_, _, ..], Some(link)) => Some(format!(
            "{} NICs tie at {link}: {}",
            names.len(),
            names.join(", ")
        )),
        _ => None,
    };
    GpuNic {
        gpu: gpu.name.clone(),
        nic: match names.as_slice() {
            [only] => Some(only.clone()),
            _ => None,
        },
        nearest: names,
        link,
        numa_affinity: gpu.numa_affinity.clone(),
        cpu_affinity: gpu.cpu_affinity.clone(),
        note,
    }
}

#[cfg(test)]
mod tests {
    use super::nearest_nics;

    fn fixture(name: &str) -> GpuTopologyOf {
        let path = format!(
            "{}/../tests/fixtures/nvidia-smi-topo/{name}.txt",
            env!("CARGO_MANIFEST_DIR")
        );
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let matrix = crate::gpu::parse_topo(crate::test_support::output_of(&text))
            .unwrap_or_else(|e| panic!("{e}"));
        nearest_nics(matrix)
    }

    type GpuTopologyOf = super::GpuTopology;

    /// Eight A100s, each pair of GPUs behind switches with four NICs at PXB: a four-way tie,
    /// said, with no single NIC picked.
    #[test]
    fn a_tie_names_every_nic_and_picks_none() {
        let topo = fixture("xuesongtap-8xa100-nv12-17-nics");
        let gpu2 = &topo.gpus[2];
        assert_eq!(gpu2.nic, None);
        assert_eq!(gpu2.nearest, ["mlx5_6", "mlx5_7", "mlx5_8", "mlx5_9"]);
        assert_eq!(gpu2.link.as_deref(), Some("PXB"));
        assert_eq!(
            gpu2.note.as_deref(),
            Some("4 NICs tie at PXB: mlx5_6, mlx5_7, mlx5_8, mlx5_9")
        );
        assert_eq!(gpu2.cpu_affinity.as_deref(), Some("0-103"));
        assert_eq!(topo.gpus.len(), 8);
    }

    /// Four A10s and a dual-port NIC on the other socket: every GPU reaches it only at SYS.
    #[test]
    fn a_gpu_with_no_nic_closer_than_sys_is_said() {
        let topo = fixture("xuesongtap-4xa10-sys-2-nics");
        let notes: Vec<Option<&str>> = topo.gpus.iter().map(|g| g.note.as_deref()).collect();
        assert!(
            notes
                .iter()
                .all(|n| n.is_some_and(|n| n.starts_with("no NIC closer than SYS"))),
            "{notes:?}"
        );
        let none = fixture("club-3090-2x5090-tabs");
        assert_eq!(none.gpus[0].note.as_deref(), Some("no NIC in the matrix"));
        assert_eq!(
            (none.gpus[0].nic.as_ref(), none.gpus[0].link.as_ref()),
            (None, None)
        );
    }

    /// The simulated GPU server: every GPU has one ConnectX-7 at PIX, GPU4's being `mlx5_6`
    /// (the BlueField-3 takes `mlx5_4` and `mlx5_5` in PCI order).
    #[test]
    fn the_gpu_server_pairs_each_gpu_with_its_switchs_connectx7() {
        let matrix = crate::gpu::parse_topo(&crate::gpu::sim::topo_matrix())
            .unwrap_or_else(|e| panic!("{e}"));
        let topo = nearest_nics(matrix);
        let pairs: Vec<(Option<&str>, Option<&str>)> = topo
            .gpus
            .iter()
            .map(|g| (g.nic.as_deref(), g.link.as_deref()))
            .collect();
        assert_eq!(pairs[4], (Some("mlx5_6"), Some("PIX")));
        assert!(topo.gpus.iter().all(|g| g.note.is_none()));
        assert_eq!(topo.gpus[4].numa_affinity.as_deref(), Some("1"));
    }
}
