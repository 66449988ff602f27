//! The `ofed::` builtins: install MLNX_OFED in a Linux guest, read its version, restart its
//! drivers (VMware's guide, section 2.4).

use cairn_runtime::{BuiltinOptions, OptionType};
use rhai::plugin::*;

use crate::action::key;

/// `ofed::install(tarball, #{...})`'s options.
pub(crate) const INSTALL_OPTIONS: BuiltinOptions = BuiltinOptions {
    builtin: "ofed::install",
    arg: 1,
    keys: &[
        key("dir", OptionType::Text),
        key("distro_packages", OptionType::Array),
        key("firmware_update", OptionType::Bool),
        key("force", OptionType::Bool),
    ],
};

/// `ofed::install_doca(package, #{...})`'s options.
pub(crate) const INSTALL_DOCA_OPTIONS: BuiltinOptions = BuiltinOptions {
    builtin: "ofed::install_doca",
    arg: 1,
    keys: &[key("firmware_update", OptionType::Bool)],
};

/// The `ofed::` module.
///
/// `ofed::install` runs section 2.4 of the VMware guide: `tar xf TARBALL -C DIR`, `dnf install
/// -y` the distribution's prerequisites, then `DIR/MLNX_OFED_LINUX-…/mlnxofedinstall --force
/// --without-fw-update` (`firmware_update: true` leaves `--without-fw-update` out, and the
/// installer then burns the bundle's firmware when it is newer). The installer's transcript is
/// read by the `mlnxofedinstall` parser: an install that does not end in `Installation passed
/// successfully` fails with the installer's failure lines and the step it asks for (`Run: yum
/// install kernel-modules-extra`). Does nothing when `ofed_info -s` already shows the tarball's
/// version. The tarball must be named `MLNX_OFED_LINUX-<version>-<distro>-<arch>.tgz`.
///
/// `ofed::install_doca` installs DOCA-OFED as NVIDIA's DOCA-Host guide does (a `.deb` as in
/// NVIDIA's DGX Spark guide); its `rpm -i PACKAGE` is skipped when `rpm -q doca-host` shows the
/// repo package installed, and MLNX_OFED must be removed first (`/usr/sbin/ofed_uninstall.sh
/// --force`). The package must be named as NVIDIA publishes them:
/// `doca-host-2.10.0-093000_25.01_rhel95.x86_64.rpm`,
/// `doca-host_3.2.1-044000-25.10-ubuntu2404_arm64.deb` (DOCA version, build, OFED release,
/// distribution, architecture). Both installs are settled on resume by a probe (`ofed_info -s`
/// shows the version: it happened).
///
/// ```rhai
/// stage "install OFED" on guests {
///     ofed::install("/nfs/MLNX_OFED_LINUX-5.4-3.0.3.0-rhel8.1-x86_64.tgz");
///     reboot_if_pending();
/// }
/// stage "load the driver" on guests {
///     ofed::restart();
///     log(ofed::info().version);          // 5.4-3.0.3.0
/// }
/// ```
#[export_module]
pub mod ofed_builtins {
    use cairn_runtime::{ActionCall, ActionError, ExecRequest, Outcome, Reconcile};
    use rhai::{Dynamic, Map, NativeCallContext};
    use serde_json::{Value, json};

    use crate::action::{self, Change, Compared, RhaiResult};
    use crate::grammar::read_output;
    use crate::ofed::OfedFlavour;
    use crate::ofed::command::{self, Tarball};
    use crate::ofed::doca::{DocaPackage, PackageKind};
    use crate::ofed::reads::{self, OfedChange};

    /// The installed OFED, from `ofed_info -s`: `#{installed, distribution, flavour, version}`;
    /// `flavour` is `"mlnx_ofed"` or `"doca"` (or `"other"`); `installed` is false (and
    /// `version` is `()`) when OFED is not installed.
    ///
    /// ```rhai
    /// let ofed = ofed::info();
    /// log(`OFED ${ofed.version}`);        // OFED 5.4-3.0.3.0
    /// ```
    #[rhai_fn(volatile, return_raw)]
    pub fn info(ctx: NativeCallContext) -> RhaiResult<Dynamic> {
        let info = action::query_typed(
            &ctx,
            crate::ofed::NAMESPACE,
            json!({}),
            "ofed_info's installed OFED",
            reads::installed,
        )?;
        action::as_map(&info).map(Dynamic::from_map)
    }

