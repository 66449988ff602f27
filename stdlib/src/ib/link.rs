//! A port's link as `iblinkinfo` and `ibqueryerrors -r` print it (`link.pest`): read once for
//! both, each parser naming which of its rules is which part.

use pest::RuleType;
use pest::iterators::Pair;
use serde::{Deserialize, Serialize};

use crate::ParseError;

/// One port's link and its peer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PortLink {
    /// The port's LID (for a switch port, the switch's).
    pub lid: u32,
    /// The port number.
    pub port: u32,
    /// The external (front-panel) port number, when the node has one.
    pub ext_port: Option<u32>,
    /// The active width (`4X`); null for a port that is down.
    pub width: Option<String>,
    /// The active speed as printed (`2.5 Gbps`, `53.125 Gbps`, `10.0 Gbps (FDR10)`); null for
    /// a port that is down.
    pub speed: Option<String>,
    /// The port state: `Active`, `Down`, `Init`, `Armed`.
    pub state: String,
    /// The physical state: `LinkUp`, `Polling`, `Disabled`...
    pub physical_state: String,
    /// `(HOQ:N VL_Stall:N)`, `iblinkinfo -a` on a switch port: the head-of-queue lifetime.
    pub hoq_life: Option<u32>,
    /// The VL stall count of `(HOQ:N VL_Stall:N)`.
    pub vl_stall: Option<u32>,
    /// The peer port; null when none answers.
    pub remote: Option<RemotePort>,
    /// True for `"Port not available"`: the port is up but its peer was not discovered.
    pub remote_unavailable: bool,
}

/// The port at the other end of a link.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RemotePort {
    /// The peer port's GUID (`iblinkinfo -l` only).
    pub guid: Option<String>,
    /// The peer's LID.
    pub lid: u32,
    /// The peer's port number.
    pub port: u32,
    /// The peer's external port number.
    pub ext_port: Option<u32>,
    /// The peer's node description, padding dropped.
    pub name: String,
    /// What the link could be at best (`Could be 12X Could be 10.0 Gbps`): null when it runs
    /// at its best.
    pub could_be: Option<String>,
}

/// The parts of `link.pest`, for a parser to name its rules by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LinkPart {
    Lid,
    Port,
    ExtPort,
    LinkText,
    HoqLife,
    VlStall,
    RemotePort,
    RemoteGuid,
    RemoteLid,
    RemotePortNumber,
    RemoteExtPort,
    RemoteName,
    CouldBe,
    RemoteUnavailable,
}

/// Names a parser's `link.pest` rules for [`read`]: `link_parts!(Rule)` is the `part` function
/// of a grammar that joined `link.pest` (its rules have the same names in every parser).
macro_rules! link_parts {
    ($rule:ident) => {
        |rule: $rule| {
            use $crate::ib::link::LinkPart;
            Some(match rule {
                $rule::link_lid => LinkPart::Lid,
                $rule::link_port => LinkPart::Port,
                $rule::ext_port => LinkPart::ExtPort,
                $rule::link_text => LinkPart::LinkText,
                $rule::hoq_life => LinkPart::HoqLife,
                $rule::vl_stall => LinkPart::VlStall,
                $rule::remote_port => LinkPart::RemotePort,
                $rule::remote_guid => LinkPart::RemoteGuid,
                $rule::remote_lid => LinkPart::RemoteLid,
                $rule::remote_port_number => LinkPart::RemotePortNumber,
                $rule::remote_ext_port => LinkPart::RemoteExtPort,
                $rule::remote_name => LinkPart::RemoteName,
                $rule::could_be => LinkPart::CouldBe,
                $rule::remote_unavailable => LinkPart::RemoteUnavailable,
                _ => return None,
            })
        }
    };
}
pub(crate) use link_parts;

