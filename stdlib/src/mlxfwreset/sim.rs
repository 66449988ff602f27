//! The simulated `mlxfwreset` (MFT on a bare-metal Linux host): `query`, `status` and `reset`
//! as mstflint's `small_utils/mstfwreset.py` prints them, over the firmware activation contract
//! ([`crate::machine::firmware`]). A reset at a level the device supports counts one reset of
//! the device in this tool's state; `mlxconfig` and `mlxfwmanager` then run the staged values
//! and the flashed image, as after a boot but without one. Level 4 (warm reboot) reboots the
//! host, as the tool does.
//!
//! The device's supported levels are the `reset_levels` option (`3,4` by default, a ConnectX-5
//! whose firmware supports a driver restart and PCI reset; `none` for a device that supports
//! none, whose query fails as the tool's does: "There is no supported reset-level").
//!
//! Not on ESXi: the MFT documentation lists mlxfwreset's supported OSs as FreeBSD, Linux and
//! Windows ("mlxfwreset – Loading Firmware on 5th Generation Devices Tool", MFT 4.22 to 4.33),
//! and `mstfwreset.py` refuses any other OS (`SUPP_OS`, "-E- Unsupported OS."). The ESXi model
//! has no `mlxfwreset`: the shell answers "not found".

use cairn_runtime::ExecOutput;
use cairn_runtime::sim::{SimContext, SimTool};

use crate::machine::esxi::{Adapter, not_found, ok, tools_loaded};
use crate::machine::firmware::{self, ResetLog};
use crate::machine::host_hardware::find;

/// The `mlxfwreset` tool model.
pub(crate) struct MlxfwresetSim;

/// The option naming the levels the device's firmware supports.
const RESET_LEVELS: &str = "reset_levels";

/// `CmdRegMfrl.reset_levels_db`: number, description, whether it may be the default.
const LEVELS: &[(u32, &str, bool)] = &[
    (
        0,
        "Driver, PCI link, network link will remain up (\"live-Patch\")",
        true,
    ),
    (
        1,
        "Only ARM side will not remain up (\"Immediate reset\").",
        false,
    ),
    (3, "Driver restart and PCI reset", true),
    (4, "Warm Reboot", true),
];

/// `CmdRegMfrl.reset_types_db`; a ConnectX-5 supports the full chip reset only.
const TYPES: &[(u32, &str)] = &[
    (0, "Full chip reset"),
    (1, "Phy-less reset (keep network port active during reset)"),
    (2, "NIC only reset (for SoC devices)"),
    (3, "ARM only reset"),
    (4, "ARM OS shut down"),
];

fn supported_levels(host: &SimContext<'_>) -> Vec<u32> {
    match host.option(RESET_LEVELS).unwrap_or("3,4") {
        "none" => Vec::new(),
        list => list
            .split(',')
            .filter_map(|l| l.trim().parse().ok())
            .collect(),
    }
}

/// A row as `query_text` prints it: `"{0}: {1:<62}-{2:<14}{3}"`.
fn row(number: u32, description: &str, supported: &str, default: bool) -> String {
    let default = if default { "(default)" } else { "" };
    format!("{number}: {description:<62}-{supported:<14}{default}\n")
}

fn support(yes: bool) -> &'static str {
    if yes { "Supported" } else { "Not Supported" }
}

/// The default level: the lowest supported one that may be a default
/// (`CmdRegMfrl.default_reset_level`).
fn default_level(levels: &[u32]) -> Option<u32> {
    LEVELS
        .iter()
        .find(|(n, _, valid)| *valid && levels.contains(n))
        .map(|(n, ..)| *n)
}

/// A failure as the tool's `main` prints it: `-E- TEXT.` on stdout, exit 1.
fn failure(text: &str) -> ExecOutput {
    ExecOutput {
        code: 1,
        stdout: format!("-E- {text}.\n"),
        stderr: String::new(),
    }
}

