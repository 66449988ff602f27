//! The simulated DOCA-OFED of a `sim:rhel8` guest: `rpm -i` of a DOCA-Host repo package, `rpm
//! -q doca-host`, `dnf clean all` and `dnf -y install doca-ofed [mlnx-fw-updater]`. Afterwards
//! `ofed_info -s` prints the DOCA form (`OFED-internal-25.01-0.6.0:`) once installed, and the
//! drivers load at the next boot, as with MLNX_OFED.
//!
//! The texts are the tools' own: rpm's `error: open of FILE failed: No such file or directory`
//! and `package NAME is already installed`; dnf's `No match for argument:` and `Error: Unable
//! to find a match:`, `N files removed`, `Dependencies resolved.` and `Complete!`; the firmware
//! step `mlnx-fw-updater` prints is `mlxfwmanager`'s, as in NVIDIA's DGX Spark Aerial guide. The
//! package table between `Dependencies resolved.` and `Complete!` is left out: no published
//! transcript of `dnf install doca-ofed` gives its packages' versions.

use cairn_runtime::ExecOutput;
use cairn_runtime::sim::SimContext;

use super::doca::{DocaPackage, FW_UPDATER, PROFILE};
use crate::machine::guest::{GuestHw, out};
use crate::machine::ofed::OfedState;

/// The OFED releases the simulated NFS share has DOCA-Host packages for, with the full version
/// `ofed_info -s` prints after each, as published: 23.07-0.5.0 (a BlueField-3 host's NCCL
/// guide), 24.04-0.6.6 and 25.10-1.7.1 (NVIDIA's DGX Spark Aerial guide), 25.01-0.6.0 (libvma's
/// banner `OFED Version: OFED-internal-25.01-0.6.0:`), 26.01-1.0.0 (the DOCA 3.3 container's
/// `ofed_info` in the corpus).
const RELEASES: &[(&str, &str)] = &[
    ("23.07", "23.07-0.5.0"),
    ("24.04", "24.04-0.6.6"),
    ("25.01", "25.01-0.6.0"),
    ("25.10", "25.10-1.7.1"),
    ("26.01", "26.01-1.0.0"),
];

/// The full OFED version of a release the share has, if any.
fn full_version(release: &str) -> Option<&'static str> {
    RELEASES
        .iter()
        .find(|(r, _)| *r == release)
        .map(|(_, full)| *full)
}

/// What `ofed_info -s` prints for an installed DOCA-OFED version.
pub(crate) fn info_line(version: &str) -> String {
    format!("OFED-internal-{version}:\n")
}

/// Answers `rpm` and `dnf`/`yum` when they concern DOCA; `None` leaves them to the generic
/// package model.
pub(crate) fn run(
    host: &mut SimContext<'_>,
    state: &mut OfedState,
    base: &str,
    args: &[&str],
) -> Option<ExecOutput> {
    match (base, args) {
        ("rpm", ["-i" | "-ivh" | "-Uvh", file]) if file.ends_with(".rpm") => {
            Some(add_repo(state, file))
        }
        ("rpm", ["-q", "doca-host"]) => Some(match &state.doca_repo {
            Some(stem) => out(0, format!("{stem}\n"), ""),
            None => out(1, "package doca-host is not installed\n", ""),
        }),
        ("dnf" | "yum", ["clean", "all"]) => Some(out(0, "0 files removed\n", "")),
        ("dnf" | "yum", rest) if rest.contains(&PROFILE) => Some(install(host, state, base, rest)),
        _ => None,
    }
}

fn add_repo(state: &mut OfedState, file: &str) -> ExecOutput {
    let known = DocaPackage::from_path(file).filter(|p| full_version(&p.ofed_release).is_some());
    let Some(package) = known else {
        return out(
            1,
            "",
            format!("error: open of {file} failed: No such file or directory\n"),
        );
    };
    if state.doca_repo.as_deref() == Some(package.stem.as_str()) {
        return out(
            1,
            "",
            format!("\tpackage {} is already installed\n", package.stem),
        );
    }
    state.doca_repo = Some(package.stem);
    out(0, "", "")
}

