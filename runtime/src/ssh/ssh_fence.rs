//! Where an SSH host keeps its fence, from its inventory vars, and the command lines that run
//! through it: every changing command is `sh -c SCRIPT cairn-fence run ...` with the
//! script inline (nothing to install, nothing to go stale on the host), the folder checked once
//! per session before the first action (`cairn-fence check`), and `query` for a resume.
//!
//! Host vars: `fence_dir` (default `/var/lib/cairn/fence`), `fence_datastore` (ESXi: the fence
//! is kept in `/vmfs/volumes/DATASTORE/cairn-fence`), `fence = false` (unfenced).

use std::collections::BTreeMap;

use serde_json::Value;

use super::SshError;
use super::command_line::SUDO;
use crate::ExecOutput;
use crate::fence::{Fence, FencePlace, FenceStep, FenceVerdict, StepRecord};

/// The host vars that say where the fence is; any other `fence...` var is a typo.
const FENCE_VARS: [&str; 3] = ["fence", "fence_dir", "fence_datastore"];

/// How an SSH host is fenced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FenceSetting {
    /// `fence = false`: its commands run as they are, and a resume asks about an open intent.
    Off,
    /// Kept in this folder; `datastore` when the inventory named an ESXi datastore.
    At {
        /// The folder.
        place: FencePlace,
        /// Whether the folder came from `fence_datastore`.
        datastore: bool,
    },
}

impl Default for FenceSetting {
    fn default() -> Self {
        Self::At {
            place: FencePlace::linux(),
            datastore: false,
        }
    }
}

impl FenceSetting {
    /// The setting the host vars give: `fence` (bool), `fence_dir` (absolute path) or
    /// `fence_datastore` (a datastore name), never both of the last two.
    pub fn from_vars(vars: &BTreeMap<String, Value>) -> Result<Self, SshError> {
        if let Some(typo) = vars
            .keys()
            .find(|key| key.starts_with("fence") && !FENCE_VARS.contains(&key.as_str()))
        {
            let near = crate::inventory::closest(typo, FENCE_VARS)
                .map(|near| format!("; did you mean `{near}`?"))
                .unwrap_or_default();
            return Err(SshError::Invalid(format!(
                "unknown host var `{typo}`{near} (the fence's vars: {})",
                FENCE_VARS.join(", ")
            )));
        }
        match vars.get("fence") {
            None | Some(Value::Bool(true)) => {}
            Some(Value::Bool(false)) => return Ok(Self::Off),
            Some(other) => {
                return Err(SshError::Invalid(format!(
                    "host var `fence` is {other}: write `fence = false` to run this host unfenced"
                )));
            }
        }
        let text = |key: &str| match vars.get(key) {
            None => Ok(None),
            Some(Value::String(s)) if !s.is_empty() => Ok(Some(s.clone())),
            Some(other) => Err(SshError::Invalid(format!(
                "host var `{key}` is {other}: it must be a non-empty string"
            ))),
        };
        let invalid = |e: crate::fence::FencePlaceError| SshError::Invalid(e.to_string());
        match (text("fence_dir")?, text("fence_datastore")?) {
            (Some(_), Some(_)) => Err(SshError::Invalid(
                "host vars `fence_dir` and `fence_datastore` both say where the fence is: give one (`fence_datastore` on ESXi)".into(),
            )),
            (Some(dir), None) => Ok(Self::At {
                place: FencePlace::at(&dir).map_err(invalid)?,
                datastore: false,
            }),
            (None, Some(datastore)) => Ok(Self::At {
                place: FencePlace::esxi(&datastore).map_err(invalid)?,
                datastore: true,
            }),
            (None, None) => Ok(Self::default()),
        }
    }

    fn place(&self) -> Option<&FencePlace> {
        match self {
            Self::Off => None,
            Self::At { place, .. } => Some(place),
        }
    }

    /// The command line that runs `line` (already quoted, without sudo) as `step`, through
    /// sudo when `become_root` (the fence writes its folder as root); `None` when unfenced.
    pub(super) fn wrap(
        &self,
        step: &FenceStep,
        line: &str,
        become_root: bool,
    ) -> Result<Option<String>, SshError> {
        let Some(place) = self.place() else {
            return Ok(None);
        };
        let fence = Fence::new(place.clone(), step.epoch, &step.owner).map_err(invalid)?;
        let wrapped = fence.wrap(&step.step, line).map_err(invalid)?;
        Ok(Some(with_sudo(wrapped, become_root)))
    }

    /// The command line that checks the folder before the first action, offering `id` as the
    /// folder's id should it have none; `None` when unfenced.
    pub(super) fn check_line(
        &self,
        become_root: bool,
        id: &str,
    ) -> Result<Option<String>, SshError> {
        let Some(place) = self.place() else {
            return Ok(None);
        };
        let fence = Fence::new(place.clone(), 0, "check").map_err(invalid)?;
        Ok(Some(with_sudo(
            fence.check(id).map_err(invalid)?,
            become_root,
        )))
    }

    /// The folder the fence is kept in, for messages.
    pub(super) fn dir(&self) -> Option<&str> {
        self.place().map(FencePlace::dir)
    }

    /// The command line that removes run `run`'s step records at `epoch` by `owner`; `None`
    /// when unfenced.
    pub(super) fn prune_line(
        &self,
        epoch: u64,
        owner: &str,
        run: &str,
        become_root: bool,
    ) -> Result<Option<String>, SshError> {
        let Some(place) = self.place() else {
            return Ok(None);
        };
        let fence = Fence::new(place.clone(), epoch, owner).map_err(invalid)?;
        Ok(Some(with_sudo(
            fence.prune(run).map_err(invalid)?,
            become_root,
        )))
    }