fn query(levels: &[u32]) -> ExecOutput {
    let Some(default) = default_level(levels) else {
        return failure("There is no supported reset-level");
    };
    let mut out = String::from("\nReset-levels:\n");
    for (number, description, _) in LEVELS {
        out.push_str(&row(
            *number,
            description,
            support(levels.contains(number)),
            *number == default,
        ));
    }
    out.push_str("\nReset-types (relevant only for reset-levels 1,3,4):\n");
    for (number, description) in TYPES {
        out.push_str(&row(
            *number,
            description,
            support(*number == 0),
            *number == 0,
        ));
    }
    out.push_str("\n\nReset-sync (relevant only for reset-level 3):\n");
    out.push_str(&row(0, "Tool is the owner", "Supported", true));
    out.push_str(&row(1, "Driver is the owner", "Not supported", false));
    out.push('\n');
    ok(out)
}

/// `status_command`: the pending image (flint's `FW Version(Running)`), the NVCONFIG
/// parameters whose next value differs from the current one, and the reset they need.
fn status(host: &SimContext<'_>, adapter: &Adapter, dev: &str, levels: &[u32]) -> ExecOutput {
    let (flashed, running) = firmware::images(host, adapter);
    let config = firmware::nvconfig(host);
    let pending: Vec<(String, u64, u64)> = config
        .devices
        .get(&adapter.mst())
        .into_iter()
        .flatten()
        .filter(|(_, v)| v.current != v.next)
        .map(|(name, v)| (name.clone(), v.current, v.next))
        .collect();
    let mut out = format!("Status for device: {dev}\n\n");
    let pending_fw = flashed != running;
    if pending_fw {
        out.push_str(&format!(
            "Pending FW version : {flashed}\nRunning FW version : {running}\n"
        ));
    } else {
        out.push_str(&format!(
            "Pending FW version : N/A (FW is up to date)\nRunning FW version : {running}\n"
        ));
    }
    if pending.is_empty() {
        out.push_str("\nPending NVCONFIG parameters: N/A (No pending NVCONFIG parameters)\n");
    } else {
        out.push_str("\nPending NVCONFIG parameters:\n");
        out.push_str(&format!(
            "    {:<40} {:<12} {:<12} {:<12}\n",
            "Name", "Default", "Current", "Next Boot"
        ));
        for (name, current, next) in &pending {
            // The default is not kept by the contract; mlxconfig's JSON gives it, we print N/A.
            out.push_str(&format!(
                "    {name:<40} {:<12} {current:<12} {next:<12}\n",
                "N/A"
            ));
        }
    }
    let mut reasons = Vec::new();
    if pending_fw {
        reasons.push("Pending FW update");
    }
    if !pending.is_empty() {
        reasons.push("Pending NVCONFIG parameter change");
    }
    if reasons.is_empty() {
        out.push_str("\nDescription action : No action required\n");
    } else {
        match default_level(levels) {
            Some(level) => {
                let description = LEVELS
                    .iter()
                    .find(|(n, ..)| *n == level)
                    .map_or("", |(_, d, _)| d);
                out.push_str(&format!(
                    "\nDescription action : {description} (Level {level})\n"
                ));
                let sync = if level == 3 {
                    " --sync 0 --method 0"
                } else {
                    ""
                };
                out.push_str(&format!(
                    "Command required : mlxfwreset -d {dev} reset --level {level} --type 0{sync}\n"
                ));
            }
            None => out.push_str("\nDescription action : Full power cycle\n"),
        }
        out.push_str(&format!("Reasons : {}\n", reasons.join(", ")));
    }
    ok(out)
}

fn reset(
    host: &mut SimContext<'_>,
    adapter: &Adapter,
    dev: &str,
    levels: &[u32],
    level: Option<u32>,
) -> ExecOutput {
    let Some(level) = level.or_else(|| default_level(levels)) else {
        return failure("There is no supported reset-level");
    };
    if !levels.contains(&level) {
        return failure(&format!(
            "Reset-level '{level}' is not supported in the current state of this device"
        ));
    }
    let description = LEVELS
        .iter()
        .find(|(n, ..)| *n == level)
        .map_or("", |(_, d, _)| d);
    let mut out = format!(
        "\nThe reset level for device, {dev} is:\n\n{level}: {description}\nContinue with reset?[y/N] y\nReset level: {level}, Reset type: 0, Reset sync: 0, Reset method: 0\n"
    );
    let step = |name: &str| format!("-I- {name:<40}-Done\n");
    if level == 4 {
        out.push_str(&step("Sending Reset Command To Fw"));
        out.push_str(&step("Sending reboot command to machine"));
        host.request_reboot();
        return ok(out);
    }
    if level == 3 {
        out.push_str(&step("Stopping Driver"));
    }
    out.push_str(&step("Sending Reset Command To Fw"));
    if level == 3 {
        out.push_str(&step("Resetting PCI"));
        out.push_str(&step("Starting Driver"));
        out.push_str(&step("Restarting MST"));
    }
    out.push_str("-I- FW was loaded successfully.\n");
    let mut log: ResetLog = host.load_state().unwrap_or_default();
    *log.devices.entry(adapter.mst()).or_insert(0) += 1;
    let _ = host.save_state(&log);
    ok(out)
}