    /// Installs MLNX_OFED from a tarball, as section 2.4 of the VMware guide does: unpacks it,
    /// installs the distribution's prerequisites (`kernel-modules-extra` on RHEL, `tk` on
    /// CentOS, from `/etc/os-release`), runs `mlnxofedinstall --force`, and marks the guest
    /// reboot-pending. Does nothing when the same version is already installed.
    /// Returns `#{version, changed}`.
    ///
    /// ```rhai
    /// ofed::install("/nfs/MLNX_OFED_LINUX-5.4-3.0.3.0-rhel8.1-x86_64.tgz");
    /// reboot_if_pending();
    /// ```
    #[rhai_fn(volatile, return_raw, name = "install")]
    pub fn install_default(ctx: NativeCallContext, tarball: &str) -> RhaiResult<Dynamic> {
        install(ctx, tarball, Map::new())
    }

    /// `ofed::install(tarball, #{...})` with options: `force` (default true: pass `--force`),
    /// `firmware_update` (default false: pass `--without-fw-update`, firmware belongs to the
    /// firmware step), `distro_packages` (an array; default from `/etc/os-release`), `dir`
    /// (where to unpack, default `/tmp`). The result adds `firmware` (what the installer did:
    /// `not_attempted`, `updated`, `up_to_date`, `failed`).
    ///
    /// ```rhai
    /// ofed::install("/nfs/MLNX_OFED_LINUX-5.4-3.0.3.0-rhel8.1-x86_64.tgz",
    ///               #{ distro_packages: ["kernel-modules-extra"], dir: "/root" });
    /// ```
    #[rhai_fn(volatile, return_raw, name = "install")]
    pub fn install(ctx: NativeCallContext, tarball: &str, options: Map) -> RhaiResult<Dynamic> {
        crate::action::check_options(&ctx, &super::INSTALL_OPTIONS, &options)?;
        let opts = action::options_json(&options)?;
        let Some(parsed) = Tarball::from_path(tarball) else {
            return Err(action::bad_argument(
                &ctx,
                format!(
                    "`{tarball}` is not an MLNX_OFED tarball (MLNX_OFED_LINUX-<version>-<distro>-<arch>.tgz)"
                ),
            ));
        };
        let force = action::flag(&opts, "force", true);
        let firmware_update = action::flag(&opts, "firmware_update", false);
        let dir = action::text(&opts, "dir").unwrap_or_else(|| "/tmp".into());
        let packages: Option<Vec<String>> = opts.get("distro_packages").map(|p| {
            p.as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|v| v.as_str().map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default()
        });
        let version = parsed.version.clone();
        let probe_version = version.clone();
        let change = Change {
            namespace: crate::ofed::NAMESPACE,
            args: json!({ "tarball": tarball, "force": force, "firmware_update": firmware_update, "dir": dir, "distro_packages": packages }),
            assumed: action::json(&OfedChange::of(&version, true)),
            // Marked before unpacking: a guest that already had this version owes no reboot.
            reconcile: Reconcile::Marked(Box::new(move |io, _| {
                let now = reads::installed(io)?;
                Ok(now.is(&probe_version).then(|| Outcome {
                    changed: true,
                    reboot_required: true,
                    value: action::json(&OfedChange::of(&probe_version, true)),
                }))
            })),
        };
        let installed: OfedChange = change.run_staged(
            &ctx,
            reads::installed,
            |_, now| {
                if now.is(&version) {
                    return Ok(Compared::Same(action::json(&OfedChange::of(
                        &version, false,
                    ))));
                }
                let value = action::json(&OfedChange::of(&version, true));
                Ok(Compared::differs(
                    value,
                    true,
                    json!({ "version": now.version }),
                    (),
                ))
            },
            |io, (), _| {
                io.run(&super::to_refs(&command::unpack(tarball, &dir)))?;
                let packages = match &packages {
                    Some(p) => p.clone(),
                    None => {
                        let release = io.exec(&ExecRequest::new(["cat", "/etc/os-release"]))?;
                        command::prerequisites(&release.stdout)
                    }
                };
                if !packages.is_empty() {
                    io.run(&super::to_refs(&command::dnf_install(&packages)))?;
                }
                io.record_progress(json!({ "unpacked": parsed.folder, "packages": packages }))?;
                let argv = command::mlnxofedinstall(&dir, &parsed.folder, force, firmware_update);
                let output = io.exec(&ExecRequest::new(argv.iter().cloned()))?;
                let transcript = read_output(&output.stdout, crate::ofed::parse_install);
                let passed = transcript
                    .as_ref()
                    .is_ok_and(|t| t.result == crate::ofed::InstallResult::Passed);
                if output.code != 0 || !passed {
                    return Err(ActionError::CommandFailed {
                        code: output.code,
                        command: argv.join(" "),
                        stderr: match &transcript {
                            Ok(t) => super::failure_summary(t, &output.stderr),
                            Err(_) => output.stderr,
                        },
                    });
                }
                let installed = OfedChange {
                    firmware: transcript.as_ref().ok().map(|t| t.firmware.outcome),
                    ..OfedChange::of(&version, true)
                };
                Ok(Outcome {
                    changed: true,
                    reboot_required: true,
                    value: action::json(&installed),
                })
            },
            "ofed::install's result",
            crate::ofed::staged::drivers_after_boot,
        )?;
        action::as_map(&installed).map(Dynamic::from_map)
    }

