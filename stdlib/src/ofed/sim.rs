//! The simulated MLNX_OFED of a `sim:rhel8` guest: `tar`, `dnf`/`yum`/`rpm`, `mlnxofedinstall`,
//! `ofed_info` and `openibd`. OFED is absent until `mlnxofedinstall` ran and the guest rebooted;
//! then its drivers are loaded and the other guest tools answer.

use cairn_runtime::ExecOutput;
use cairn_runtime::sim::{SimContext, SimTool};

use super::command::Tarball;
use super::openibd::sim as openibd_sim;
use crate::machine::guest::{GuestHw, not_found, out};

/// The OFED tool's state the guest tools print: shared with the
/// other guest printers from layer 1.
pub(crate) use crate::machine::ofed::OfedState;

/// `fault_ignore_staged_ofed`: at boot the installed OFED's drivers do not load, as when its
/// modules do not fit the running kernel: "the ABI of the new kernel may not be compatible with
/// the MLNX_EN modules, which will prevent loading them" (NVIDIA, "Application Binary Interface
/// (ABI) Incompatibility with MLNX_EN Kernel Modules",
/// <https://docs.nvidia.com/networking/display/MLNXENv581121LTS/Installation+Related+Issues>);
/// `openibd status` then answers `HCA driver is not loaded`.
const FAULT_OFED: &str = "fault_ignore_staged_ofed";

/// `tar`, `dnf`, `yum`, `rpm`, `mlnxofedinstall`, `ofed_info`, `openibd`.
pub(crate) struct OfedSim;

impl SimTool for OfedSim {
    fn commands(&self) -> &[&'static str] {
        &[
            "ofed_info",
            "tar",
            "dnf",
            "yum",
            "rpm",
            "mlnxofedinstall",
            "/etc/init.d/openibd",
        ]
    }

    fn name(&self) -> &'static str {
        "ofed"
    }

    /// `guest_fw`: the adapter's firmware (default 16.32.1010); `ofed_fw`: the firmware the
    /// OFED bundle carries (default: the adapter's, so the installer finds it up to date).
    fn options(&self) -> &[&'static str] {
        &[
            "guest_fw",
            "ofed_fw",
            OFED_INSTALL_SECS,
            FAULT_OFED,
            openibd_sim::HELD_BY,
            openibd_sim::MODULE_IN_USE,
        ]
    }

    fn check_option(&self, key: &str, value: &str) -> Result<(), String> {
        if key == FAULT_OFED {
            return crate::machine::staged_faults::check_flag(value);
        }
        if [openibd_sim::HELD_BY, openibd_sim::MODULE_IN_USE].contains(&key) {
            return openibd_sim::check_option(key, value);
        }
        if key == OFED_INSTALL_SECS {
            return crate::machine::durations::check(value);
        }
        let dotted = value.split('.').count() == 3
            && value
                .split('.')
                .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
        if dotted {
            Ok(())
        } else {
            Err("a firmware version such as 16.35.1012".into())
        }
    }

    fn init(&self, host: &mut SimContext<'_>) {
        let hw = GuestHw::of(host);
        let mut state: OfedState = host.load_state().unwrap_or_default();
        if let Some(version) = hw.ofed {
            state.installed = Some(version);
        }
        let _ = host.save_state(&state);
    }

    fn on_boot(&self, host: &mut SimContext<'_>) {
        let mut state: OfedState = host.load_state().unwrap_or_default();
        if state.installed.is_some() && crate::machine::staged_faults::flag(host, FAULT_OFED) {
            state.loaded = false;
        } else if state.installed.is_some() {
            state.loaded = true;
            state.generation += 1;
            state.loaded_millis = host.now_millis();
        }
        let _ = host.save_state(&state);
    }

    fn run(&self, host: &mut SimContext<'_>, argv: &[String]) -> ExecOutput {
        let mut state: OfedState = host.load_state().unwrap_or_default();
        let program = argv.first().map_or("", String::as_str);
        let base = program.rsplit('/').next().unwrap_or(program);
        let args: Vec<&str> = argv.iter().skip(1).map(String::as_str).collect();
        if let Some(answer) = super::sim_doca::run(host, &mut state, base, &args) {
            let _ = host.save_state(&state);
            return answer;
        }
        let answer = match base {
            "ofed_info" => match &state.installed {
                Some(version) if state.doca => out(0, super::sim_doca::info_line(version), ""),
                Some(version) => out(0, format!("MLNX_OFED_LINUX-{version}: \n"), ""),
                None => not_found(program),
            },
            "tar" => tar(&mut state, &args),
            "dnf" | "yum" => dnf(&mut state, base, &args),
            "rpm" => rpm(&state, &args),
            "mlnxofedinstall" => install(host, &mut state, program, &args),
            "openibd" => openibd(host, &mut state, program, &args),
            _ => not_found(program),
        };
        let _ = host.save_state(&state);
        answer
    }
}

