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

    use crate::action::{self, Change, Compared, RhaiResult};
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

    /// The PCI bridges above the GPUs and NICs (`lspci -vvv`), with their ACS control:
    /// `#{bridges: [#{address, acs_control, behind}], enabled}`; `enabled` lists the bridges whose
    /// `ACSCtl:` has a flag on, which redirect GPU-to-NIC traffic through the root complex
    /// (NCCL's troubleshooting guide, "PCI Access Control Services (ACS)").
    ///
    /// ```rhai
    /// let acs = gpu::acs();
    /// expect(acs.enabled.is_empty(), `ACS on ${acs.enabled}`);
    /// ```
    #[rhai_fn(volatile, return_raw)]
    pub fn acs(ctx: NativeCallContext) -> RhaiResult<rhai::Map> {
        let acs = action::query_typed(
            &ctx,
            crate::gpu::NAMESPACE,
            json!({}),
            "the bridges' ACS from lspci -vvv",
            reads::acs,
        )?;
        action::as_map(&acs)
    }

    /// Turns ACS off (`setpci -s BDF ECAP_ACS+0x6.w=0000`) on each bridge above the GPUs and
    /// NICs where it is on, and only there; returns the bridges it turned off (`[]`: none was
    /// on). The setting is lost at reboot: the kernel or BIOS enables ACS again at every boot,
    /// so run it in every boot's stage (or disable IO virtualization / ACS in the BIOS).
    ///
    /// ```rhai
    /// let off = gpu::disable_acs();
    /// ```
    #[rhai_fn(volatile, return_raw)]
    pub fn disable_acs(ctx: NativeCallContext) -> RhaiResult<rhai::Array> {
        let change = Change::redo(crate::gpu::NAMESPACE, json!({}), json!([]));
        let value = change.run(
            &ctx,
            reads::acs,
            |_, acs| {
                if acs.enabled.is_empty() {
                    return Ok(Compared::Same(json!([])));
                }
                Ok(Compared::unmarked(json!(acs.enabled), acs.enabled))
            },
            |io, enabled: Vec<String>, planned| {
                for address in &enabled {
                    action::run(io, &crate::gpu::command::disable_acs(address))?;
                }
                let still = reads::acs(io)?.enabled;
                if !still.is_empty() {
                    return Err(ActionError::Failed(format!(
                        "ACS is still on at {} after setpci cleared it",
                        still.join(", ")
                    )));
                }
                Ok(planned)
            },
        )?;
        let off: Vec<String> =
            action::result_typed(&ctx, &value, "the bridges it turned ACS off on")?;
        action::as_array(&off)
    }
}
