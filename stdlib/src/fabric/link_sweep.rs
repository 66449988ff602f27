//! `fabric::link_sweep(manifest, group)`: every link of the InfiniBand fabric against the
//! manifest's `[links]` thresholds, from the controller. `iblinkinfo` and `ibqueryerrors` on
//! the group's first healthy host give every link (both ends), its width and speed and each
//! end's symbol errors and link downs; `mlxlink -d DEV -c` on each host of the group gives the
//! effective BER of its own link (a channel adapter's node description is `HOST DEVICE`, as
//! rdma-ndd sets it by default, `%h %d`). The verdict names each bad link by both ends and
//! everything it could not judge: a failed host, a host not on the fabric, a link whose BER no
//! host of the group can read (a switch-to-switch link). One journaled query, redone on resume.

use std::collections::BTreeMap;

use cairn_runtime::{ActionError, ExecRequest, HostContext, HostIo, RunShared};
use rhai::{Dynamic, NativeCallContext};
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::link_thresholds::{LinkThresholds, speed_name};
use crate::action::{self, RhaiResult};
use crate::ib::counters::ErrorCounters;
use crate::ib::fabric_links::{FabricLink, Links};

/// A link over a threshold.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BadLink {
    /// Both ends: `node01 mlx5_0 port 1 to MF0;ib-sw01:MSB7800/U1 port 1`.
    pub link: String,
    /// `width`, `speed`, `effective_ber`, `symbol_errors` or `link_downs`.
    pub check: String,
    pub found: String,
    pub expected: String,
    /// `node01 mlx5_0 port 1 to ... port 1: width 1X, expected 4X`.
    pub message: String,
}

/// Something the sweep could not judge, and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Unjudged {
    /// A host or a link (by both ends).
    pub what: String,
    pub reason: String,
}

/// What `fabric::link_sweep` returns and journals.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LinkSweep {
    /// The host `iblinkinfo` and `ibqueryerrors` ran on; null when no host was healthy.
    #[serde(deserialize_with = "crate::action::present")]
    pub from: Option<String>,
    /// How many links were checked.
    pub links: usize,
    pub bad: Vec<BadLink>,
    pub unjudged: Vec<Unjudged>,
    /// No bad link and nothing left unjudged.
    pub ok: bool,
}

/// Reads the manifest's `[links]` (refusing a bad one at the call), then sweeps.
pub(crate) fn link_sweep(ctx: &NativeCallContext, path: &str, group: &str) -> RhaiResult<Dynamic> {
    let host = HostContext::current(ctx)?;
    let refuse = |message: String| host.fail(ActionError::Runbook(message), ctx.call_position());
    let file = std::path::Path::new(host.runbook_file())
        .parent()
        .map_or_else(|| path.into(), |dir| dir.join(path));
    let text = std::fs::read_to_string(&file).map_err(|e| {
        refuse(format!(
            "fabric::link_sweep: cannot read {}: {e}",
            file.display()
        ))
    })?;
    let expected = super::manifest::load_links(&text)
        .map_err(|m| refuse(format!("fabric::link_sweep: {path}: {m}")))?;
    let members = host.shared.group_members(group);
    if members.is_empty() {
        return Err(refuse(format!(
            "fabric::link_sweep: no host of this run is in group `{group}`"
        )));
    }
    let failed = host.shared.failed_hosts();
    let shared = host.shared.clone();
    let args = json!({ "path": path, "group": group, "expected": action::json(&expected) });
    let sweep = action::query_typed_as(ctx, "fabric::link_sweep", args, "a link sweep", |io| {
        if io.checking() {
            return Ok(None);
        }
        sweep(io, &shared, &expected, &members, &failed).map(Some)
    })?;
    match sweep {
        Some(sweep) => action::as_map(&sweep).map(Dynamic::from_map),
        None => Ok(Dynamic::UNIT),
    }
}