fn tar(state: &mut OfedState, args: &[&str]) -> ExecOutput {
    let Some(file) = args
        .iter()
        .position(|a| a.contains('f') && !a.starts_with("--"))
        .and_then(|i| args.get(i + 1))
    else {
        return out(
            2,
            "",
            "tar: You must specify one of the '-Acdtrux' options\n",
        );
    };
    let dir = args
        .iter()
        .position(|a| *a == "-C")
        .and_then(|i| args.get(i + 1))
        .copied()
        .unwrap_or("/root");
    match Tarball::from_path(file) {
        Some(tarball) => {
            let folder = format!("{}/{}", dir.trim_end_matches('/'), tarball.folder);
            if !state.unpacked.contains(&folder) {
                state.unpacked.push(folder);
            }
            out(0, "", "")
        }
        None => out(
            2,
            "",
            format!(
                "tar: {file}: Cannot open: No such file or directory\ntar: Error is not recoverable: exiting now\n"
            ),
        ),
    }
}

fn dnf(state: &mut OfedState, program: &str, args: &[&str]) -> ExecOutput {
    if args.first() != Some(&"install") {
        return out(0, "", "");
    }
    let packages: Vec<&str> = args
        .iter()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .copied()
        .collect();
    let new: Vec<&str> = packages
        .iter()
        .filter(|p| !state.packages.iter().any(|q| q == *p))
        .copied()
        .collect();
    if new.is_empty() {
        let text: String = packages
            .iter()
            .map(|p| format!("Package {p} is already installed.\n"))
            .collect();
        return out(
            0,
            format!("{text}Dependencies resolved.\nNothing to do.\nComplete!\n"),
            "",
        );
    }
    let mut text = String::from("Dependencies resolved.\n");
    text.push_str(&format!(
        "Installing:\n{}\nTransaction Summary\nInstall  {} Package{}\n\n",
        new.iter()
            .map(|p| format!(" {p:<28} x86_64   4.18.0-147.el8   rhel-8-for-x86_64-baseos-rpms"))
            .collect::<Vec<_>>()
            .join("\n"),
        new.len(),
        if new.len() == 1 { "" } else { "s" }
    ));
    let _ = program;
    for p in new {
        state.packages.push(p.to_owned());
    }
    text.push_str("Complete!\n");
    out(0, text, "")
}

fn rpm(state: &OfedState, args: &[&str]) -> ExecOutput {
    let mut text = String::new();
    let mut code = 0;
    for p in args.iter().filter(|a| !a.starts_with('-')) {
        if state.packages.iter().any(|q| q == p) {
            text.push_str(&format!("{p}-4.18.0-147.el8.x86_64\n"));
        } else {
            text.push_str(&format!("package {p} is not installed\n"));
            code = 1;
        }
    }
    out(code, text, "")
}

/// Seconds `mlnxofedinstall` takes to install (docs/simulator.md, "Operation durations").
const OFED_INSTALL_SECS: &str = "ofed_install_secs";

