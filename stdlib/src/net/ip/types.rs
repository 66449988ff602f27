//! The typed result of `ip -j addr show` and of the text `ip addr show`: both give the same type.

use serde::{Deserialize, Serialize};

/// Every interface `ip addr show` printed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IpAddrShow {
    /// The interfaces, in output order.
    pub interfaces: Vec<IpInterface>,
    /// Whether the text output carries an elision line (`. . .`) left by whoever published it:
    /// the interface list is then incomplete. Always `false` for JSON.
    pub elided: bool,
}

/// One network interface.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IpInterface {
    /// The interface index.
    pub ifindex: Option<u32>,
    /// The interface name (`ib0`, `ens224f1`).
    pub ifname: String,
    /// The link after `@` in the text (`eth0@if4`), or the JSON `link` field.
    pub link: Option<String>,
    /// The interface flags, upper case (`BROADCAST`, `UP`, `LOWER_UP`).
    pub flags: Vec<String>,
    /// The MTU, in bytes.
    pub mtu: Option<u32>,
    /// The queueing discipline (`mq`, `noqueue`).
    pub qdisc: Option<String>,
    /// The bond or bridge the interface is enslaved to.
    pub master: Option<String>,
    /// The operational state (`UP`, `DOWN`, `UNKNOWN`).
    pub operstate: Option<String>,
    /// The interface group (`default`).
    pub group: Option<String>,
    /// The transmit queue length, in packets (`qlen` in text, `txqlen` in JSON).
    pub qlen: Option<u32>,
    /// The link type (`ether`, `infiniband`, `loopback`).
    pub link_type: Option<String>,
    /// The hardware address as printed (20 bytes for IPoIB).
    pub address: Option<String>,
    /// The hardware broadcast address as printed.
    pub broadcast: Option<String>,
    /// Alternative names (`altname` lines, JSON `altnames`).
    pub altnames: Vec<String>,
    /// The protocol addresses.
    pub addr_info: Vec<IpAddress>,
}

/// One protocol address of an interface.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IpAddress {
    /// `inet` or `inet6`.
    pub family: String,
    /// The address (`172.91.0.10`, `fe80::eaeb:d303:93:ae10`).
    pub local: String,
    /// The prefix length, in bits.
    pub prefixlen: u8,
    /// The broadcast address (`brd`), if any.
    pub broadcast: Option<String>,
    /// The peer address of a point-to-point address, if any.
    pub peer: Option<String>,
    /// The scope (`global`, `link`, `host`).
    pub scope: Option<String>,
    /// The address label (IPv4; usually the interface name).
    pub label: Option<String>,
    /// Address flags (`dynamic`, `noprefixroute`, `secondary`, `tentative`).
    pub flags: Vec<String>,
    /// The valid lifetime: `forever` or `<seconds>sec`.
    pub valid_lft: Option<String>,
    /// The preferred lifetime: `forever` or `<seconds>sec`.
    pub preferred_lft: Option<String>,
}
