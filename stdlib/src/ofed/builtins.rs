//! The `ofed::` builtins: install MLNX_OFED in a Linux guest, read its version, restart its
//! drivers (reference 000, section 2.4).

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
        key("force", OptionType::Bool),
    ],
};

/// The `ofed::` module.
#[export_module]
pub mod ofed_builtins {
    use cairn_runtime::{ActionCall, ActionError, ExecRequest, Outcome, Reconcile};
    use rhai::{Dynamic, Map, NativeCallContext};
    use serde_json::{Value, json};

    use crate::action::{self, RhaiResult};
    use crate::ofed::command::{self, Tarball};

    /// The installed MLNX_OFED, from `ofed_info -s`: `#{installed, distribution, version}`;
    /// `installed` is false (and `version` is `()`) when OFED is not installed.
    ///
    /// ```rhai
    /// let ofed = ofed::info();
    /// log(`OFED ${ofed.version}`);        // OFED 5.4-3.0.3.0
    /// ```
    #[rhai_fn(volatile, return_raw)]
    pub fn info(ctx: NativeCallContext) -> RhaiResult<Dynamic> {
        action::query(&ctx, "ofed::info", json!({}), super::installed)
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
    /// `distro_packages` (an array; default from `/etc/os-release`), `dir` (where to unpack,
    /// default `/tmp`).
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
            return Err(action::fail(
                &ctx,
                format!(
                    "`{tarball}` is not an MLNX_OFED tarball (MLNX_OFED_LINUX-<version>-<distro>-<arch>.tgz)"
                ),
            ));
        };
        let force = action::flag(&opts, "force", true);
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
        let call = ActionCall {
            args: json!({ "tarball": tarball, "force": force, "dir": dir, "distro_packages": packages }),
            assumed: json!({ "version": version, "changed": true }),
            builtin: "ofed::install".into(),
            // Marked before unpacking: a guest that already had this version owes no reboot.
            reconcile: Reconcile::Marked(Box::new(move |io, _| {
                let now = super::installed(io)?;
                Ok((now["version"] == probe_version.as_str()).then(|| Outcome {
                    changed: true,
                    reboot_required: true,
                    value: json!({ "version": probe_version, "changed": true }),
                }))
            })),
        };
        action::act(&ctx, call, |io| {
            let now = super::installed(io)?;
            if now["version"] == version.as_str() {
                return Ok(Outcome::unchanged(
                    json!({ "version": version, "changed": false }),
                ));
            }
            let value = json!({ "version": version, "changed": true });
            if io.checking() {
                return Ok(Outcome {
                    changed: true,
                    reboot_required: true,
                    value,
                });
            }
            io.acting(json!({ "version": now["version"] }))?;
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
            let argv = command::mlnxofedinstall(&dir, &parsed.folder, force);
            let output = io.exec(&ExecRequest::new(argv.iter().cloned()))?;
            if output.code != 0 {
                let tail: Vec<&str> = output
                    .stdout
                    .lines()
                    .filter(|l| {
                        l.contains("rror") || l.contains("Failure") || l.contains("install ")
                    })
                    .collect();
                return Err(ActionError::CommandFailed {
                    code: output.code,
                    command: argv.join(" "),
                    stderr: if tail.is_empty() {
                        output.stderr
                    } else {
                        tail.join("\n")
                    },
                });
            }
            Ok(Outcome {
                changed: true,
                reboot_required: true,
                value,
            })
        })
    }

    /// Reloads the OFED drivers: `/etc/init.d/openibd force-restart`. Interface settings
    /// (MTU, addresses) made before are lost, as on a real guest.
    ///
    /// ```rhai
    /// ofed::restart();
    /// ```
    #[rhai_fn(volatile, return_raw)]
    pub fn restart(ctx: NativeCallContext) -> RhaiResult<Dynamic> {
        let call = ActionCall {
            args: json!({}),
            assumed: Value::Null,
            builtin: "ofed::restart".into(),
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
            let output = io.run(&[command::OPENIBD, "force-restart"])?;
            Ok(Outcome {
                changed: true,
                reboot_required: false,
                value: json!(output.stdout),
            })
        })
    }
}

use cairn_runtime::{ActionError, ExecRequest, HostIo};
use serde_json::{Value, json};

use crate::action;
use crate::ofed::command;

fn installed(io: &mut HostIo<'_>) -> Result<Value, ActionError> {
    let output = io.exec(&ExecRequest::new(command::INFO.iter().copied()))?;
    if output.code != 0 {
        return Ok(json!({ "installed": false, "distribution": null, "version": null }));
    }
    let info = crate::ofed::parse_info(&output.stdout)
        .map_err(|e| action::parse_failure("ofed_info -s", &e, &output.stdout))?;
    Ok(json!({ "installed": true, "distribution": info.distribution, "version": info.version }))
}

fn to_refs(argv: &[String]) -> Vec<&str> {
    argv.iter().map(String::as_str).collect()
}

#[cfg(test)]
mod tests {
    use crate::test_support::guest_host::TestHost;

    const TGZ: &str = "/nfs/MLNX_OFED_LINUX-5.4-3.0.3.0-rhel8.1-x86_64.tgz";

    #[test]
    fn install_marks_a_reboot_and_is_skipped_when_the_version_is_there() {
        let t = TestHost::new(&[("compute-02", "")], "compute-02");
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
        assert!(
            t.error("ofed::restart()")
                .contains("openibd force-restart` exited with 1")
        );
    }

    #[test]
    fn centos_needs_tk_and_a_missing_prerequisite_fails_the_install() {
        let t = TestHost::new(&[("c", "distro=centos")], "c");
        assert_eq!(
            t.eval(&format!("ofed::install(\"{TGZ}\").changed"))
                .as_bool()
                .ok(),
            Some(true)
        );
        let t = TestHost::new(&[("r", "")], "r");
        let error = t.error(&format!(
            "ofed::install(\"{TGZ}\", #{{ distro_packages: [] }})"
        ));
        assert!(
            error.contains("yum install kernel-modules-extra"),
            "{error}"
        );
    }
}