    /// The command line that asks what the fence recorded of `step`; `None` when unfenced.
    pub(super) fn query_line(
        &self,
        step: &str,
        become_root: bool,
    ) -> Result<Option<String>, SshError> {
        let Some(place) = self.place() else {
            return Ok(None);
        };
        let fence = Fence::new(place.clone(), 0, "query").map_err(invalid)?;
        Ok(Some(with_sudo(
            fence.query(step).map_err(invalid)?,
            become_root,
        )))
    }

    /// What the check's answer says: fine, with the folder's id (`ok SYSTEM FOLDER-ID`), or why
    /// host `host` must not be acted on.
    pub(super) fn judge_check(
        &self,
        host: &str,
        output: &ExecOutput,
    ) -> Result<Option<String>, SshError> {
        let Some(place) = self.place() else {
            return Ok(None);
        };
        let code = i32::try_from(output.code).unwrap_or(i32::MAX);
        let refused = |said: String, help: &str| SshError::FencePlace {
            host: host.to_owned(),
            said,
            help: help.to_owned(),
        };
        let datastore = matches!(
            self,
            Self::At {
                datastore: true,
                ..
            }
        );
        match FenceVerdict::judge(code, &output.stderr) {
            FenceVerdict::Ran(0) if output.stdout.starts_with("ok ") => {
                Ok(output.stdout.split_whitespace().nth(2).map(str::to_owned))
            }
            FenceVerdict::Volatile(said) if !datastore && said.contains("ESXi") => Err(refused(
                format!(
                    "it is an ESXi host and the inventory names no datastore for its fence ({said})"
                ),
                "set the host var `fence_datastore` to a datastore of the host (`esxcli storage filesystem list`), e.g. `vars = { fence_datastore = \"datastore1\" }`: the fence is kept in /vmfs/volumes/DATASTORE/cairn-fence, which a reboot keeps",
            )),
            FenceVerdict::Volatile(said) => Err(refused(
                said,
                "set the host var `fence_dir` to a folder on a disk (default /var/lib/cairn/fence; on ESXi `fence_datastore`)",
            )),
            FenceVerdict::Broken(said) => Err(refused(
                said,
                &format!(
                    "the login user must be able to create and write {} (root, or `become = true`), or set the host var `fence_dir`",
                    place.dir()
                ),
            )),
            _ => Err(refused(
                format!(
                    "the check exited {} ({}{})",
                    output.code,
                    output.stdout.trim(),
                    output.stderr.trim()
                ),
                "the fence needs a POSIX `sh` on the host; `fence = false` runs the host unfenced",
            )),
        }
    }
}

/// What a query's answer says: the record, or `None` when the host's answer is none of the
/// fence's (a host that keeps no fence): nothing is known, and the resume asks.
pub(super) fn parse_query(output: &ExecOutput) -> Option<StepRecord> {
    (output.code == 0)
        .then(|| StepRecord::parse(&output.stdout))
        .flatten()
}

fn with_sudo(line: String, become_root: bool) -> String {
    if become_root {
        format!("{} {line}", SUDO.join(" "))
    } else {
        line
    }
}

fn invalid(error: crate::fence::FencePlaceError) -> SshError {
    SshError::Invalid(error.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(text: &str) -> BTreeMap<String, Value> {
        let table: toml::Table = text.parse().unwrap_or_else(|e| panic!("{e}"));
        table
            .into_iter()
            .map(|(k, v)| (k, serde_json::to_value(v).unwrap_or_default()))
            .collect()
    }

    #[test]
    fn the_vars_say_where_the_fence_is_and_refuse_typos_and_contradictions() {
        assert_eq!(
            FenceSetting::from_vars(&vars("")).ok(),
            Some(FenceSetting::default())
        );
        assert_eq!(
            FenceSetting::from_vars(&vars("fence = false")).ok(),
            Some(FenceSetting::Off)
        );
        let Ok(FenceSetting::At { place, datastore }) =
            FenceSetting::from_vars(&vars("fence_datastore = \"ds1\""))
        else {
            panic!("a datastore");
        };
        assert_eq!(
            (place.dir(), datastore),
            ("/vmfs/volumes/ds1/cairn-fence", true)
        );
        for (text, says) in [
            (
                "fence_datstore = \"ds1\"",
                "did you mean `fence_datastore`?",
            ),
            ("fence_dir = \"var/x\"", "not an absolute path"),
            ("fence_dir = \"/x\"\nfence_datastore = \"d\"", "give one"),
            ("fence = \"no\"", "fence = false"),
            ("fence_datastore = \"a/b\"", "not a datastore name"),
        ] {
            match FenceSetting::from_vars(&vars(text)) {
                Err(error) => assert!(error.to_string().contains(says), "{text}: {error}"),
                Ok(setting) => panic!("{text} gave {setting:?}"),
            }
        }
    }

    #[test]
    fn an_esxi_host_without_a_datastore_is_told_to_name_one() {
        let answer = ExecOutput {
            code: 243,
            stderr: "cairn-fence: /var/lib/cairn/fence is on ESXi's in-memory file system; give a datastore folder (/vmfs/volumes/DATASTORE/...)\n".into(),
            stdout: String::new(),
        };
        let Err(SshError::FencePlace { said, help, .. }) =
            FenceSetting::default().judge_check("esx01", &answer)
        else {
            panic!("refused");
        };
        assert!(said.contains("names no datastore"), "{said}");
        assert!(help.contains("fence_datastore"), "{help}");
        let fine = ExecOutput {
            code: 0,
            stderr: String::new(),
            stdout: "ok Linux f00d\n".into(),
        };
        assert_eq!(
            FenceSetting::default().judge_check("n1", &fine).ok(),
            Some(Some("f00d".into()))
        );
    }
}