    /// Installs DOCA-OFED, NVIDIA's host driver that replaced MLNX_OFED, from a DOCA-Host repo
    /// package as NVIDIA's DOCA-Host guide does: `rpm -i PACKAGE`, `dnf clean all`,
    /// `dnf -y install doca-ofed` (a `.deb`: `dpkg -i`, `apt-get update`, `apt-get -y install`),
    /// and marks the guest reboot-pending. Does nothing when `ofed_info -s` already shows the
    /// package's OFED release (`OFED-internal-25.01-...`); refuses while MLNX_OFED is installed
    /// (DOCA-Host needs it uninstalled first). Returns `#{version, changed}`: `version` is the
    /// OFED release (`25.01`).
    ///
    /// ```rhai
    /// ofed::install_doca("/nfs/doca-host-2.10.0-093000_25.01_rhel95.x86_64.rpm");
    /// reboot_if_pending();
    /// ```
    #[rhai_fn(volatile, return_raw, name = "install_doca")]
    pub fn install_doca_default(ctx: NativeCallContext, package: &str) -> RhaiResult<Dynamic> {
        install_doca(ctx, package, Map::new())
    }

    /// `ofed::install_doca(package, #{...})` with `firmware_update` (default false: leave out
    /// `mlnx-fw-updater`, whose install burns the bundled firmware; firmware belongs to the
    /// firmware step).
    ///
    /// ```rhai
    /// ofed::install_doca("/nfs/doca-host-2.10.0-093000_25.01_rhel95.x86_64.rpm",
    ///                    #{ firmware_update: true });
    /// ```
    #[rhai_fn(volatile, return_raw, name = "install_doca")]
    pub fn install_doca(
        ctx: NativeCallContext,
        package: &str,
        options: Map,
    ) -> RhaiResult<Dynamic> {
        crate::action::check_options(&ctx, &super::INSTALL_DOCA_OPTIONS, &options)?;
        let opts = action::options_json(&options)?;
        let Some(parsed) = DocaPackage::from_path(package) else {
            return Err(action::bad_argument(
                &ctx,
                format!(
                    "`{package}` is not a DOCA-Host repo package (doca-host-<doca>-<build>_<ofed>_<distro>.<arch>.rpm or doca-host_<doca>-<build>-<ofed>-<distro>_<arch>.deb)"
                ),
            ));
        };
        let firmware_update = action::flag(&opts, "firmware_update", false);
        let release = parsed.ofed_release.clone();
        let probe = parsed.clone();
        let change = Change {
            namespace: crate::ofed::NAMESPACE,
            args: json!({ "package": package, "firmware_update": firmware_update }),
            assumed: action::json(&OfedChange::of(&release, true)),
            // Marked before the repo is added: a guest that already had it owes no reboot.
            reconcile: Reconcile::Marked(Box::new(move |io, _| {
                let now = reads::installed(io)?;
                let done = now.flavour == Some(OfedFlavour::Doca)
                    && now.version.as_deref().is_some_and(|v| probe.carries(v));
                Ok(done.then(|| Outcome {
                    changed: true,
                    reboot_required: true,
                    value: action::json(&OfedChange::of(&probe.ofed_release, true)),
                }))
            })),
        };
        let package = package.to_owned();
        let installed: OfedChange = change.run_staged(
            &ctx,
            reads::installed,
            |_, now| {
                if now.flavour == Some(OfedFlavour::Doca)
                    && now.version.as_deref().is_some_and(|v| parsed.carries(v))
                {
                    return Ok(Compared::Same(action::json(&OfedChange::of(
                        &release, false,
                    ))));
                }
                if now.flavour == Some(OfedFlavour::MlnxOfed) {
                    return Err(ActionError::Failed(format!(
                        "{}-{} is installed: DOCA-Host needs MLNX_OFED uninstalled first (`/usr/sbin/ofed_uninstall.sh --force`, NVIDIA's DOCA-Host guide)",
                        now.distribution.as_deref().unwrap_or("MLNX_OFED_LINUX"),
                        now.version.as_deref().unwrap_or("?"),
                    )));
                }
                let value = action::json(&OfedChange::of(&release, true));
                Ok(Compared::differs(value, true, json!({ "version": now.version }), ()))
            },
            |io, (), planned| {
                // `rpm -i` refuses a repo package that is installed already (a resumed run).
                let added = parsed.kind == PackageKind::Rpm
                    && io
                        .exec(&ExecRequest::new(["rpm", "-q", "doca-host"]))?
                        .stdout
                        .lines()
                        .any(|l| l.trim() == parsed.stem);
                if !added {
                    io.run(&super::to_refs(&parsed.add_repo(&package)))?;
                }
                io.run(&super::to_refs(&parsed.refresh()))?;
                io.record_progress(json!({ "repo": parsed.stem }))?;
                io.run(&super::to_refs(&parsed.install(firmware_update)))?;
                Ok(planned)
            },
            "ofed::install_doca's result",
            crate::ofed::staged::drivers_after_boot,
        )?;
        action::as_map(&installed).map(Dynamic::from_map)
    }

