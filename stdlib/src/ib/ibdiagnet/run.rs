//! `ib::ibdiagnet(#{...})`: runs ibdiagnet on the host (one with a subnet manager's view of the
//! fabric), reads the `ibdiagnet2.db_csv` it wrote (not its log, which shows a few warnings
//! at most) and returns the findings. One journaled query, redone on resume: the fabric may
//! have changed.

use cairn_runtime::{ActionError, HostContext};
use rhai::{Dynamic, Map, NativeCallContext};
use serde_json::json;

use super::check::{Expected, check, design_cables};
use super::options::{IBDIAGNET_OPTIONS, IbdiagnetOptions};
use crate::action::{self, RhaiResult};

/// Checks the options and reads the design file (refusing bad ones at the call), then runs.
pub(crate) fn ibdiagnet(ctx: &NativeCallContext, options: &Map) -> RhaiResult<Dynamic> {
    let host = HostContext::current(ctx)?;
    let refuse = |message: String| host.fail(ActionError::Runbook(message), ctx.call_position());
    action::check_options(ctx, &IBDIAGNET_OPTIONS, options)?;
    let opts = IbdiagnetOptions::from_json(&action::options_json(options)?)
        .map_err(|m| refuse(format!("ib::ibdiagnet: {m}")))?;
    let design = match &opts.topology {
        None => None,
        Some(path) => {
            // A relative path is the runbook's neighbour, as the runbook's author sees it.
            let file = std::path::Path::new(host.runbook_file())
                .parent()
                .map_or_else(|| path.into(), |dir| dir.join(path));
            let text = std::fs::read_to_string(&file).map_err(|e| {
                refuse(format!(
                    "ib::ibdiagnet: cannot read the topology {}: {e}",
                    file.display()
                ))
            })?;
            let topology = crate::ib::ibnetdiscover::parse(&text).map_err(|e| {
                refuse(format!(
                    "ib::ibdiagnet: the topology {path} is not in ibnetdiscover's format: {e} (line {})",
                    action::line_of(&text, e.span.offset())
                ))
            })?;
            Some(design_cables(&topology))
        }
    };
    let expected = Expected {
        width: opts.width.clone(),
        speed: opts.speed.clone(),
        thresholds: opts.thresholds.clone(),
        design,
    };
    let args = json!({ "options": action::json(&opts) });
    // The journal name is the registration's (`ib::ibdiagnet`), never typed.
    action::query(ctx, crate::ib::NAMESPACE, args, |io| {
        if io.checking() {
            return Ok(serde_json::Value::Null);
        }
        let argv = opts.argv();
        action::run(io, &argv)?;
        let path = opts.db_csv();
        let db = action::run_parsed(io, &["cat", &path], super::parse::parse)?;
        let checked = check(&db, &expected);
        Ok(json!({
            "ok": checked.findings.is_empty(),
            "findings": action::json(&checked.findings),
            "subnet_managers": action::json(&checked.subnet_managers),
            "masters": action::json(&checked.masters),
            "switches": checked.switches,
            "channel_adapters": checked.channel_adapters,
            "links": checked.links,
            "db_csv": path,
        }))
    })
}
