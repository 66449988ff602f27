//! The `net::` builtins: a guest's interfaces, their MTU and addresses (VMware's guide,
//! section 2.4: MTU 9000 and an address on the RoCE interface).

use rhai::plugin::*;

/// The `net::` module.
///
/// ```rhai
/// let roce = net::ifname_for("mlx5_1", 1);
/// net::set_mtu(roce, 9000);
/// net::addr_add(roce, "192.168.5.2/24");
/// ```
#[export_module]
pub mod net_builtins {
    use rhai::{Array, Dynamic, NativeCallContext};
    use serde_json::json;

    use crate::action::{self, Change, Compared, RhaiResult};
    use crate::net::{command, reads};

    /// The interfaces, from `ip -j addr show`: an array of `#{ifindex, ifname, mtu,
    /// operstate, link_type, address, addr_info: [#{family, local, prefixlen, ...}], ...}`
    /// (fields as in docs/parsers.md, `ip-addr`).
    ///
    /// ```rhai
    /// for link in net::links() { log(`${link.ifname} mtu ${link.mtu}`); }
    /// ```
    #[rhai_fn(volatile, return_raw)]
    pub fn links(ctx: NativeCallContext) -> RhaiResult<Array> {
        let links = action::query_typed(
            &ctx,
            crate::net::NAMESPACE,
            json!({}),
            "ip's interfaces",
            reads::links,
        )?;
        action::as_array(&links)
    }

    /// Sets an interface's MTU (`ip link set dev IFNAME mtu MTU`) unless it already has it.
    /// Returns whether it changed. The setting lasts until the next reboot or driver reload.
    ///
    /// ```rhai
    /// net::set_mtu("ens224f1", 9000);
    /// ```
    #[rhai_fn(volatile, return_raw)]
    pub fn set_mtu(ctx: NativeCallContext, ifname: &str, mtu: i64) -> RhaiResult<bool> {
        if !action::valid_ifname(ifname) {
            return Err(action::bad_argument(
                &ctx,
                format!("`{ifname}` is not an interface name"),
            ));
        }
        let Ok(mtu) = u32::try_from(mtu) else {
            return Err(action::bad_argument(
                &ctx,
                format!("MTU {mtu} is out of range"),
            ));
        };
        let ifname = ifname.to_owned();
        let change = Change::redo(
            crate::net::NAMESPACE,
            json!({ "ifname": ifname, "mtu": mtu }),
            json!(true),
        );
        let value = change.run(
            &ctx,
            |io| reads::link(io, &ifname),
            |_, link| {
                if link.mtu == Some(mtu) {
                    return Ok(Compared::Same(json!(false)));
                }
                Ok(Compared::unmarked(json!(true), ()))
            },
            |io, (), planned| {
                super::run(io, &command::set_mtu(&ifname, mtu))?;
                Ok(planned)
            },
        )?;
        action::result_typed(&ctx, &value, "whether it changed")
    }

    /// Adds an address (`a.b.c.d/n`) to an interface (`ip addr add CIDR dev IFNAME`) unless it
    /// already has it. Returns whether it changed.
    ///
    /// ```rhai
    /// net::addr_add("ens224f1", "192.168.5.2/24");
    /// ```
    #[rhai_fn(volatile, return_raw)]
    pub fn addr_add(ctx: NativeCallContext, ifname: &str, cidr: &str) -> RhaiResult<bool> {
        if !action::valid_ifname(ifname) {
            return Err(action::bad_argument(
                &ctx,
                format!("`{ifname}` is not an interface name"),
            ));
        }
        let Some((ip, prefix)) = command::cidr(cidr) else {
            return Err(action::bad_argument(
                &ctx,
                format!("`{cidr}` is not an IPv4 address with a prefix length (a.b.c.d/n)"),
            ));
        };
        let (ifname, cidr) = (ifname.to_owned(), format!("{ip}/{prefix}"));
        let change = Change::redo(
            crate::net::NAMESPACE,
            json!({ "ifname": ifname, "cidr": cidr }),
            json!(true),
        );
        let value = change.run(
            &ctx,
            |io| reads::link(io, &ifname),
            |_, link| {
                let has = link
                    .addr_info
                    .iter()
                    .any(|a| a.local == ip && a.prefixlen == prefix);
                if has {
                    return Ok(Compared::Same(json!(false)));
                }
                Ok(Compared::unmarked(json!(true), ()))
            },
            |io, (), planned| {
                super::run(io, &command::addr_add(&ifname, &cidr))?;
                Ok(planned)
            },
        )?;
        action::result_typed(&ctx, &value, "whether it changed")
    }