fn install(
    host: &mut SimContext<'_>,
    state: &mut OfedState,
    program: &str,
    args: &[&str],
) -> ExecOutput {
    let folder = program.rsplit_once('/').map_or("", |(dir, _)| dir);
    let Some(tarball) = state
        .unpacked
        .iter()
        .find(|f| f.as_str() == folder || (folder.is_empty() || folder == ".") && !f.is_empty())
        .and_then(|f| Tarball::from_path(&format!("{f}.tgz")))
    else {
        return out(
            127,
            "",
            format!("bash: {program}: No such file or directory\n"),
        );
    };
    let hw = GuestHw::of(host);
    let needed = if hw.distro == "centos" {
        "tk"
    } else {
        "kernel-modules-extra"
    };
    let pid = 10_000 + host.now_millis() % 50_000;
    let logs = format!("/tmp/MLNX_OFED_LINUX.{pid}.logs");
    let mut text = super::sim_installer::header(&logs);
    // The real installer asks unless `--force` (its `main`: `if (not $force and not $quiet)`),
    // and reads no answer without a terminal.
    if !args.contains(&"--force") {
        text.push_str("Do you want to continue?[y/N]:\n");
        return out(1, text, "");
    }
    if !state.packages.iter().any(|p| p == needed) {
        text.push_str(&format!(
            "Error: One or more required packages for installing MLNX_OFED_LINUX are missing.\n\
             Please install the missing packages using your Linux distribution Package Management tool.\n\
             Run:\nyum install {needed}\nFailure: Failed to install MLNX_OFED_LINUX\n"
        ));
        return out(1, text, "");
    }
    if !crate::machine::durations::take(host, OFED_INSTALL_SECS) {
        return out(1, text, "");
    }
    let version = tarball.version;
    let plan = super::sim_installer::FirmwarePlan::of(host, state);
    let firmware = (!args.contains(&"--without-fw-update")).then_some(&plan);
    text.push_str(&super::sim_installer::install_body(
        &hw, &version, &logs, firmware,
    ));
    if let Some(plan) = firmware {
        plan.apply(state);
    }
    state.installed = Some(version);
    // The installer removes the other OFED packages, DOCA-OFED's too (its header: "all other
    // Mellanox, OEM, OFED, RDMA or Distribution IB packages will be removed").
    state.doca = false;
    state.doca_repo = None;
    host.mark("reboot_pending");
    out(0, text, "")
}

fn openibd(
    host: &mut SimContext<'_>,
    state: &mut OfedState,
    program: &str,
    args: &[&str],
) -> ExecOutput {
    if state.installed.is_none() {
        return out(
            127,
            "",
            format!("bash: {program}: No such file or directory\n"),
        );
    }
    let line = openibd_sim::step;
    let action = args.first().copied();
    if let (Some(action @ ("restart" | "force-restart" | "stop")), Some(holder)) =
        (action, host.option(openibd_sim::HELD_BY))
    {
        // `stop()` refuses only when run by hand (`RUNMODE=manual`), as here; `force-` does
        // not skip the check.
        return out(1, openibd_sim::held(holder, program, action), "");
    }
    if let (Some("restart" | "force-restart" | "stop"), Some(spec)) =
        (action, host.option(openibd_sim::MODULE_IN_USE))
    {
        return out(1, openibd_sim::module_in_use(spec), "");
    }
    match action {
        Some("restart" | "force-restart" | "start") => {
            if !state.loaded {
                // The new modules cannot load before the reboot: `load_module`'s failure, then
                // the summary step and `get_debug_info`'s advice.
                let text = line("Unloading HCA driver:", true)
                    + line("Loading Mellanox MLX5 HCA driver:", false).as_str()
                    + line("Loading HCA driver and Access Layer:", false).as_str()
                    + "\nPlease run /usr/sbin/sysinfo-snapshot.py to collect the debug information\nand open an issue in the http://support.mellanox.com/SupportWeb/service_center/SelfService\n\n";
                return out(1, text, "");
            }
            state.generation += 1;
            state.loaded_millis = host.now_millis();
            let text = line("Unloading HCA driver:", true)
                + line("Loading HCA driver and Access Layer:", true).as_str();
            out(0, text, "")
        }
        Some("status") if state.loaded => out(
            0,
            "\n  HCA driver loaded\n\nConfigured IPoIB devices:\nib0\n\nCurrently active IPoIB devices:\nib0\n",
            "",
        ),
        Some("status") => out(3, "\n  HCA driver is not loaded\n", ""),
        Some("stop") => {
            state.loaded = false;
            out(0, line("Unloading HCA driver:", true), "")
        }
        _ => out(
            1,
            "",
            format!(
                "Usage: {program} {{start|force-start|stop|force-stop|restart|force-restart|status}}\n"
            ),
        ),
    }
}