impl SimTool for MlxfwresetSim {
    fn commands(&self) -> &[&'static str] {
        &["mlxfwreset", "mstfwreset"]
    }

    fn name(&self) -> &'static str {
        firmware::RESET_SLOT
    }

    fn options(&self) -> &[&'static str] {
        &[RESET_LEVELS]
    }

    fn check_option(&self, key: &str, value: &str) -> Result<(), String> {
        let levels_ok = value == "none"
            || value
                .split(',')
                .all(|l| LEVELS.iter().any(|(n, ..)| l.trim() == n.to_string()));
        if key == RESET_LEVELS && !levels_ok {
            return Err("reset levels among 0, 1, 3 and 4 separated by commas, or `none`".into());
        }
        Ok(())
    }

    /// An empty log from the start: its slot tells a peer the host is bare metal.
    fn init(&self, host: &mut SimContext<'_>) {
        let _ = host.save_state(&ResetLog::default());
    }

    fn run(&self, host: &mut SimContext<'_>, argv: &[String]) -> ExecOutput {
        let program = argv.first().map_or("mlxfwreset", String::as_str);
        if !tools_loaded(host) {
            return not_found(program);
        }
        let (mut dev, mut level, mut command) = (None, None, None);
        let mut args = argv.iter().skip(1);
        while let Some(arg) = args.next() {
            match arg.as_str() {
                "-d" | "--device" => dev = args.next().cloned(),
                "-l" | "--level" => level = args.next().cloned(),
                "-t" | "--type" | "--sync" | "--method" | "-m" | "--mst_flags" => {
                    args.next();
                }
                "-y" | "--yes" | "-s" | "--skip_driver" => {}
                other => command = Some(other.to_owned()),
            }
        }
        let usage = |message: String| ExecOutput {
            code: 2,
            stdout: String::new(),
            stderr: format!(
                "usage: {program} --device DEVICE [--level {{0,1,3,4}}] [--type {{0,1,2,3,4}}] [--yes] {{q,query,r,reset,status}}\n{program}: error: {message}\n"
            ),
        };
        let Some(dev) = dev else {
            return usage("the following arguments are required: --device/-d".into());
        };
        let level = match level.as_deref().map(str::parse::<u32>) {
            None => None,
            Some(Ok(n)) if LEVELS.iter().any(|(l, ..)| *l == n) => Some(n),
            Some(_) => {
                return usage(format!(
                    "argument --level/-l: invalid choice: '{}' (choose from 0, 1, 3, 4)",
                    level.unwrap_or_default()
                ));
            }
        };
        let Some(adapter) = find(host, &dev) else {
            return failure(&format!(
                "Failed to Identify Device: {dev}, No such file or directory"
            ));
        };
        let levels = supported_levels(host);
        match command.as_deref() {
            Some("q" | "query") => query(&levels),
            Some("status") => status(host, &adapter, &dev, &levels),
            Some("r" | "reset") => reset(host, &adapter, &dev, &levels, level),
            Some(other) => usage(format!(
                "argument command: invalid choice: '{other}' (choose from 'q', 'query', 'r', 'reset', 'reset_fsm_register', 'status')"
            )),
            None => usage("the following arguments are required: command".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_query_and_status_parse_with_the_supported_levels() {
        let out = query(&[3, 4]);
        let parsed = crate::mlxfwreset::parse_query(&out.stdout)
            .unwrap_or_else(|e| panic!("{e}\n{}", out.stdout));
        assert_eq!(parsed.supported_levels(), [3, 4]);
        assert!(parsed.levels.iter().any(|l| l.number == 3 && l.default));
        let none = query(&[]);
        assert_eq!(none.code, 1);
        let parsed = crate::mlxfwreset::parse_query(&none.stdout).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(parsed.errors, ["There is no supported reset-level."]);
    }
}
