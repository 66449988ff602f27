//! The `vhpc_toolkit` command lines the builtins run on the management host.

fn args(program: &str, parts: &[&str]) -> Vec<String> {
    std::iter::once(program)
        .chain(parts.iter().copied())
        .map(str::to_owned)
        .collect()
}

/// `vhpc_toolkit view --vm VM`.
pub(crate) fn view(program: &str, vm: &str) -> Vec<String> {
    args(program, &["view", "--vm", vm])
}

/// `vhpc_toolkit passthru --vm VM --add|--remove --device PCI`.
pub(crate) fn passthru(program: &str, vm: &str, pci: &str, add: bool) -> Vec<String> {
    let action = if add { "--add" } else { "--remove" };
    args(program, &["passthru", "--vm", vm, action, "--device", pci])
}

/// `vhpc_toolkit latency --vm VM --level high|normal`.
pub(crate) fn latency(program: &str, vm: &str, level: &str) -> Vec<String> {
    args(program, &["latency", "--vm", vm, "--level", level])
}

/// `vhpc_toolkit cpumem --vm VM [--cpu_reservation yes|no] [--memory_reservation yes|no]`.
pub(crate) fn cpumem(
    program: &str,
    vm: &str,
    cpu: Option<bool>,
    memory: Option<bool>,
) -> Vec<String> {
    let yes_no = |b: bool| if b { "yes" } else { "no" };
    let mut argv = args(program, &["cpumem", "--vm", vm]);
    if let Some(cpu) = cpu {
        argv.extend(["--cpu_reservation".to_owned(), yes_no(cpu).to_owned()]);
    }
    if let Some(memory) = memory {
        argv.extend(["--memory_reservation".to_owned(), yes_no(memory).to_owned()]);
    }
    argv
}

/// `vhpc_toolkit power --vm VM --on|--off` (vmware/vhpc-toolkit `get_args.py`: `power` takes
/// `--vm` or `--file`, and `--on` or `--off`).
pub(crate) fn power(program: &str, vm: &str, on: bool) -> Vec<String> {
    let state = if on { "--on" } else { "--off" };
    args(program, &["power", "--vm", vm, state])
}
