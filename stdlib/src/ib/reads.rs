//! What the `ib::` builtins read from a guest, as the parsers' types: each query journals its
//! value (`action::query_typed`), so a replayed port, adapter list or fabric of another shape
//! is refused naming the record.

use cairn_runtime::{ActionError, HostIo};

use super::command;
use super::counters::ErrorCounters;
use super::fabric_links::Links;
use super::iblinkinfo::IbLinkInfo;
use super::ibnetdiscover::Topology;
use super::ibqueryerrors::IbQueryErrors;
use super::ibstat::IbStat;
use super::ibstatus::IbStatusPort;
use super::ibv_devinfo::IbvDevice;
use super::perfquery::PerfBlock;
use crate::action;

/// `ibstatus [DEV:PORT]`: its ports; a `Fatal error:` line fails naming it.
pub(super) fn ports<S: AsRef<str>>(
    io: &mut HostIo<'_>,
    argv: &[S],
) -> Result<Vec<IbStatusPort>, ActionError> {
    let parsed = action::run_parsed(io, argv, super::ibstatus::parse)?;
    if let Some(error) = parsed.error {
        return Err(ActionError::Failed(format!("ibstatus: {error}")));
    }
    Ok(parsed.ports)
}

/// `ibstatus DEV:PORT`: that port, or a failure saying the host has none.
pub(super) fn port(
    io: &mut HostIo<'_>,
    device: &str,
    port: u32,
) -> Result<IbStatusPort, ActionError> {
    let argv = command::ibstatus_port(device, port);
    ports(io, &argv)?
        .into_iter()
        .find(|p| p.device == device && p.port == port)
        .ok_or_else(|| {
            ActionError::Failed(format!("`{}` has no RDMA port {device}:{port}", io.host()))
        })
}

/// `ibstat`: the channel adapters and their ports.
pub(super) fn adapters(io: &mut HostIo<'_>) -> Result<IbStat, ActionError> {
    action::run_parsed(io, command::IBSTAT, super::ibstat::parse)
}

/// `ibv_devinfo`: the verbs devices; an error it printed fails naming it.
pub(super) fn devices(io: &mut HostIo<'_>) -> Result<Vec<IbvDevice>, ActionError> {
    let parsed = action::run_parsed(io, command::IBV_DEVINFO, super::ibv_devinfo::parse)?;
    if let Some(error) = parsed.error {
        return Err(ActionError::Failed(format!("ibv_devinfo: {error}")));
    }
    Ok(parsed.devices)
}

/// `ibnetdiscover`: the fabric the subnet manager sees.
pub(super) fn fabric(io: &mut HostIo<'_>) -> Result<Topology, ActionError> {
    action::run_parsed(io, command::IBNETDISCOVER, super::ibnetdiscover::parse)
}

/// A fatal line an infiniband-diags tool printed, as the action's failure.
fn tool_failed(tool: &str, error: Option<&crate::grammar::ToolError>) -> Result<(), ActionError> {
    match error {
        Some(e) => Err(ActionError::Failed(format!("{tool}: {}", e.message))),
        None => Ok(()),
    }
}

/// `ibqueryerrors`: every port with a counter above 0.
pub(crate) fn query_errors(io: &mut HostIo<'_>) -> Result<IbQueryErrors, ActionError> {
    let parsed = action::run_parsed(io, command::IBQUERYERRORS, super::ibqueryerrors::parse)?;
    tool_failed("ibqueryerrors", parsed.error.as_ref())?;
    Ok(parsed)
}

/// `iblinkinfo`: every port's link and peer.
pub(crate) fn link_info(io: &mut HostIo<'_>) -> Result<IbLinkInfo, ActionError> {
    let parsed = action::run_parsed(io, command::IBLINKINFO, super::iblinkinfo::parse)?;
    tool_failed("iblinkinfo", parsed.error.as_ref())?;
    Ok(parsed)
}

/// `perfquery -x LID PORT`: that port's block.
pub(super) fn perfquery(
    io: &mut HostIo<'_>,
    lid: u32,
    port: u32,
) -> Result<PerfBlock, ActionError> {
    let argv = command::perfquery_extended(lid, port);
    let parsed = action::run_parsed(io, &argv, super::perfquery::parse)?;
    tool_failed("perfquery", parsed.error.as_ref())?;
    parsed
        .blocks
        .into_iter()
        .find(|b| b.port == port)
        .ok_or_else(|| {
            ActionError::Failed(format!(
                "perfquery printed no counters of Lid {lid} port {port}"
            ))
        })
}

/// The fabric's error counters now, each port on its link.
pub(super) fn error_counters(io: &mut HostIo<'_>) -> Result<ErrorCounters, ActionError> {
    let links = Links::of(&link_info(io)?);
    Ok(ErrorCounters::of(&query_errors(io)?, &links))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::test_support::TestHost;
    use crate::test_support::{journal_of, shape_error};

    const GUEST: &[(&str, &str)] = &[("g", "ofed=5.4-3.0.3.0")];

    fn refused(call: &str, builtin: &str, result: serde_json::Value, expected: &str) -> String {
        let t = TestHost::guests(GUEST, "g")
            .replaying(journal_of(builtin, json!({}), result))
            .build();
        let error = t.error(call);
        assert!(error.contains(&shape_error(builtin, expected)), "{error}");
        assert!(error.contains("(journal test.jsonl line 3)"), "{error}");
        error
    }

    #[test]
    fn a_replayed_read_of_another_shape_is_refused_naming_the_record() {
        refused(
            "ib::status()",
            "ib::status",
            json!({ "ports": [] }),
            "ibstatus's ports",
        );
        refused(
            "ib::stat()",
            "ib::stat",
            json!([]),
            "ibstat's channel adapters",
        );
        refused(
            "ib::devinfo()",
            "ib::devinfo",
            json!({ "devices": [] }),
            "ibv_devinfo's devices",
        );
        let fabric = json!({ "switches": [], "channel_adapters": [], "nodes": [] });
        refused(
            "ib::netdiscover()",
            "ib::netdiscover",
            fabric,
            "ibnetdiscover's fabric",
        );
    }

    #[test]
    fn a_port_with_a_renamed_field_is_refused_naming_it() {
        let t = TestHost::guests(GUEST, "g").build();
        let live = t.eval("ib::status()");
        let mut ports: serde_json::Value = rhai::serde::from_dynamic(&live).expect("json");
        let state = ports[0]["state"].take();
        ports[0]["port_state"] = state;
        if let Some(port) = ports[0].as_object_mut() {
            port.remove("state");
        }
        let error = refused("ib::status()", "ib::status", ports, "ibstatus's ports");
        assert!(error.contains("`[0].port_state`"), "{error}");
    }
}