/// Reads a `port_link` pair; `part` names each of the parser's rules.
pub(crate) fn read<R: RuleType>(
    tool: &'static str,
    text: &str,
    pair: Pair<'_, R>,
    part: impl Fn(R) -> Option<LinkPart>,
) -> Result<PortLink, ParseError> {
    let number = |p: &Pair<'_, R>, what: &str| -> Result<u32, ParseError> {
        crate::grammar::named_number(tool, text, p, what)
    };
    let mut link = PortLink {
        lid: 0,
        port: 0,
        ext_port: None,
        width: None,
        speed: None,
        state: String::new(),
        physical_state: String::new(),
        hoq_life: None,
        vl_stall: None,
        remote: None,
        remote_unavailable: false,
    };
    for inner in pair.into_inner().flatten() {
        let Some(which) = part(inner.as_rule()) else {
            continue;
        };
        match which {
            LinkPart::Lid => link.lid = number(&inner, "LID")?,
            LinkPart::Port => link.port = number(&inner, "port number")?,
            LinkPart::ExtPort => link.ext_port = Some(number(&inner, "port number")?),
            LinkPart::LinkText => {
                let (width, speed, state, physical) = split_link_text(tool, text, &inner)?;
                (link.width, link.speed) = (width, speed);
                (link.state, link.physical_state) = (state, physical);
            }
            LinkPart::HoqLife => link.hoq_life = Some(number(&inner, "HOQ life")?),
            LinkPart::VlStall => link.vl_stall = Some(number(&inner, "VL stall count")?),
            LinkPart::RemotePort => {
                link.remote = Some(RemotePort {
                    guid: None,
                    lid: 0,
                    port: 0,
                    ext_port: None,
                    name: String::new(),
                    could_be: None,
                })
            }
            LinkPart::RemoteUnavailable => link.remote_unavailable = true,
            _ => {
                let Some(remote) = link.remote.as_mut() else {
                    continue;
                };
                match which {
                    LinkPart::RemoteGuid => remote.guid = Some(inner.as_str().to_owned()),
                    LinkPart::RemoteLid => remote.lid = number(&inner, "LID")?,
                    LinkPart::RemotePortNumber => remote.port = number(&inner, "port number")?,
                    LinkPart::RemoteExtPort => {
                        remote.ext_port = Some(number(&inner, "port number")?)
                    }
                    LinkPart::RemoteName => remote.name = inner.as_str().trim().to_owned(),
                    LinkPart::CouldBe => {
                        let could_be = inner.as_str().trim();
                        remote.could_be = (!could_be.is_empty()).then(|| could_be.to_owned());
                    }
                    _ => {}
                }
            }
        }
    }
    Ok(link)
}

type LinkText = (Option<String>, Option<String>, String, String);

/// ` 4X    2.5 Gbps Active/  LinkUp` into width, speed, state and physical state; a port that is
/// down prints only `Down/ Polling`.
fn split_link_text<R: RuleType>(
    tool: &'static str,
    text: &str,
    pair: &Pair<'_, R>,
) -> Result<LinkText, ParseError> {
    let raw = pair.as_str();
    let malformed = || {
        ParseError::at(
            tool,
            text,
            pair.as_span().start(),
            raw.len(),
            "expected a link as `4X 2.5 Gbps Active/ LinkUp` or `Down/ Polling`",
        )
    };
    let (before, physical) = raw.rsplit_once('/').ok_or_else(malformed)?;
    let physical = physical.trim();
    let before = before.trim_end();
    let (rest, state) = match before.rsplit_once([' ', '\t']) {
        Some((rest, state)) => (rest.trim(), state),
        None => ("", before.trim_start()),
    };
    if physical.is_empty() || state.is_empty() {
        return Err(malformed());
    }
    let (width, speed) = match rest.split_once([' ', '\t']) {
        Some((width, speed)) => (Some(width.to_owned()), Some(speed.trim().to_owned())),
        None if rest.is_empty() => (None, None),
        None => (Some(rest.to_owned()), None),
    };
    Ok((width, speed, state.to_owned(), physical.to_owned()))
}
