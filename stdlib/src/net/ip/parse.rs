//! Walks the text `ip addr show` parse tree into [`IpAddrShow`].

use pest::Parser as _;
use pest::iterators::Pair;

use super::types::{IpAddrShow, IpAddress, IpInterface};
use crate::ParseError;

const TOOL: &str = "ip-addr-text";

#[derive(pest_derive::Parser)]
#[grammar = "src/net/ip/ip.pest"]
struct IpParser;

/// An interface's header line as read: where it is, and where its link mode (`mode DEFAULT`)
/// is when it has one. iproute2 prints the link mode for `ip link` only (`print_linkmode`, under
/// `do_link`), so it tells the two commands' outputs apart.
pub(super) struct Header {
    /// The byte range of the header line, blanks excluded.
    pub(super) line: (usize, usize),
    /// The byte range of `mode X`, when printed.
    pub(super) mode: Option<(usize, usize)>,
}

/// Parses the text `ip addr show` output: refused when a header prints a link mode, as that is
/// `ip link show` output.
pub(super) fn parse_text(text: &str) -> Result<IpAddrShow, ParseError> {
    let (show, headers) = read(text, TOOL)?;
    if let Some((offset, len)) = headers.iter().find_map(|h| h.mode) {
        return Err(ParseError::at(
            TOOL,
            text,
            offset,
            len,
            "a link mode: `ip link` prints it, `ip addr` does not (parser `ip-link`)",
        ));
    }
    Ok(show)
}

/// Reads the interfaces of the text `ip addr show` or `ip link show` output, and their headers;
/// errors are named after `tool`.
pub(super) fn read(
    text: &str,
    tool: &'static str,
) -> Result<(IpAddrShow, Vec<Header>), ParseError> {
    let named = |error: ParseError| {
        let (offset, len) = (error.span.offset(), error.span.len());
        ParseError::at(tool, text, offset, len, error.message)
    };
    let pairs = IpParser::parse(Rule::ip_addr, text)
        .map_err(|error| ParseError::from_pest(tool, text, &error))?;
    let mut result = IpAddrShow {
        interfaces: Vec::new(),
        elided: false,
    };
    let mut headers = Vec::new();
    for pair in pairs.flatten() {
        match pair.as_rule() {
            Rule::interface => {
                let (iface, header) = interface(text, pair).map_err(named)?;
                result.interfaces.push(iface);
                headers.extend(header);
            }
            Rule::elision_line => result.elided = true,
            _ => {}
        }
    }
    Ok((result, headers))
}

pub(super) fn empty_interface(ifname: String) -> IpInterface {
    IpInterface {
        ifindex: None,
        ifname,
        link: None,
        flags: Vec::new(),
        mtu: None,
        qdisc: None,
        master: None,
        operstate: None,
        group: None,
        qlen: None,
        link_type: None,
        address: None,
        broadcast: None,
        altnames: Vec::new(),
        addr_info: Vec::new(),
    }
}

fn interface(
    text: &str,
    block: Pair<'_, Rule>,
) -> Result<(IpInterface, Option<Header>), ParseError> {
    let mut iface = empty_interface(String::new());
    let mut read_header = None;
    for line in block.into_inner() {
        match line.as_rule() {
            Rule::header_line => {
                let span = line.as_str().trim();
                let start = line.as_span().start() + line.as_str().find(span).unwrap_or(0);
                let mode = header(text, &mut iface, line)?;
                read_header = Some(Header {
                    line: (start, span.len()),
                    mode,
                });
            }
            Rule::link_line => {
                for part in line.into_inner() {
                    let value = Some(part.as_str().to_owned());
                    match part.as_rule() {
                        Rule::link_type => iface.link_type = value,
                        Rule::link_address => iface.address = value,
                        Rule::link_broadcast => iface.broadcast = value,
                        _ => {}
                    }
                }
            }
            Rule::altname_line => iface
                .altnames
                .extend(line.into_inner().map(|p| p.as_str().to_owned())),
            Rule::inet_line => {
                let address = inet(text, &iface.ifname, line)?;
                iface.addr_info.push(address);
            }
            Rule::lifetime_line => {
                let words: Vec<String> = line.into_inner().map(|p| p.as_str().to_owned()).collect();
                if let (Some(last), [valid, preferred]) =
                    (iface.addr_info.last_mut(), words.as_slice())
                {
                    last.valid_lft = Some(valid.clone());
                    last.preferred_lft = Some(preferred.clone());
                }
            }
            _ => {}
        }
    }
    Ok((iface, read_header))
}

