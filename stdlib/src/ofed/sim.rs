//! The simulated MLNX_OFED of a `sim:rhel8` guest: `tar`, `dnf`/`yum`/`rpm`, `mlnxofedinstall`,
//! `ofed_info` and `openibd`. OFED is absent until `mlnxofedinstall` ran and the guest rebooted;
//! then its drivers are loaded and the other guest tools answer.

use cairn_runtime::ExecOutput;
use cairn_runtime::sim::{SimContext, SimTool};

use super::command::Tarball;
use crate::machine::guest::{GuestHw, not_found, out};

/// The OFED tool's state (slot `ofed`).
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct OfedState {
    /// The version `mlnxofedinstall` installed.
    pub(crate) installed: Option<String>,
    /// The drivers of the installed version are loaded (after a reboot).
    pub(crate) loaded: bool,
    /// Bumped every time the drivers load: interface settings made before are lost.
    pub(crate) generation: u64,
    /// When the drivers last loaded, on the host's clock.
    pub(crate) loaded_millis: u64,
    /// Folders unpacked by `tar`.
    pub(crate) unpacked: Vec<String>,
    /// Packages installed with `dnf`.
    pub(crate) packages: Vec<String>,
}

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
        if state.installed.is_some() {
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
        let answer = match base {
            "ofed_info" => match &state.installed {
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
    let mut text = format!("Logs dir: {logs}\nGeneral log file: {logs}/general.log\n");
    if !state.packages.iter().any(|p| p == needed) {
        text.push_str(&format!(
            "Error: One or more required packages for installing MLNX_OFED_LINUX are missing.\n\
             Please install the missing packages using your Linux distribution Package Management tool.\n\
             Run:\nyum install {needed}\nFailure: Failed to install MLNX_OFED_LINUX\n"
        ));
        return out(1, text, "");
    }
    if !args.contains(&"--force") {
        text.push_str(
            "\nBelow is the list of MLNX_OFED_LINUX packages that you have chosen\n\
             (some may have been already installed and will be reinstalled).\n\
             Do you want to continue?[y/N]:\n",
        );
        return out(1, text, "");
    }
    let version = tarball.version;
    text.push_str(&format!(
        "Removing old packages...\nInstalling new packages\n\
         Installing ofed-scripts-{version}...\nInstalling mlnx-tools-{version}...\n\
         Installing rdma-core-{version}...\nInstalling mlnx-ofa_kernel-{version}...\n\
         Installing perftest-{version}...\nInstalling infiniband-diags-{version}...\n\
         Installing sockperf-{version}...\nInstalling libvma-{version}...\n\
         Installation passed successfully\n"
    ));
    for port in &hw.ports {
        text.push_str(&format!(
            "Device ({}):\n\t{}\t\tMellanox Technologies MT27800 Family [ConnectX-5]\n\tLink Width: x16\n\tPCI Link Speed: 8GT/s\n\n",
            port.pci.trim_start_matches("0000:"),
            port.pci.trim_start_matches("0000:")
        ));
    }
    text.push_str("To load the new driver, run:\n/etc/init.d/openibd restart\n");
    state.installed = Some(version);
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
    let line =
        |what: &str, ok: bool| format!("{what:<59}[{}]\n", if ok { "  OK  " } else { "FAILED" });
    match args.first().copied() {
        Some("restart" | "force-restart" | "start") => {
            if !state.loaded {
                let text = line("Unloading HCA driver:", false)
                    + "Please reboot the system to load the new driver.\n";
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
    use std::collections::BTreeMap;

    use cairn_runtime::ExecRequest;
    use cairn_runtime::sim::SimHost;

    use crate::models::rhel8::rhel8;

    fn run(host: &SimHost, argv: &[&str]) -> cairn_runtime::ExecOutput {
        host.exec(&ExecRequest::new(argv.iter().copied()))
            .unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn ofed_is_absent_until_installed_and_rebooted() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let options = BTreeMap::from([("clock".to_owned(), "virtual".to_owned())]);
        let host = SimHost::open(
            "compute-02",
            dir.path(),
            std::sync::Arc::new(rhel8()),
            options,
        )
        .unwrap_or_else(|e| panic!("{e}"));
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
}
