//! `ib::ibdiagnet(#{...})`: runs ibdiagnet on the host (one with a subnet manager's view of the
//! fabric), reads the `ibdiagnet2.db_csv` it wrote (not its log, which shows a few warnings
//! at most) and returns the findings. One journaled query, redone on resume: the fabric may
//! have changed. With `from: "node001"` it runs on that host over the run's connection to it
//! (as `fabric::all_pairs` reaches its hosts) and is journaled on the calling host: from an
//! `on controller` stage a finding fails the controller's stage, the run, and not the healthy
//! host that ran the scan.

use cairn_runtime::{ActionError, ExecOutput, ExecRequest, HostContext, HostIo};
use rhai::{Dynamic, Map, NativeCallContext};
use serde_json::json;

use super::check::{Expected, Verdict, check, design_cables};
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
    if let Some(from) = &opts.from
        && from != &host.info.name
        && !host.shared.reaches(from)
    {
        let known: Vec<&str> = host.shared.reachable().collect();
        let hint = cairn_runtime::inventory::closest(from, known)
            .map(|n| format!("; did you mean `{n}`?"))
            .unwrap_or_default();
        return Err(refuse(format!(
            "ib::ibdiagnet: `from` {from:?} is not a host of this run{hint}"
        )));
    }
    let expected = Expected {
        width: opts.width.clone(),
        speed: opts.speed.clone(),
        thresholds: opts.thresholds.clone(),
        design,
    };
    let args = json!({ "options": action::json(&opts) });
    // The journal name is the registration's (`ib::ibdiagnet`), never typed.
    let verdict = action::query_typed(
        ctx,
        crate::ib::NAMESPACE,
        args,
        "ibdiagnet's verdict",
        |io| {
            if io.checking() {
                return Ok(None);
            }
            let from = opts.from.clone().unwrap_or_else(|| io.host().to_owned());
            run_on(io, &from, &opts.argv())?;
            let path = opts.db_csv();
            let cat = ["cat".to_owned(), path.clone()];
            let text = run_on(io, &from, &cat)?.stdout;
            let db = action::parsed(cat.join(" ").as_str(), &text, super::parse::parse)?;
            let checked = check(&db, &expected);
            Ok(Some(Verdict {
                ok: checked.findings.is_empty(),
                checked,
                db_csv: path,
                from,
            }))
        },
    )?;
    match verdict {
        Some(verdict) => action::as_map(&verdict).map(Dynamic::from_map),
        None => Ok(Dynamic::UNIT),
    }
}

/// Runs `argv` on `host` (this action's own host or another of the run), failing on a non-zero
/// exit with the tool's own words.
fn run_on(io: &mut HostIo<'_>, host: &str, argv: &[String]) -> Result<ExecOutput, ActionError> {
    let output = io.exec_on(host, &ExecRequest::new(argv.iter().cloned()))?;
    if output.code == 0 {
        return Ok(output);
    }
    Err(ActionError::CommandFailed {
        code: output.code,
        command: if host == io.host() {
            argv.join(" ")
        } else {
            format!("{} (on {host})", argv.join(" "))
        },
        stderr: output.stderr,
    })
}
