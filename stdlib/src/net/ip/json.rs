//! `ip -j addr show` (and `ip -j link show`) through serde: iproute2 already prints JSON, so
//! there is no grammar; the records are mapped onto the same [`IpAddrShow`] as the text form.

use std::collections::BTreeMap;

use serde::Deserialize;

use super::parse::empty_interface;
use super::types::{IpAddrShow, IpAddress, IpInterface};
use crate::ParseError;

const TOOL: &str = "ip-addr";

/// The address flags iproute2 prints as `"flag": true` in `addr_info`.
const ADDRESS_FLAGS: [&str; 12] = [
    "secondary",
    "nodad",
    "optimistic",
    "dadfailed",
    "home",
    "deprecated",
    "tentative",
    "permanent",
    "mngtmpaddr",
    "noprefixroute",
    "autojoin",
    "dynamic",
];

/// `valid_life_time` / `preferred_life_time` of an address that never expires.
const FOREVER: u64 = 4_294_967_295;

#[derive(Deserialize)]
struct JsonInterface {
    ifindex: Option<u32>,
    ifname: String,
    link: Option<String>,
    #[serde(default)]
    flags: Vec<String>,
    mtu: Option<u32>,
    qdisc: Option<String>,
    master: Option<String>,
    operstate: Option<String>,
    group: Option<String>,
    txqlen: Option<u32>,
    link_type: Option<String>,
    address: Option<String>,
    broadcast: Option<String>,
    #[serde(default)]
    altnames: Vec<String>,
    #[serde(default)]
    addr_info: Vec<JsonAddress>,
}

#[derive(Deserialize)]
struct JsonAddress {
    family: String,
    local: String,
    prefixlen: u8,
    broadcast: Option<String>,
    address: Option<String>,
    scope: Option<String>,
    label: Option<String>,
    valid_life_time: Option<u64>,
    preferred_life_time: Option<u64>,
    #[serde(flatten)]
    other: BTreeMap<String, serde_json::Value>,
}

/// Parses `ip -j addr show` output.
pub(super) fn parse_json(text: &str) -> Result<IpAddrShow, ParseError> {
    let records: Vec<JsonInterface> = serde_json::from_str(text).map_err(|error| {
        let offset = offset_of(text, error.line(), error.column());
        ParseError::at(
            TOOL,
            text,
            offset,
            1,
            format!("expected `ip -j` JSON: an array of interfaces ({error})"),
        )
    })?;
    Ok(IpAddrShow {
        interfaces: records.into_iter().map(interface).collect(),
        elided: false,
    })
}

fn interface(json: JsonInterface) -> IpInterface {
    let mut iface = empty_interface(json.ifname);
    iface.ifindex = json.ifindex;
    iface.link = json.link;
    iface.flags = json.flags.iter().map(|f| f.to_uppercase()).collect();
    iface.mtu = json.mtu;
    iface.qdisc = json.qdisc;
    iface.master = json.master;
    iface.operstate = json.operstate;
    iface.group = json.group;
    iface.qlen = json.txqlen;
    iface.link_type = json.link_type;
    iface.address = json.address;
    iface.broadcast = json.broadcast;
    iface.altnames = json.altnames;
    iface.addr_info = json.addr_info.into_iter().map(address).collect();
    iface
}

fn address(json: JsonAddress) -> IpAddress {
    let flags = ADDRESS_FLAGS
        .iter()
        .filter(|flag| {
            json.other
                .get(**flag)
                .is_some_and(|v| v.as_bool() == Some(true))
        })
        .map(|flag| (*flag).to_owned())
        .collect();
    IpAddress {
        family: json.family,
        local: json.local,
        prefixlen: json.prefixlen,
        broadcast: json.broadcast,
        peer: json.address,
        scope: json.scope,
        label: json.label,
        flags,
        valid_lft: json.valid_life_time.map(lifetime),
        preferred_lft: json.preferred_life_time.map(lifetime),
    }
}

/// `forever`, or `<seconds>sec`, as the text output prints lifetimes.
fn lifetime(seconds: u64) -> String {
    if seconds == FOREVER {
        "forever".to_owned()
    } else {
        format!("{seconds}sec")
    }
}

/// The byte offset of a 1-based line and column.
fn offset_of(text: &str, line: usize, column: usize) -> usize {
    let line_start: usize = text
        .split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum();
    (line_start + column.saturating_sub(1)).min(text.len())
}

#[cfg(test)]
mod tests {
    use super::parse_json;

    #[test]
    fn addresses_flags_and_lifetimes() {
        let out = r#"[{"ifindex":4,"ifname":"ib0","flags":["BROADCAST","UP"],"mtu":2044,"txqlen":256,"link_type":"infiniband","addr_info":[{"family":"inet","local":"10.0.0.1","prefixlen":24,"scope":"global","dynamic":true,"valid_life_time":4294967295,"preferred_life_time":600}]}]"#;
        let ip = parse_json(out).unwrap_or_else(|e| panic!("{e}"));
        let a = &ip.interfaces[0].addr_info[0];
        assert_eq!(a.flags, vec!["dynamic".to_owned()]);
        assert_eq!(a.valid_lft.as_deref(), Some("forever"));
        assert_eq!(a.preferred_lft.as_deref(), Some("600sec"));
        assert_eq!(ip.interfaces[0].qlen, Some(256));
    }

    #[test]
    fn text_output_is_refused() {
        let error = parse_json("4: ib0: <BROADCAST> mtu 2044\n").err();
        assert!(error.is_some_and(|e| e.message.starts_with("expected")));
    }
}
