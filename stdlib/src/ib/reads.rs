//! What the `ib::` builtins read from a guest, as the parsers' types: each query journals its
//! value (`action::query_typed`), so a replayed port, adapter list or fabric of another shape
//! is refused naming the record.

use cairn_runtime::{ActionError, HostIo};

use super::command;
use super::ibnetdiscover::Topology;
use super::ibstat::IbStat;
use super::ibstatus::IbStatusPort;
use super::ibv_devinfo::IbvDevice;
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