    /// Reloads the OFED drivers: `/etc/init.d/openibd force-restart`. Interface settings
    /// (MTU, addresses) made before are lost, as on a real guest. Returns the script's steps
    /// (the `openibd` parser's result); when the script refuses or a step fails (an application
    /// still using the InfiniBand devices, a module in use), fails with the script's words and
    /// the command it says to run once the issue is resolved.
    ///
    /// ```rhai
    /// ofed::restart();
    /// ```
    #[rhai_fn(volatile, return_raw)]
    pub fn restart(ctx: NativeCallContext) -> RhaiResult<Dynamic> {
        let call = ActionCall {
            args: json!({}),
            assumed: Value::Null,
            builtin: action::builtin_name(&ctx, crate::ofed::NAMESPACE),
            reconcile: Reconcile::Redo,
        };
        action::act(&ctx, call, |io| {
            if io.checking() {
                return Ok(Outcome {
                    changed: true,
                    reboot_required: false,
                    value: Value::Null,
                });
            }
            let argv = [command::OPENIBD, "force-restart"];
            let output = io.exec(&ExecRequest::new(argv))?;
            let line = argv.join(" ");
            let parsed =
                action::parsed(line.as_str(), &output.stdout, crate::ofed::openibd::parse)?;
            if let Some(error) = &parsed.error {
                let help = "stop what uses the InfiniBand devices, or reboot to load the drivers";
                return Err(action::tool_failure(&line, error, &parsed.next_steps, help));
            }
            if output.code != 0 {
                return Err(ActionError::CommandFailed {
                    code: output.code,
                    command: line,
                    stderr: format!("{}{}", output.stdout, output.stderr),
                });
            }
            Ok(Outcome {
                changed: true,
                reboot_required: false,
                value: action::json(&parsed),
            })
        })
    }
}

