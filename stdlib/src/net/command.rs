//! The commands `net::` runs.

/// `ip -j addr show`.
pub(crate) const ADDR_SHOW: &[&str] = &["ip", "-j", "addr", "show"];

/// `ibdev2netdev`.
pub(crate) const IBDEV2NETDEV: &[&str] = &["ibdev2netdev"];

/// `ip link set dev IFNAME mtu MTU`.
pub(crate) fn set_mtu(ifname: &str, mtu: u32) -> Vec<String> {
    vec![
        "ip".into(),
        "link".into(),
        "set".into(),
        "dev".into(),
        ifname.into(),
        "mtu".into(),
        mtu.to_string(),
    ]
}

/// `ip addr add CIDR dev IFNAME`.
pub(crate) fn addr_add(ifname: &str, cidr: &str) -> Vec<String> {
    ["ip", "addr", "add", cidr, "dev", ifname]
        .map(str::to_owned)
        .to_vec()
}

/// Checks `a.b.c.d/n` and returns it with the address and prefix apart.
pub(crate) fn cidr(text: &str) -> Option<(String, u8)> {
    let (ip, prefix) = text.split_once('/')?;
    let prefix: u8 = prefix.parse().ok().filter(|p| *p <= 32)?;
    let octets: Vec<&str> = ip.split('.').collect();
    (octets.len() == 4 && octets.iter().all(|o| o.parse::<u8>().is_ok()))
        .then(|| (ip.to_owned(), prefix))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_and_checks() {
        assert_eq!(
            set_mtu("ens224f1", 9000).join(" "),
            "ip link set dev ens224f1 mtu 9000"
        );
        assert_eq!(
            addr_add("ens224f1", "192.168.5.2/24").join(" "),
            "ip addr add 192.168.5.2/24 dev ens224f1"
        );
        assert_eq!(cidr("192.168.5.2/24"), Some(("192.168.5.2".into(), 24)));
        assert_eq!(cidr("192.168.5.2"), None);
        assert_eq!(cidr("192.168.5.256/24"), None);
    }
}
