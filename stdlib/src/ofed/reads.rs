//! What the `ofed::` builtins read from a guest and return, as typed values: `info` journals an
//! [`InstalledOfed`] (`action::query_typed`) and the installs decide from one; `install` and
//! `install_doca` return an [`OfedChange`] (`action::result_typed`). A replayed record of
//! another shape is refused naming it, never read as "not installed".

use cairn_runtime::{ActionError, ExecRequest, HostIo};
use serde::{Deserialize, Serialize};

use super::{FirmwareOutcome, OfedFlavour, command};
use crate::action;

/// What `ofed::info` gives a script, from `ofed_info -s`: when OFED is not installed,
/// `installed` is false and the rest `()`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InstalledOfed {
    /// Whether `ofed_info -s` ran.
    pub installed: bool,
    /// The distribution name before the version (`MLNX_OFED_LINUX`, `OFED-internal`).
    #[serde(deserialize_with = "action::present")]
    pub distribution: Option<String>,
    /// Which NVIDIA stack it is.
    #[serde(deserialize_with = "action::present")]
    pub flavour: Option<OfedFlavour>,
    /// The version as printed (`5.4-3.0.3.0`).
    #[serde(deserialize_with = "action::present")]
    pub version: Option<String>,
}

impl InstalledOfed {
    /// Whether the installed OFED is `version` (false when none is installed).
    pub(super) fn is(&self, version: &str) -> bool {
        self.version.as_deref() == Some(version)
    }
}

/// What `ofed::install` and `ofed::install_doca` return: the version installed (the tarball's;
/// DOCA's OFED release) and whether this call installed it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OfedChange {
    /// The version the call installs.
    pub version: String,
    /// Whether it installed it (false: it was there already).
    pub changed: bool,
    /// What MLNX_OFED's installer did with the firmware; only after an install ran (absent when
    /// skipped, predicted in check mode, settled by a probe or assumed done; serde reads a
    /// missing `Option` as none, and a renamed one is refused as a field the type does not keep).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub firmware: Option<FirmwareOutcome>,
}

impl OfedChange {
    /// A change of `version` without the installer's word on the firmware.
    pub(super) fn of(version: &str, changed: bool) -> Self {
        Self {
            version: version.to_owned(),
            changed,
            firmware: None,
        }
    }
}

/// `ofed_info -s`: the installed OFED; not installed when it does not run.
pub(super) fn installed(io: &mut HostIo<'_>) -> Result<InstalledOfed, ActionError> {
    let output = io.exec(&ExecRequest::new(command::INFO.iter().copied()))?;
    if output.code != 0 {
        return Ok(InstalledOfed {
            installed: false,
            distribution: None,
            flavour: None,
            version: None,
        });
    }
    let info = action::parsed("ofed_info -s", &output.stdout, super::parse_info)?;
    Ok(InstalledOfed {
        installed: true,
        distribution: Some(info.distribution),
        flavour: Some(info.flavour),
        version: Some(info.version),
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::test_support::TestHost;
    use crate::test_support::{journal_of, shape_error};

    const TGZ: &str = "/nfs/MLNX_OFED_LINUX-5.4-3.0.3.0-rhel8.1-x86_64.tgz";

    /// The records as the builtins wrote them by hand before they had types: the journal's
    /// bytes stay the same.
    #[test]
    fn info_and_install_journal_the_bytes_the_hand_built_records_had_and_read_back() {
        let none = InstalledOfed {
            installed: false,
            distribution: None,
            flavour: None,
            version: None,
        };
        let old =
            json!({ "installed": false, "distribution": null, "flavour": null, "version": null });
        let some = InstalledOfed {
            installed: true,
            distribution: Some("MLNX_OFED_LINUX".into()),
            flavour: Some(OfedFlavour::MlnxOfed),
            version: Some("5.4-3.0.3.0".into()),
        };
        let old_some = json!({ "installed": true, "distribution": "MLNX_OFED_LINUX", "flavour": OfedFlavour::MlnxOfed.as_str(), "version": "5.4-3.0.3.0" });
        let ran = OfedChange {
            firmware: Some(FirmwareOutcome::NotAttempted),
            ..OfedChange::of("5.4-3.0.3.0", true)
        };
        let old_ran =
            json!({ "version": "5.4-3.0.3.0", "changed": true, "firmware": "not_attempted" });
        let skipped = OfedChange::of("25.01", false);
        let old_skipped = json!({ "version": "25.01", "changed": false });
        for (typed, old) in [
            (action::json(&none), old),
            (action::json(&some), old_some),
            (action::json(&ran), old_ran),
            (action::json(&skipped), old_skipped),
        ] {
            assert_eq!(typed.to_string(), old.to_string());
        }
        let back: InstalledOfed = serde_json::from_value(action::json(&some)).expect("reads");
        assert_eq!(back, some);
        let back: OfedChange = serde_json::from_value(action::json(&ran)).expect("reads");
        assert_eq!(back, ran);
    }

    #[test]
    fn a_replayed_info_or_install_of_another_shape_is_refused_naming_the_record() {
        let renamed = json!({ "installed": true, "distribution": "MLNX_OFED_LINUX", "flavour": "mlnx_ofed", "ofed_version": "5.4-3.0.3.0" });
        let t = TestHost::guests(&[("g", "")], "g")
            .replaying(journal_of("ofed::info", json!({}), renamed))
            .build();
        let error = t.error("ofed::info()");
        assert!(
            error.contains(&shape_error("ofed::info", "ofed_info's installed OFED")),
            "{error}"
        );
        assert!(error.contains("missing field `version`"), "{error}");
        assert!(error.contains("(journal test.jsonl line 3)"), "{error}");

        let args = json!({ "tarball": TGZ, "force": true, "firmware_update": false, "dir": "/tmp", "distro_packages": null });
        let install = json!({ "version": "5.4-3.0.3.0", "changed": true, "fw": "updated" });
        let t = TestHost::guests(&[("g", "")], "g")
            .replaying(journal_of("ofed::install", args, install))
            .build();
        let error = t.error(&format!("ofed::install(\"{TGZ}\")"));
        assert!(
            error.contains(&shape_error("ofed::install", "ofed::install's result")),
            "{error}"
        );
        assert!(error.contains("`fw`"), "{error}");
    }
}
