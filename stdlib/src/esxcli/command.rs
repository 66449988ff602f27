//! The `esxcli` command lines the builtins run: argument arrays, never shell strings.

/// `esxcli software vib list`.
pub(crate) fn vib_list() -> Vec<String> {
    args(&["esxcli", "software", "vib", "list"])
}

/// `esxcli software vib install -v FILE|-d DEPOT [-f] [--dry-run]`: a `.zip` is a depot.
pub(crate) fn vib_install(source: &str, force: bool, dry_run: bool) -> Vec<String> {
    let flag = if source.to_ascii_lowercase().ends_with(".zip") {
        "-d"
    } else {
        "-v"
    };
    let mut argv = args(&["esxcli", "software", "vib", "install", flag, source]);
    if force {
        argv.push("-f".into());
    }
    if dry_run {
        argv.push("--dry-run".into());
    }
    argv
}

/// `esxcli system module parameters list -m MODULE`.
pub(crate) fn module_parameters(module: &str) -> Vec<String> {
    args(&[
        "esxcli",
        "system",
        "module",
        "parameters",
        "list",
        "-m",
        module,
    ])
}

/// `esxcli system module parameters set -m MODULE -p PARAMS`.
pub(crate) fn module_parameters_set(module: &str, params: &str) -> Vec<String> {
    args(&[
        "esxcli",
        "system",
        "module",
        "parameters",
        "set",
        "-m",
        module,
        "-p",
        params,
    ])
}

/// `esxcli system settings advanced list -o OPTION`.
pub(crate) fn advanced_get(option: &str) -> Vec<String> {
    args(&[
        "esxcli", "system", "settings", "advanced", "list", "-o", option,
    ])
}

/// `esxcli system settings advanced set -o OPTION -i N|-s TEXT`.
pub(crate) fn advanced_set(option: &str, value: &str, integer: bool) -> Vec<String> {
    let flag = if integer { "-i" } else { "-s" };
    args(&[
        "esxcli", "system", "settings", "advanced", "set", "-o", option, flag, value,
    ])
}

/// `esxcli hardware pci pcipassthru list`.
pub(crate) fn pcipassthru_list() -> Vec<String> {
    args(&["esxcli", "hardware", "pci", "pcipassthru", "list"])
}

/// `esxcli hardware pci pcipassthru set -d PCI -e true|false -a` (applied at once).
pub(crate) fn pcipassthru_set(pci: &str, enabled: bool) -> Vec<String> {
    let enabled = if enabled { "true" } else { "false" };
    args(&[
        "esxcli",
        "hardware",
        "pci",
        "pcipassthru",
        "set",
        "-d",
        pci,
        "-e",
        enabled,
        "-a",
    ])
}

/// `esxcli network nic list`.
pub(crate) fn nic_list() -> Vec<String> {
    args(crate::grammar::esxcli::nic_list::COMMAND)
}

/// `esxcli system maintenanceMode get`.
pub(crate) fn maintenance_get() -> Vec<String> {
    args(&["esxcli", "system", "maintenanceMode", "get"])
}

/// How long entering maintenance mode may wait for the host's VMs to be migrated or powered
/// off. esxcli's own default (`-t 0`) is no limit, so a VM that cannot leave (DirectPath I/O,
/// no DRS) would hang the run; ten minutes leaves DRS time to migrate a host's VMs.
pub(crate) const ENTER_MAINTENANCE_TIMEOUT_SECS: u64 = 600;

/// `esxcli system maintenanceMode set -e true -t SECONDS`, `... set -e false`.
pub(crate) fn maintenance_set(on: bool) -> Vec<String> {
    if on {
        let timeout = ENTER_MAINTENANCE_TIMEOUT_SECS.to_string();
        args(&[
            "esxcli",
            "system",
            "maintenanceMode",
            "set",
            "-e",
            "true",
            "-t",
            &timeout,
        ])
    } else {
        args(&["esxcli", "system", "maintenanceMode", "set", "-e", "false"])
    }
}

fn args(parts: &[&str]) -> Vec<String> {
    parts.iter().map(|p| (*p).to_owned()).collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_zip_is_a_depot() {
        assert_eq!(super::vib_install("/n/x.zip", false, false)[4], "-d");
        assert_eq!(
            super::vib_install("/n/mft.vib", true, true)[4..],
            ["-v", "/n/mft.vib", "-f", "--dry-run"]
        );
    }
}
