//! `ip addr show`: interfaces, their flags, MTU, state, hardware address and IP addresses.
//!
//! Two parsers give the same [`IpAddrShow`]:
//!
//! * [`parse_json`] reads `ip -j addr show` (and `ip -j link show`) with serde: iproute2 prints
//!   JSON itself, so there is no grammar for it;
//! * [`parse_text`] reads the text `ip addr show` / `ip a` with the grammar in `ip.pest`,
//!   including published copies with flattened indentation, lowercase flags and `. . .`
//!   elisions;
//! * [`parse_link`] reads the text `ip [-d] link show` with the same grammar, refusing address
//!   lines.

mod json;
mod link;
mod parse;
mod types;

pub use types::{IpAddrShow, IpAddress, IpInterface};

/// Parses `ip -j addr show` JSON output.
///
/// Claims: a JSON array of iproute2's interface records (`ifindex`, `ifname`, ...); any other
/// text, JSON or not, is refused.
pub fn parse_json(text: &str) -> Result<IpAddrShow, crate::ParseError> {
    json::parse_json(text)
}

/// Parses the text `ip [-d] link show` output (no address lines).
///
/// Claims: interface blocks whose every header prints the link mode (`mode DEFAULT`), which
/// iproute2 prints for `ip link` only; address lines or a header without it are `ip addr`'s.
pub fn parse_link(text: &str) -> Result<IpAddrShow, crate::ParseError> {
    link::parse_link(text)
}

/// Parses the text `ip addr show` output.
///
/// Claims: interface blocks (`4: ib0: <FLAGS> mtu ...` and their indented details) with no
/// link mode on a header (`mode DEFAULT` is `ip link`'s); anything else is refused.
pub fn parse_text(text: &str) -> Result<IpAddrShow, crate::ParseError> {
    parse::parse_text(text)
}
