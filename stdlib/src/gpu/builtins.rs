//! The `gpu::` builtins: a GPU server's GPUDirect RDMA readiness.

use rhai::plugin::*;

/// The `gpu::` module.
///
/// Which NIC each GPU should use, and whether GPUDirect RDMA can work (NCCL's troubleshooting
/// guide, "GPU Direct": the peer-memory module and PCI ACS).
///
/// ```rhai
/// let topo = gpu::topology();
/// for g in topo.gpus { log(`${g.gpu} -> ${g.nic} (${g.link}), CPUs ${g.cpu_affinity}`); }
/// gpu::peermem();
/// ```
#[export_module]
pub mod gpu_builtins {
    use rhai::NativeCallContext;
    use serde_json::json;

    use crate::action::{self, RhaiResult};
    use crate::gpu::reads;
    use cairn_runtime::ActionError;

    /// `nvidia-smi topo -m` parsed (`matrix`, fields as in docs/parsers.md, `nvidia-smi-topo`),
    /// and `gpus`: each GPU with its nearest NIC, `#{gpu, nic, nearest, link, numa_affinity,
    /// cpu_affinity, note}`. Nearest is the best link kind in the legend's order: PIX, then PXB,
    /// PHB, NODE, SYS. `nic` is the RDMA device (`mlx5_0`) when one NIC is nearest; with a tie it
    /// is `()`, `nearest` lists them and `note` says so, as it says a GPU with no NIC closer
    /// than SYS.
    ///
    /// ```rhai
    /// let topo = gpu::topology();
    /// let far = topo.gpus.filter(|g| g.note != ());
    /// ```
    #[rhai_fn(volatile, return_raw)]
    pub fn topology(ctx: NativeCallContext) -> RhaiResult<rhai::Map> {
        let topology = action::query_typed(
            &ctx,
            crate::gpu::NAMESPACE,
            json!({}),
            "nvidia-smi's topology with each GPU's nearest NIC",
            reads::topology,
        )?;
        action::as_map(&topology)
    }

    /// Checks that GPUDirect RDMA can register GPU memory, as NCCL checks it: `nvidia-peermem`
    /// loaded (`/sys/module/nvidia_peermem/version`) and the older `nv_peer_mem` not loaded
    /// beside it. Returns `#{nvidia_peermem, nv_peer_mem, nv_mem_client}` (each file's version,
    /// `()` when absent); fails naming what it found and the next step otherwise.
    ///
    /// ```rhai
    /// gpu::peermem();
    /// ```
    #[rhai_fn(volatile, return_raw)]
    pub fn peermem(ctx: NativeCallContext) -> RhaiResult<rhai::Map> {
        let peermem = action::query_typed(
            &ctx,
            crate::gpu::NAMESPACE,
            json!({}),
            "the peer-memory modules' sysfs files",
            |io| {
                let peermem = reads::peermem(io)?;
                match peermem.problem() {
                    Some((message, help)) => Err(ActionError::Hinted { message, help }),
                    None => Ok(peermem),
                }
            },
        )?;
        action::as_map(&peermem)
    }
}
