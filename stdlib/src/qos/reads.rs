//! What the `qos::` builtins read from a host: `mlnx_qos`'s settings as the parser's type (the
//! tool's own error as the failure), RDMA-CM's default ToS, an ECN switch.

use cairn_runtime::{ActionError, ExecRequest, HostIo};

use super::command;
use super::types::MlnxQos;
use crate::action;

/// Runs `argv` (with `stdin`), failing on a non-zero exit with what the tool printed.
pub(super) fn run(
    io: &mut HostIo<'_>,
    argv: &[String],
    stdin: Option<&str>,
) -> Result<String, ActionError> {
    let mut request = ExecRequest::new(argv.iter().cloned());
    request.stdin = stdin.map(str::to_owned);
    let output = io.exec(&request)?;
    if output.code == 0 {
        return Ok(output.stdout);
    }
    Err(ActionError::CommandFailed {
        code: output.code,
        command: argv.join(" "),
        stderr: format!("{}{}", output.stdout, output.stderr),
    })
}

/// `mlnx_qos -i IFACE [FLAGS]`: the port's settings it prints (after applying the flags); the
/// tool's own error (`ETS features are not supported on your system`) is the failure.
pub(super) fn mlnx_qos(io: &mut HostIo<'_>, argv: &[String]) -> Result<MlnxQos, ActionError> {
    let output = io.exec(&ExecRequest::new(argv.iter().cloned()))?;
    let line = argv.join(" ");
    if output.code == 127 {
        return Err(ActionError::NotInstalled {
            program: "mlnx_qos".to_owned(),
            host: io.host().to_string(),
            install: "install MLNX_OFED or DOCA-OFED, whose mlnx-tools has it (ofed::install)"
                .to_owned(),
        });
    }
    let qos = action::parsed(line.as_str(), &output.stdout, super::parse)?;
    if let Some(error) = &qos.error {
        return Err(action::tool_failure(
            &line,
            error,
            &[],
            "check the interface is a ConnectX port's (`ibdev2netdev`)",
        ));
    }
    if output.code != 0 {
        return Err(ActionError::CommandFailed {
            code: output.code,
            command: line,
            stderr: output.stderr,
        });
    }
    Ok(qos)
}

/// RDMA-CM's default ToS of a device's port (`cma_roce_tos -d DEV -p 1`).
pub(super) fn roce_tos(io: &mut HostIo<'_>, device: &str) -> Result<u8, ActionError> {
    let argv = command::roce_tos(device, None);
    let text = run(io, &argv, None)?;
    text.trim().parse().map_err(|_| {
        ActionError::Failed(format!(
            "`{}` printed `{}`, not a ToS (0 to 255)",
            argv.join(" "),
            text.trim()
        ))
    })
}

/// An ECN switch (`cat /sys/class/net/IFACE/ecn/roce_np/enable/PRIO`): `1` is on.
pub(super) fn ecn(io: &mut HostIo<'_>, path: &str) -> Result<bool, ActionError> {
    let argv = vec!["cat".to_owned(), path.to_owned()];
    let text = run(io, &argv, None)?;
    match text.trim() {
        "1" => Ok(true),
        "0" => Ok(false),
        other => Err(ActionError::Failed(format!(
            "`cat {path}` printed `{other}`, not 0 or 1"
        ))),
    }
}
