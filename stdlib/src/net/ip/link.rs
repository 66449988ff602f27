//! `ip [-d] link show`: the link part of `ip addr show` (flags, MTU, state, hardware address,
//! including IPoIB's 20-byte `link/infiniband` addresses), read by the same grammar.
//!
//! What makes an output its own: every interface line prints its link mode (`mode DEFAULT`),
//! which iproute2 prints for `ip link` only (`print_linkmode` under `do_link`). Output with an
//! interface line without it, or with `inet` lines, is `ip addr show` and is refused here, so a
//! runbook that asked for links learns it parsed the wrong command.

use super::types::IpAddrShow;
use crate::ParseError;

pub(super) fn parse_link(text: &str) -> Result<IpAddrShow, ParseError> {
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let body = line.trim_start_matches([' ', '\t']);
        if body.starts_with("inet ") || body.starts_with("inet6 ") {
            let start = offset + line.len() - body.len();
            let len = body.trim_end().len();
            return Err(ParseError::at(
                "ip-link",
                text,
                start,
                len,
                "an address line: this is `ip addr show` output (parser `ip-addr-text`)",
            ));
        }
        offset += line.len();
    }
    // The same grammar as `ip-addr-text`; its errors are named after this parser.
    let (show, headers) = super::parse::read(text, "ip-link")?;
    if let Some(header) = headers.iter().find(|h| h.mode.is_none()) {
        let (offset, len) = header.line;
        return Err(ParseError::at(
            "ip-link",
            text,
            offset,
            len,
            "an interface without its link mode (`mode DEFAULT`): this is `ip addr show` output (parser `ip-addr-text`)",
        ));
    }
    Ok(show)
}