fn install(
    host: &mut SimContext<'_>,
    state: &mut OfedState,
    program: &str,
    args: &[&str],
) -> ExecOutput {
    let release = state
        .doca_repo
        .as_deref()
        .and_then(|stem| DocaPackage::from_path(&format!("{stem}.rpm")))
        .and_then(|p| full_version(&p.ofed_release));
    let Some(version) = release else {
        let wanted: Vec<&str> = args
            .iter()
            .filter(|a| !a.starts_with('-') && **a != "install")
            .copied()
            .collect();
        let text: String = wanted
            .iter()
            .map(|p| format!("No match for argument: {p}\n"))
            .collect();
        return out(
            1,
            text,
            format!("Error: Unable to find a match: {}\n", wanted.join(" ")),
        );
    };
    let _ = program;
    let mut text = String::from("Dependencies resolved.\n");
    if args.contains(&FW_UPDATER) {
        let hw = GuestHw::of(host);
        let plan = super::sim_installer::FirmwarePlan::of(host, state);
        text.push_str(&super::sim_installer::firmware_step(&hw, &plan, None));
        plan.apply(state);
    }
    text.push_str("Complete!\n");
    state.installed = Some(version.to_owned());
    state.doca = true;
    host.mark("reboot_pending");
    out(0, text, "")
}

#[cfg(test)]
mod tests {

    use crate::ofed::OfedFlavour;

    use crate::test_support::{rhel8_guest, sim_exec as run};

    const RPM: &str = "/nfs/doca-host-2.10.0-093000_25.01_rhel95.x86_64.rpm";

    #[test]
    fn the_repo_package_then_doca_ofed_then_ofed_info_prints_the_doca_form() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let host = rhel8_guest("g", dir.path(), &[("ofed_fw", "16.35.1012")]);
        let early = run(&host, &["dnf", "-y", "install", "doca-ofed"]);
        assert_eq!(early.code, 1);
        assert!(
            early.stderr.contains("Unable to find a match: doca-ofed"),
            "{}",
            early.stderr
        );
        let missing = run(
            &host,
            &[
                "rpm",
                "-i",
                "/nfs/doca-host-9.9.9-000000_99.01_rhel95.x86_64.rpm",
            ],
        );
        assert!(missing.stderr.contains("No such file or directory"));
        assert_eq!(run(&host, &["rpm", "-q", "doca-host"]).code, 1);
        assert_eq!(run(&host, &["rpm", "-i", RPM]).code, 0);
        let again = run(&host, &["rpm", "-i", RPM]);
        assert!(
            again.stderr.contains("is already installed"),
            "{}",
            again.stderr
        );
        assert_eq!(
            run(&host, &["rpm", "-q", "doca-host"]).stdout,
            "doca-host-2.10.0-093000_25.01_rhel95.x86_64\n"
        );
        assert_eq!(run(&host, &["dnf", "clean", "all"]).code, 0);
        let done = run(
            &host,
            &["dnf", "-y", "install", "doca-ofed", "mlnx-fw-updater"],
        );
        assert_eq!(done.code, 0, "{}", done.stderr);
        // mlnx-fw-updater's firmware step is mlxfwmanager's output, and parses as such.
        let from = done
            .stdout
            .find("Querying")
            .unwrap_or_else(|| panic!("{}", done.stdout));
        let to = done.stdout.find("Complete!").unwrap_or(done.stdout.len());
        let fw = crate::grammar::mlxfwmanager::parse(&done.stdout[from..to])
            .unwrap_or_else(|e| panic!("{e}\n{}", done.stdout));
        assert_eq!(fw.updates.len(), fw.devices.len());
        let info = run(&host, &["ofed_info", "-s"]);
        let parsed = crate::ofed::parse_info(&info.stdout).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            (parsed.flavour, parsed.version.as_str()),
            (OfedFlavour::Doca, "25.01-0.6.0")
        );
        // Installed; the drivers load at the next boot, as with MLNX_OFED.
        assert_eq!(
            run(&host, &["/etc/init.d/openibd", "force-restart"]).code,
            1
        );
    }
}
