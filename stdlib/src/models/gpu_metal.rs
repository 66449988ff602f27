//! The simulated GPU server (`sim:gpu-metal`): the bare-metal host (`rhel8-metal`: RHEL 8, MFT,
//! OFED, the RDMA tools over its `adapters` and cabling options) with eight H100-class GPUs and
//! the PCIe layout of [`crate::machine::gpu_server`], and the GPU driver's tools (the table's
//! rows for the GPU server: `nvidia-smi`, `setpci`). Its faults (`peermem_missing`,
//! `nv_peer_mem_loaded`, `acs_on`) are the `gpu` simulator's options; see `docs/simulator.md`.

use cairn_runtime::ExecOutput;
use cairn_runtime::sim::{SimContext, SimModel, SimTool};

use super::metal::{METAL_OPTIONS, MetalHardware, metal_model};
use crate::machine::gpu_server::GPU_SERVER_MARK;

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
        MetalHardware.run(host, argv)
    }
}