/// Reads a header line into `iface`; returns the byte range of its link mode (`mode DEFAULT`).
fn header(
    text: &str,
    iface: &mut IpInterface,
    line: Pair<'_, Rule>,
) -> Result<Option<(usize, usize)>, ParseError> {
    let mut mode = None;
    for part in line.into_inner() {
        match part.as_rule() {
            Rule::ifindex => iface.ifindex = Some(crate::grammar::number(TOOL, text, &part)?),
            Rule::ifname => iface.ifname = part.as_str().to_owned(),
            Rule::peer_link => iface.link = Some(part.as_str().to_owned()),
            Rule::flags => {
                iface.flags = part
                    .into_inner()
                    .map(|f| f.as_str().to_uppercase())
                    .collect()
            }
            Rule::attribute => {
                let mut inner = part.into_inner();
                let (Some(key), Some(value)) = (inner.next(), inner.next()) else {
                    continue;
                };
                let owned = Some(value.as_str().to_owned());
                let (start, end) = (key.as_span().start(), value.as_span().end());
                match key.as_str() {
                    "mode" => mode = Some((start, end - start)),
                    "mtu" => iface.mtu = Some(crate::grammar::number(TOOL, text, &value)?),
                    "qlen" => iface.qlen = Some(crate::grammar::number(TOOL, text, &value)?),
                    "qdisc" => iface.qdisc = owned,
                    "master" => iface.master = owned,
                    "state" => iface.operstate = owned,
                    "group" => iface.group = owned,
                    _ => {}
                }
            }
            _ => {}
        }
    }
    Ok(mode)
}

fn inet(text: &str, ifname: &str, line: Pair<'_, Rule>) -> Result<IpAddress, ParseError> {
    let mut address = IpAddress {
        family: String::new(),
        local: String::new(),
        prefixlen: 0,
        broadcast: None,
        peer: None,
        scope: None,
        label: None,
        flags: Vec::new(),
        valid_lft: None,
        preferred_lft: None,
    };
    for part in line.into_inner() {
        let value = part.as_str().to_owned();
        match part.as_rule() {
            Rule::family => address.family = value,
            Rule::local => address.local = value,
            Rule::prefixlen => address.prefixlen = crate::grammar::number(TOOL, text, &part)?,
            Rule::inet_brd => address.broadcast = last_word(part),
            Rule::inet_scope => address.scope = last_word(part),
            Rule::inet_peer => address.peer = last_word(part),
            Rule::word => {
                let is_label = !ifname.is_empty()
                    && (value == ifname
                        || value
                            .strip_prefix(ifname)
                            .is_some_and(|r| r.starts_with(':')));
                if is_label {
                    address.label = Some(value);
                } else {
                    address.flags.push(value);
                }
            }
            _ => {}
        }
    }
    Ok(address)
}

fn last_word(pair: Pair<'_, Rule>) -> Option<String> {
    pair.into_inner().last().map(|p| p.as_str().to_owned())
}

#[cfg(test)]
mod tests {
    use super::parse_text;

    #[test]
    fn indented_block_with_addresses() {
        let out = "2: eth0@if4: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc noqueue state UP group default \n    link/ether a2:23:48:b2:79:b0 brd ff:ff:ff:ff:ff:ff link-netnsid 0\n    inet 10.0.32.6/24 scope global dynamic eth0\n       valid_lft 86399sec preferred_lft 86399sec\n    vf 0 link/ether 00:00:00:00:00:00 brd ff:ff:ff:ff:ff:ff, spoof checking off\n";
        let ip = parse_text(out).unwrap_or_else(|e| panic!("{e}"));
        let eth = &ip.interfaces[0];
        assert_eq!(eth.link.as_deref(), Some("if4"));
        assert_eq!(eth.addr_info[0].label.as_deref(), Some("eth0"));
        assert_eq!(eth.addr_info[0].flags, vec!["dynamic".to_owned()]);
        assert_eq!(eth.addr_info[0].valid_lft.as_deref(), Some("86399sec"));
    }

    #[test]
    fn other_output_is_refused() {
        assert!(parse_text("ib0: flags=4163<UP,BROADCAST,RUNNING,MULTICAST>  mtu 2044\n").is_err());
        assert!(parse_text("").is_err());
    }
}
