//! What the `gpu::` builtins read from a host, as their types.

use cairn_runtime::{ActionError, ExecRequest, HostIo};

use super::acs::{Acs, acs_bridges};
use super::command;
use super::nearest_nic::{GpuTopology, nearest_nics};
use super::peermem::{NV_MEM_CLIENT, NV_PEER_MEM, NVIDIA_PEERMEM, Peermem};
use crate::action;

/// `nvidia-smi topo -m`, with each GPU's nearest NIC.
pub(super) fn topology(io: &mut HostIo<'_>) -> Result<GpuTopology, ActionError> {
    let matrix = action::run_parsed(io, command::TOPO, super::parse_topo)?;
    Ok(nearest_nics(matrix))
}

/// `lspci -vvv`'s bridges above the GPUs and NICs, with their ACS.
pub(super) fn acs(io: &mut HostIo<'_>) -> Result<Acs, ActionError> {
    let lspci = action::run_parsed(io, command::LSPCI, crate::grammar::lspci::parse_verbose)?;
    Ok(acs_bridges(&lspci))
}

/// The peer-memory modules' sysfs files.
pub(super) fn peermem(io: &mut HostIo<'_>) -> Result<Peermem, ActionError> {
    Ok(Peermem {
        nvidia_peermem: version_file(io, NVIDIA_PEERMEM)?,
        nv_peer_mem: version_file(io, NV_PEER_MEM)?,
        nv_mem_client: version_file(io, NV_MEM_CLIENT)?,
    })
}

/// A one-line sysfs file's content; `None` when `cat` says it does not exist.
fn version_file(io: &mut HostIo<'_>, path: &str) -> Result<Option<String>, ActionError> {
    let argv = command::cat(path);
    let output = io.exec(&ExecRequest::new(argv.iter().cloned()))?;
    if output.code == 0 {
        return Ok(Some(output.stdout.trim().to_owned()));
    }
    if output.code == 1 && output.stderr.contains("No such file or directory") {
        return Ok(None);
    }
    Err(ActionError::CommandFailed {
        code: output.code,
        command: argv.join(" "),
        stderr: output.stderr,
    })
}