    /// The network interface of an RDMA device's port, from `ibdev2netdev`
    /// (`mlx5_1 port 1 ==> ens224f1 (Up)`); `()` when the port has none.
    ///
    /// ```rhai
    /// let roce = net::ifname_for("mlx5_1", 1);   // "ens224f1"
    /// ```
    #[rhai_fn(volatile, return_raw)]
    pub fn ifname_for(ctx: NativeCallContext, rdma_dev: &str, port: i64) -> RhaiResult<Dynamic> {
        let device = rdma_dev.to_owned();
        let netdev = action::query_typed(
            &ctx,
            crate::net::NAMESPACE,
            json!({ "device": device, "port": port }),
            "ibdev2netdev's interface",
            |io| reads::netdev_of(io, &device, port),
        )?;
        Ok(netdev.map_or(Dynamic::UNIT, Dynamic::from))
    }
}

use cairn_runtime::{ActionError, ExecRequest, HostIo};

fn run(io: &mut HostIo<'_>, argv: &[String]) -> Result<(), ActionError> {
    let output = io.exec(&ExecRequest::new(argv.iter().cloned()))?;
    if output.code == 0 {
        Ok(())
    } else {
        Err(ActionError::CommandFailed {
            code: output.code,
            command: argv.join(" "),
            stderr: output.stderr,
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::test_support::TestHost;

    #[test]
    fn mtu_and_address_change_once() {
        let t = TestHost::guests(&[("compute-02", "ofed=5.4-3.0.3.0")], "compute-02").build();
        assert_eq!(
            t.eval(r#"net::ifname_for("mlx5_1", 1)"#).to_string(),
            "ens224f1"
        );
        assert_eq!(t.eval(r#"net::ifname_for("mlx5_0", 1)"#).to_string(), "ib0");
        assert!(t.eval(r#"net::ifname_for("mlx5_7", 1)"#).is_unit());
        assert_eq!(
            t.eval(r#"net::set_mtu("ens224f1", 9000)"#).as_bool().ok(),
            Some(true)
        );
        assert_eq!(
            t.eval(r#"net::set_mtu("ens224f1", 9000)"#).as_bool().ok(),
            Some(false)
        );
        assert_eq!(
            t.eval(r#"net::addr_add("ens224f1", "192.168.5.2/24")"#)
                .as_bool()
                .ok(),
            Some(true)
        );
        assert_eq!(
            t.eval(r#"net::addr_add("ens224f1", "192.168.5.2/24")"#)
                .as_bool()
                .ok(),
            Some(false)
        );
        let mtu = t.eval(r#"net::links().find(|l| l.ifname == "ens224f1").mtu"#);
        assert_eq!(mtu.as_int().ok(), Some(9000));
        assert!(
            t.error(r#"net::addr_add("ens224f1", "192.168.5.2")"#)
                .contains("prefix length")
        );
        assert!(
            t.error(r#"net::set_mtu("ib0", 9000)"#)
                .contains("mtu greater than device maximum")
        );
        assert!(
            t.error(r#"net::set_mtu("eth9", 9000)"#)
                .contains("has no interface `eth9`")
        );
    }
}
