//! The simulated GPU server (`sim:gpu-metal`): the bare-metal host (`rhel8-metal`: RHEL 8, MFT,
//! OFED, the RDMA tools over its `adapters` and cabling options) with eight H100-class GPUs and
//! the PCIe layout of [`crate::machine::gpu_server`], and the GPU driver's tools (the table's
//! rows for the GPU server: `nvidia-smi`, `setpci`). Its faults (`peermem_missing`,
//! `nv_peer_mem_loaded`, `acs_on`) are the `gpu` simulator's options; see `docs/simulator.md`.
//! Its `lspci` prints the GPU server's PCIe tree (`gpu_lspci.rs`), not the `adapters` option's.

use cairn_runtime::ExecOutput;
use cairn_runtime::sim::{SimContext, SimModel, SimTool};

use super::metal::{METAL_OPTIONS, MetalHardware, metal_model};
use serde::Deserialize as _;

use crate::machine::gpu_server::{GPU_SERVER_MARK, GPU_SLOT, GpuServerState};

/// The `gpu-metal` model: the bare-metal host's tools, and the GPU server's rows of the table.
pub(crate) fn gpu_metal() -> SimModel {
    metal_model("gpu-metal", GpuHardware, |host| {
        host.on_metal() || host.on_gpu_server()
    })
}

/// The bare-metal host's hardware, marked a GPU server.
struct GpuHardware;

impl SimTool for GpuHardware {
    fn commands(&self) -> &[&'static str] {
        MetalHardware.commands()
    }

    fn name(&self) -> &'static str {
        MetalHardware.name()
    }

    fn options(&self) -> &[&'static str] {
        METAL_OPTIONS
    }

    fn check_option(&self, key: &str, value: &str) -> Result<(), String> {
        MetalHardware.check_option(key, value)
    }

    fn init(&self, host: &mut SimContext<'_>) {
        host.mark(GPU_SERVER_MARK);
        MetalHardware.init(host);
    }

    fn on_boot(&self, host: &mut SimContext<'_>) {
        MetalHardware.on_boot(host);
    }

    fn run(&self, host: &mut SimContext<'_>, argv: &[String]) -> ExecOutput {
        let program = argv
            .first()
            .map_or("", |p| p.rsplit('/').next().unwrap_or(p));
        if program == "lspci" {
            MetalHardware::publish(host);
            let state = host
                .tool_state(GPU_SLOT)
                .and_then(|slot| GpuServerState::deserialize(slot).ok())
                .unwrap_or_default();
            return super::gpu_lspci::print(&state, argv);
        }
        MetalHardware.run(host, argv)
    }
}
