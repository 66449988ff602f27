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
pub fn parse_json(text: &str) -> Result<IpAddrShow, crate::ParseError> {
    json::parse_json(text)
}

/// Parses the text `ip [-d] link show` output (no address lines).
pub fn parse_link(text: &str) -> Result<IpAddrShow, crate::ParseError> {
    link::parse_link(text)
}

/// Parses the text `ip addr show` output.
pub fn parse_text(text: &str) -> Result<IpAddrShow, crate::ParseError> {
    parse::parse_text(text)
}