/// What a failed install said, for its error: the failure lines, and what the installer asks
/// to do next (`yum install kernel-modules-extra` after `Run:`), or why it stopped.
fn failure_summary(transcript: &crate::ofed::OfedInstall, stderr: &str) -> String {
    let mut lines: Vec<String> = transcript.errors.clone();
    for step in &transcript.next_steps {
        lines.push(match &step.command {
            Some(command) => format!("{} {command}", step.what),
            None => step.what.clone(),
        });
    }
    if transcript.result == crate::ofed::InstallResult::NotConfirmed {
        lines.push(
            "the installer asked `Do you want to continue?[y/N]:` (pass `force: true`)".into(),
        );
    }
    if lines.is_empty() {
        return stderr.to_owned();
    }
    lines.join("\n")
}

fn to_refs(argv: &[String]) -> Vec<&str> {
    argv.iter().map(String::as_str).collect()
}

#[cfg(test)]
mod tests {
    use crate::test_support::TestHost;

    const TGZ: &str = "/nfs/MLNX_OFED_LINUX-5.4-3.0.3.0-rhel8.1-x86_64.tgz";

    #[test]
    fn install_marks_a_reboot_and_is_skipped_when_the_version_is_there() {
        let t = TestHost::guests(&[("compute-02", "")], "compute-02").build();
        assert_eq!(t.eval("ofed::info().installed").as_bool().ok(), Some(false));
        let first = t.eval(&format!("ofed::install(\"{TGZ}\").changed"));
        assert_eq!(first.as_bool().ok(), Some(true));
        assert!(t.host.reboot_pending().is_some());
        assert_eq!(t.eval("ofed::info().version").to_string(), "5.4-3.0.3.0");
        let again = t.eval(&format!(
            "ofed::install(\"{TGZ}\", #{{ force: true }}).changed"
        ));
        assert_eq!(again.as_bool().ok(), Some(false));
        let bad = t.error("ofed::install(\"/nfs/ofed.tgz\")");
        assert!(bad.contains("is not an MLNX_OFED tarball"), "{bad}");
        // Before the reboot the new driver cannot be loaded.
        let refused = t.error("ofed::restart()");
        assert!(
            refused.contains("Loading Mellanox MLX5 HCA driver: [FAILED]"),
            "{refused}"
        );
    }

    /// `openibd_held_by`: the script refuses to unload the stack, and the builtin fails with its
    /// words and the command it says to run once the issue is resolved.
    #[test]
    fn a_restart_refused_by_an_application_names_it_and_the_next_step() {
        let t = TestHost::guests(&[("c", "ofed=5.4-3.0.3.0&openibd_held_by=opensm")], "c").build();
        let refused = t.error("ofed::restart()");
        assert!(
            refused.contains("(blocked)")
                && refused.contains("Error: Cannot unload the Infiniband driver stack"),
            "{refused}"
        );
        assert!(
            refused.contains("/etc/init.d/openibd force-restart"),
            "{refused}"
        );
        let ok = TestHost::guests(&[("d", "ofed=5.4-3.0.3.0")], "d").build();
        assert_eq!(ok.eval("ofed::restart().ok").as_bool().ok(), Some(true));
    }

    #[test]
    fn centos_needs_tk_and_a_missing_prerequisite_fails_the_install() {
        let t = TestHost::guests(&[("c", "distro=centos")], "c").build();
        assert_eq!(
            t.eval(&format!("ofed::install(\"{TGZ}\").changed"))
                .as_bool()
                .ok(),
            Some(true)
        );
        let t = TestHost::guests(&[("r", "")], "r").build();
        let error = t.error(&format!(
            "ofed::install(\"{TGZ}\", #{{ distro_packages: [] }})"
        ));
        assert!(
            error.contains("yum install kernel-modules-extra"),
            "{error}"
        );
    }