/// The sweep itself.
fn sweep(
    io: &mut HostIo<'_>,
    shared: &RunShared,
    expected: &LinkThresholds,
    members: &[String],
    failed: &BTreeMap<String, String>,
) -> Result<LinkSweep, ActionError> {
    let mut unjudged: Vec<Unjudged> = members
        .iter()
        .filter_map(|m| failed.get(m).map(|why| (m, why)))
        .map(|(m, why)| Unjudged {
            what: m.clone(),
            reason: format!("failed earlier in the run: {why}"),
        })
        .collect();
    let Some(from) = members.iter().find(|m| !failed.contains_key(*m)).cloned() else {
        return Ok(verdict(None, 0, Vec::new(), unjudged));
    };
    let info = run_parsed_on(
        io,
        shared,
        &from,
        crate::ib::command::IBLINKINFO,
        crate::ib::iblinkinfo::parse,
    )?;
    let errors = run_parsed_on(
        io,
        shared,
        &from,
        crate::ib::command::IBQUERYERRORS,
        crate::ib::ibqueryerrors::parse,
    )?;
    let links = Links::of(&info);
    let counters = ErrorCounters::of(&errors, &links);
    let mut bad = Vec::new();
    for link in &links.links {
        bad.extend(trained(link, expected));
        bad.extend(counted(link, &counters, expected));
    }
    if let Some(max) = expected.effective_ber_max {
        for link in &links.links {
            match ber_host(link, members, failed) {
                Ok((host, device)) => {
                    let argv = crate::mlxlink::command::read(&device);
                    let out = run_parsed_on(io, shared, &host, &argv, crate::mlxlink::parse)?;
                    let found = out.counters.and_then(|c| c.effective_physical_ber);
                    match found.as_deref().and_then(crate::grammar::ber) {
                        Some(ber) if ber > max => bad.push(bad_link(
                            link,
                            "effective_ber",
                            found.unwrap_or_default(),
                            format!("{max:e}"),
                        )),
                        Some(_) => {}
                        None => unjudged.push(Unjudged {
                            what: link.name.clone(),
                            reason: format!("mlxlink on {host} printed no effective BER"),
                        }),
                    }
                }
                Err(reason) => unjudged.push(Unjudged {
                    what: link.name.clone(),
                    reason,
                }),
            }
        }
    }
    for m in members.iter().filter(|m| !failed.contains_key(*m)) {
        let prefix = format!("{m} ");
        let on_fabric = links
            .links
            .iter()
            .any(|l| l.a.node.starts_with(&prefix) || l.b.node.starts_with(&prefix));
        if !on_fabric {
            unjudged.push(Unjudged {
                what: m.clone(),
                reason: format!("no link of it in iblinkinfo on {from}"),
            });
        }
    }
    Ok(verdict(Some(from), links.links.len(), bad, unjudged))
}

/// The verdict: ok only when nothing is bad and everything was judged.
fn verdict(
    from: Option<String>,
    links: usize,
    bad: Vec<BadLink>,
    unjudged: Vec<Unjudged>,
) -> LinkSweep {
    LinkSweep {
        ok: from.is_some() && bad.is_empty() && unjudged.is_empty(),
        from,
        links,
        bad,
        unjudged,
    }
}

/// A bad link's record and message.
fn bad_link(link: &FabricLink, check: &str, found: String, expected: String) -> BadLink {
    let words = check.replace('_', " ");
    BadLink {
        message: format!("{}: {words} {found}, expected {expected}", link.name),
        link: link.name.clone(),
        check: check.to_owned(),
        found,
        expected,
    }
}

/// The link's width and speed against the expected ones.
fn trained(link: &FabricLink, expected: &LinkThresholds) -> Vec<BadLink> {
    let mut bad = Vec::new();
    if let Some(width) = &expected.width
        && &link.width != width
    {
        bad.push(bad_link(link, "width", link.width.clone(), width.clone()));
    }
    let speed = speed_name(&link.speed);
    if let Some(expected) = &expected.speed
        && &speed != expected
    {
        bad.push(bad_link(link, "speed", speed, expected.clone()));
    }
    bad
}

/// Each end's symbol errors and link downs against their maxima (the worse end counts).
fn counted(link: &FabricLink, counters: &ErrorCounters, expected: &LinkThresholds) -> Vec<BadLink> {
    let worst = |name: &str| {
        counters
            .ports
            .iter()
            .filter(|p| p.link.as_deref() == Some(link.name.as_str()))
            .filter_map(|p| p.counters.get(name).copied())
            .max()
            .unwrap_or(0)
    };
    let mut bad = Vec::new();
    for (check, counter, max) in [
        (
            "symbol_errors",
            "SymbolErrorCounter",
            expected.symbol_errors_max,
        ),
        ("link_downs", "LinkDownedCounter", expected.link_downs_max),
    ] {
        let found = worst(counter);
        if let Some(max) = max
            && found > max
        {
            bad.push(bad_link(
                link,
                check,
                found.to_string(),
                format!("at most {max}"),
            ));
        }
    }
    bad
}

/// The host of the group (and its device) that reads the link's BER: the end whose node
/// description is `HOST DEVICE`; why none can, otherwise.
fn ber_host(
    link: &FabricLink,
    members: &[String],
    failed: &BTreeMap<String, String>,
) -> Result<(String, String), String> {
    for end in [&link.a, &link.b] {
        let Some((host, device)) = end.node.split_once(' ') else {
            continue;
        };
        if members.iter().any(|m| m == host) {
            if failed.contains_key(host) {
                return Err(format!("its host {host} failed earlier in the run"));
            }
            return Ok((host.to_owned(), device.to_owned()));
        }
    }
    Err("no host of the group is at either end to read its BER with mlxlink".into())
}

/// Runs `argv` on `host` and parses its output; a non-zero exit fails with the tool's words.
fn run_parsed_on<T, S: AsRef<str>>(
    io: &mut HostIo<'_>,
    shared: &RunShared,
    host: &str,
    argv: &[S],
    parse: impl FnOnce(&str) -> Result<T, crate::ParseError>,
) -> Result<T, ActionError> {
    let words: Vec<&str> = argv.iter().map(AsRef::as_ref).collect();
    let output = crate::pair::exec_on(
        Some(io),
        shared,
        host,
        &ExecRequest::new(words.iter().copied()),
    )?;
    let command = format!("{} (on {host})", words.join(" "));
    if output.code != 0 {
        return Err(ActionError::CommandFailed {
            code: output.code,
            command,
            stderr: output.stderr,
        });
    }
    action::parsed(command.as_str(), &output.stdout, parse)
}
