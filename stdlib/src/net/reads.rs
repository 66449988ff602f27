//! What the `net::` builtins read from a guest, as the parsers' types: `links` and `ifname_for`
//! journal them (`action::query_typed`) and the changes compare with them, so a replayed value
//! of another shape is refused naming the record.

use cairn_runtime::{ActionError, HostIo};

use super::command;
use super::ip::IpInterface;
use crate::action;

/// `ip -j addr show`: every interface.
pub(super) fn links(io: &mut HostIo<'_>) -> Result<Vec<IpInterface>, ActionError> {
    let parsed = action::run_parsed(io, command::ADDR_SHOW, super::ip::parse_json)?;
    Ok(parsed.interfaces)
}

/// The interface `ifname`, or a failure listing the ones the host has.
pub(super) fn link(io: &mut HostIo<'_>, ifname: &str) -> Result<IpInterface, ActionError> {
    let links = links(io)?;
    let names: Vec<String> = links.iter().map(|l| l.ifname.clone()).collect();
    links
        .into_iter()
        .find(|l| l.ifname == ifname)
        .ok_or_else(|| {
            ActionError::Failed(format!(
                "`{}` has no interface `{ifname}` (it has {})",
                io.host(),
                names.join(", ")
            ))
        })
}

/// `ibdev2netdev`: the network interface of an RDMA device's port, if it has one.
pub(super) fn netdev_of(
    io: &mut HostIo<'_>,
    device: &str,
    port: i64,
) -> Result<Option<String>, ActionError> {
    let parsed = action::run_parsed(io, command::IBDEV2NETDEV, super::ibdev2netdev::parse)?;
    Ok(parsed
        .mappings
        .into_iter()
        .find(|m| m.rdma_device == device && i64::from(m.port) == port)
        .map(|m| m.netdev))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::test_support::TestHost;
    use crate::test_support::{journal_of, shape_error};

    const GUEST: &[(&str, &str)] = &[("g", "ofed=5.4-3.0.3.0")];

    fn refused(
        call: &str,
        builtin: &str,
        args: serde_json::Value,
        result: serde_json::Value,
        expected: &str,
    ) {
        let t = TestHost::guests(GUEST, "g")
            .replaying(journal_of(builtin, args, result))
            .build();
        let error = t.error(call);
        assert!(error.contains(&shape_error(builtin, expected)), "{error}");
        assert!(error.contains("(journal test.jsonl line 3)"), "{error}");
    }

    #[test]
    fn a_replayed_read_or_change_of_another_shape_is_refused_naming_the_record() {
        let link = json!({ "ifname": "ib0", "flags": [], "altnames": [], "addr_info": [], "mtu_bytes": 9000 });
        refused(
            "net::links()",
            "net::links",
            json!({}),
            json!([link]),
            "ip's interfaces",
        );
        refused(
            "net::links()",
            "net::links",
            json!({}),
            json!({ "interfaces": [] }),
            "ip's interfaces",
        );
        let args = json!({ "device": "mlx5_0", "port": 1 });
        refused(
            r#"net::ifname_for("mlx5_0", 1)"#,
            "net::ifname_for",
            args,
            json!({ "netdev": "ib0" }),
            "ibdev2netdev's interface",
        );
        let args = json!({ "ifname": "ib0", "mtu": 9000 });
        refused(
            r#"net::set_mtu("ib0", 9000)"#,
            "net::set_mtu",
            args,
            json!({ "changed": true }),
            "whether it changed",
        );
    }

    #[test]
    fn a_link_journals_as_ip_printed_it_and_reads_back() {
        let t = TestHost::guests(GUEST, "g").build();
        let live = t.eval("net::links()");
        let journaled: serde_json::Value = rhai::serde::from_dynamic(&live).expect("json");
        let back: Vec<super::IpInterface> =
            serde_json::from_value(journaled.clone()).expect("reads back");
        assert_eq!(crate::action::json(&back), journaled);
    }
}