    #[test]
    fn install_leaves_firmware_to_the_firmware_step_unless_asked() {
        let t = TestHost::guests(&[("g", "ofed_fw=16.35.1012")], "g").build();
        let plain = t.eval(&format!("ofed::install(\"{TGZ}\").firmware"));
        assert_eq!(plain.to_string(), "not_attempted");
        let log = cairn_runtime::sim::SimHost::command_log(&t.dir.path().join("sim").join("g"));
        assert!(
            log.iter()
                .any(|argv| argv.iter().any(|a| a == "--without-fw-update")),
            "{log:?}"
        );
        let t = TestHost::guests(&[("g", "ofed_fw=16.35.1012")], "g").build();
        let burned = t.eval(&format!(
            "ofed::install(\"{TGZ}\", #{{ firmware_update: true }}).firmware"
        ));
        assert_eq!(burned.to_string(), "updated");
        let error = t.error(&format!(
            "ofed::install(\"{TGZ}\", #{{ firmware_updates: true }})"
        ));
        assert!(error.contains("firmware_update"), "{error}");
    }

    const DOCA: &str = "/nfs/doca-host-2.10.0-093000_25.01_rhel95.x86_64.rpm";

    #[test]
    fn install_doca_adds_the_repo_installs_the_profile_and_is_skipped_once_there() {
        let t = TestHost::guests(&[("g", "ofed_fw=16.35.1012")], "g").build();
        let first = t.eval(&format!("ofed::install_doca(\"{DOCA}\")"));
        let first = first.cast::<rhai::Map>();
        assert_eq!(
            first.get("changed").and_then(|v| v.as_bool().ok()),
            Some(true)
        );
        assert_eq!(
            first.get("version").map(ToString::to_string),
            Some("25.01".into())
        );
        assert!(t.host.reboot_pending().is_some());
        assert_eq!(t.eval("ofed::info().flavour").to_string(), "doca");
        assert_eq!(t.eval("ofed::info().version").to_string(), "25.01-0.6.0");
        let log = cairn_runtime::sim::SimHost::command_log(&t.dir.path().join("sim").join("g"));
        let ran: Vec<String> = log.iter().map(|argv| argv.join(" ")).collect();
        for expected in [
            format!("rpm -i {DOCA}"),
            "dnf clean all".into(),
            "dnf -y install doca-ofed".into(),
        ] {
            assert!(ran.contains(&expected), "{expected}: {ran:?}");
        }
        assert!(
            !ran.iter().any(|c| c.contains("mlnx-fw-updater")),
            "{ran:?}"
        );
        let again = t.eval(&format!("ofed::install_doca(\"{DOCA}\").changed"));
        assert_eq!(again.as_bool().ok(), Some(false));
        let bad = t.error(&format!("ofed::install(\"{DOCA}\")"));
        assert!(bad.contains("is not an MLNX_OFED tarball"), "{bad}");
        let bad = t.error("ofed::install_doca(\"/nfs/doca.rpm\")");
        assert!(bad.contains("is not a DOCA-Host repo package"), "{bad}");
        let typo = t.error(&format!(
            "ofed::install_doca(\"{DOCA}\", #{{ firmware_updat: true }})"
        ));
        assert!(typo.contains("did you mean `firmware_update`"), "{typo}");
    }

    #[test]
    fn install_doca_refuses_over_mlnx_ofed_and_updates_firmware_only_when_asked() {
        let t = TestHost::guests(&[("g", "")], "g").build();
        assert_eq!(
            t.eval(&format!("ofed::install(\"{TGZ}\").changed"))
                .as_bool()
                .ok(),
            Some(true)
        );
        let error = t.error(&format!("ofed::install_doca(\"{DOCA}\")"));
        assert!(
            error.contains("MLNX_OFED_LINUX-5.4-3.0.3.0 is installed"),
            "{error}"
        );
        assert!(error.contains("ofed_uninstall.sh"), "{error}");
        let t = TestHost::guests(&[("g", "ofed_fw=16.35.1012")], "g").build();
        let done = t.eval(&format!(
            "ofed::install_doca(\"{DOCA}\", #{{ firmware_update: true }}).changed"
        ));
        assert_eq!(done.as_bool().ok(), Some(true));
        let log = cairn_runtime::sim::SimHost::command_log(&t.dir.path().join("sim").join("g"));
        assert!(
            log.iter()
                .any(|argv| argv.join(" ") == "dnf -y install doca-ofed mlnx-fw-updater"),
            "{log:?}"
        );
    }
}
