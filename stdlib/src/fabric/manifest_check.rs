//! `fabric::manifest_diff`: one host's RDMA devices against its class of the manifest, as one
//! journaled query (redone on resume: the hardware may have changed).

use cairn_runtime::{ActionError, HostContext, HostIo};
use rhai::{Dynamic, NativeCallContext};
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::action::{self, RhaiResult};
use crate::fabric::manifest::{self, Difference, HostClass, HostFacts};
use crate::ib::command;

/// Reads the manifest (refusing a bad one at the call), then queries the host.
pub(crate) fn check(ctx: &NativeCallContext, path: &str, class: &str) -> RhaiResult<Dynamic> {
    let host = HostContext::current(ctx)?;
    let refuse = |message: String| host.fail(ActionError::Runbook(message), ctx.call_position());
    // A relative path is the runbook's neighbour, as the runbook's author sees it.
    let file = std::path::Path::new(host.runbook_file())
        .parent()
        .map_or_else(|| path.into(), |dir| dir.join(path));
    let text = std::fs::read_to_string(&file).map_err(|e| {
        refuse(format!(
            "fabric::manifest_diff: cannot read {}: {e}",
            file.display()
        ))
    })?;
    let expected = manifest::load(&text, class)
        .map_err(|m| refuse(format!("fabric::manifest_diff: {path}: {m}")))?;
    let name = host.info.name.clone();
    let args = json!({ "path": path, "class": class, "expected": action::json(&expected) });
    let value = action::query_as(ctx, "fabric::manifest_diff", args, |io| {
        if io.checking() {
            return Ok(serde_json::Value::Null);
        }
        let status = action::run_parsed(io, command::IBSTATUS, crate::ib::ibstatus::parse)?;
        let stat = action::run_parsed(io, command::IBSTAT, crate::ib::ibstat::parse)?;
        let devinfo = action::run_parsed(io, command::IBV_DEVINFO, crate::ib::ibv_devinfo::parse)?;
        let mut differences: Vec<Difference> =
            manifest::diff(&name, &expected, &status.ports, &stat, &devinfo.devices);
        differences.extend(manifest::diff_facts(
            &name,
            &expected,
            &facts(io, &expected)?,
        ));
        Ok(action::json(&ManifestCheck {
            host: name,
            class: class.to_owned(),
            ok: differences.is_empty(),
            differences,
        }))
    })?;
    // Check mode reads nothing: `()`.
    let checked: Option<ManifestCheck> = action::result_typed(ctx, &value, "a manifest check")?;
    match checked {
        Some(checked) => action::as_map(&checked).map(Dynamic::from_map),
        None => Ok(Dynamic::UNIT),
    }
}

/// What `fabric::manifest_diff` returns and journals: the host, its class, and each
/// difference from it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ManifestCheck {
    /// The host checked.
    pub host: String,
    /// Its class of the manifest.
    pub class: String,
    /// No difference.
    pub ok: bool,
    /// Each difference, in the order checked.
    pub differences: Vec<Difference>,
}

/// `lspci -vv`'s part numbers (of the Mellanox functions) and `ofed_info -s`'s version, each
/// read only when the class names it.
fn facts(io: &mut HostIo<'_>, class: &HostClass) -> Result<HostFacts, ActionError> {
    let mut facts = HostFacts::default();
    if class.part_number.is_some() {
        let parsed = action::run_parsed(io, &["lspci", "-vv"], crate::lspci::parse_verbose)?;
        facts.part_numbers = crate::lspci::mellanox_part_numbers(&parsed)
            .into_iter()
            .map(|p| (p.address, p.part_number))
            .collect();
    }
    if class.ofed.is_some() {
        // `ofed_info` absent (exit 127) is "not installed", which the diff names.
        let argv: Vec<String> = crate::ofed::command::INFO
            .iter()
            .map(|a| (*a).to_owned())
            .collect();
        if let Some(output) = action::run_if_installed(io, &argv)? {
            let info = action::parsed("ofed_info -s", &output.stdout, crate::ofed::parse_info)?;
            facts.ofed = Some(info.version);
        }
    }
    Ok(facts)
}
