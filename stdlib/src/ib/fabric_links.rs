//! The fabric's links named by both ends, from `iblinkinfo`: every port that is up with a peer
//! is one end of a link (`node01 mlx5_0 port 1 to MF0;ib-sw01:MSB7800/U1 port 1`), each link
//! once, and a port found by its GUID and number (as `ibqueryerrors` names it) is placed on
//! its link.

use serde::{Deserialize, Serialize};

use super::iblinkinfo::IbLinkInfo;

/// One end of a link.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LinkEnd {
    /// The node description (`node01 mlx5_0`, `MF0;ib-sw01:MSB7800/U1`).
    pub node: String,
    /// The port number.
    pub port: u32,
    /// The port's LID (a switch port's is the switch's).
    pub lid: u32,
}

/// One link: both ends as `iblinkinfo` shows them and how it trained.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FabricLink {
    /// The end printed first (a host's channel adapter before a switch).
    pub a: LinkEnd,
    /// The other end.
    pub b: LinkEnd,
    /// The active width (`4X`).
    pub width: String,
    /// The active speed as printed (`25.78125 Gbps`).
    pub speed: String,
    /// `node01 mlx5_0 port 1 to MF0;ib-sw01:MSB7800/U1 port 1`.
    pub name: String,
}

/// The links and which port (GUID and number) is an end of which.
#[derive(Debug, Clone, Default)]
pub(crate) struct Links {
    pub(crate) links: Vec<FabricLink>,
    /// (port GUID or switch GUID, port number, index into `links`).
    ends: Vec<(u64, u32, usize)>,
}

/// A GUID as a number, however it is padded (`0x200002`, `0x0000000000200002`).
pub(crate) fn guid_value(text: &str) -> Option<u64> {
    u64::from_str_radix(text.trim_start_matches("0x"), 16).ok()
}

impl Links {
    /// Every link that is up with a peer, once.
    pub(crate) fn of(info: &IbLinkInfo) -> Self {
        let mut found = Self::default();
        // (LID, port) -> GUID, to find the peer's end of a link printed from this side.
        let mut guid_at = Vec::new();
        for node in &info.nodes {
            for p in &node.ports {
                let guid = p
                    .guid
                    .as_deref()
                    .or(node.guid.as_deref())
                    .and_then(guid_value);
                if let Some(guid) = guid {
                    guid_at.push(((p.link.lid, p.link.port), guid));
                }
            }
        }
        for node in &info.nodes {
            for p in &node.ports {
                let (Some(remote), Some(width), Some(speed)) =
                    (&p.link.remote, &p.link.width, &p.link.speed)
                else {
                    continue;
                };
                let here = (p.link.lid, p.link.port);
                let there = (remote.lid, remote.port);
                if found
                    .links
                    .iter()
                    .any(|l| (l.a.lid, l.a.port) == there && (l.b.lid, l.b.port) == here)
                {
                    continue;
                }
                let a = LinkEnd {
                    node: node.name.clone().unwrap_or_default(),
                    port: p.link.port,
                    lid: p.link.lid,
                };
                let b = LinkEnd {
                    node: remote.name.clone(),
                    port: remote.port,
                    lid: remote.lid,
                };
                let index = found.links.len();
                for (end, guid) in &guid_at {
                    if *end == here || *end == there {
                        found.ends.push((*guid, end.1, index));
                    }
                }
                found.links.push(FabricLink {
                    name: format!("{} port {} to {} port {}", a.node, a.port, b.node, b.port),
                    a,
                    b,
                    width: width.clone(),
                    speed: speed.clone(),
                });
            }
        }
        found
    }

    /// The link a port (by GUID and number) is an end of.
    pub(crate) fn link_of(&self, guid: &str, port: u32) -> Option<&FabricLink> {
        let guid = guid_value(guid)?;
        self.ends
            .iter()
            .find(|(g, p, _)| *g == guid && *p == port)
            .and_then(|(_, _, i)| self.links.get(*i))
    }
}