#[cfg(test)]
mod tests {

    use crate::test_support::{rhel8_guest, sim_exec as run};

    #[test]
    fn ofed_is_absent_until_installed_and_rebooted() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let host = rhel8_guest("compute-02", dir.path(), &[]);
        assert_eq!(run(&host, &["ofed_info", "-s"]).code, 127);
        let tgz = "/nfs/MLNX_OFED_LINUX-5.4-3.0.3.0-rhel8.1-x86_64.tgz";
        assert_eq!(run(&host, &["tar", "xf", tgz, "-C", "/tmp"]).code, 0);
        let installer = "/tmp/MLNX_OFED_LINUX-5.4-3.0.3.0-rhel8.1-x86_64/mlnxofedinstall";
        let missing = run(&host, &[installer, "--force"]);
        assert_eq!(missing.code, 1);
        assert!(missing.stdout.contains("yum install kernel-modules-extra"));
        assert_eq!(
            run(&host, &["dnf", "install", "-y", "kernel-modules-extra"]).code,
            0
        );
        let done = run(&host, &[installer, "--force"]);
        assert_eq!(done.code, 0, "{}", done.stdout);
        let info = run(&host, &["ofed_info", "-s"]);
        assert_eq!(info.stdout, "MLNX_OFED_LINUX-5.4-3.0.3.0: \n");
        let parsed = crate::ofed::parse_info(&info.stdout).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(parsed.version, "5.4-3.0.3.0");
        // Installed, but the drivers wait for the reboot.
        assert_eq!(
            run(&host, &["/etc/init.d/openibd", "force-restart"]).code,
            1
        );
        assert_eq!(run(&host, &["ibstatus"]).code, 127);
    }

    #[test]
    fn the_installer_updates_firmware_unless_told_not_to_and_its_transcript_parses() {
        use crate::ofed::{FirmwareOutcome, InstallResult, parse_install};
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let host = rhel8_guest("compute-03", dir.path(), &[("ofed_fw", "16.35.1012")]);
        let tgz = "/nfs/MLNX_OFED_LINUX-5.4-3.0.3.0-rhel8.1-x86_64.tgz";
        let installer = "/tmp/MLNX_OFED_LINUX-5.4-3.0.3.0-rhel8.1-x86_64/mlnxofedinstall";
        run(&host, &["tar", "xf", tgz, "-C", "/tmp"]);
        let asked = run(&host, &[installer]);
        let parsed = parse_install(&asked.stdout).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            (asked.code, parsed.result),
            (1, InstallResult::NotConfirmed)
        );
        run(&host, &["dnf", "install", "-y", "kernel-modules-extra"]);
        let skipped = run(&host, &[installer, "--force", "--without-fw-update"]);
        let parsed = parse_install(&skipped.stdout).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(parsed.result, InstallResult::Passed, "{}", skipped.stdout);
        assert_eq!(parsed.firmware.outcome, FirmwareOutcome::NotAttempted);
        assert_eq!(parsed.pcie_links.len(), 2);
        assert_eq!(
            parsed.next_steps.first().and_then(|s| s.command.as_deref()),
            Some("/etc/init.d/openibd restart")
        );
        let updated = run(&host, &[installer, "--force"]);
        let parsed = parse_install(&updated.stdout).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            parsed.firmware.outcome,
            FirmwareOutcome::Updated,
            "{}",
            updated.stdout
        );
        assert!(parsed.reboot_required);
        let query = parsed.firmware.query.unwrap_or_else(|| panic!("no query"));
        let fw = query
            .devices
            .first()
            .and_then(|d| d.versions.first())
            .cloned();
        assert_eq!(fw.and_then(|v| v.available), Some("16.35.1012".to_owned()));
        // The burned image is the adapter's now: a second run finds it up to date.
        let again = run(&host, &[installer, "--force"]);
        let parsed = parse_install(&again.stdout).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            parsed.firmware.outcome,
            FirmwareOutcome::UpToDate,
            "{}",
            again.stdout
        );
    }
}
