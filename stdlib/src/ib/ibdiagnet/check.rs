//! The findings of a fabric check from one `ibdiagnet2.db_csv`: the cabling against a design
//! topology, the subnet managers (exactly one master), links below the expected width or speed,
//! and error counters above their thresholds. Every finding names the node (a host by its name,
//! a switch by its system name) and the port.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use super::types::{DbCsv, SPEEDS, width_lanes};

/// What to hold the fabric to.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub(crate) struct Expected {
    /// `4X`: a link trained narrower is a finding.
    pub(crate) width: Option<String>,
    /// `EDR`: a link trained slower is a finding.
    pub(crate) speed: Option<String>,
    /// Counter name to the largest value allowed.
    pub(crate) thresholds: BTreeMap<String, u64>,
    /// The design's cables, each two `(node description, port)` ends in order.
    pub(crate) design: Option<BTreeSet<(End, End)>>,
}

/// One end of a cable: the node's description and the port number.
pub(crate) type End = (String, u32);

/// One thing wrong with the fabric.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Finding {
    /// `topology`, `subnet_manager`, `width`, `speed`, `counter`.
    pub check: String,
    /// The host (or switch) it names first: `node042`, `ib-leaf02`.
    pub node: String,
    pub guid: Option<String>,
    pub port: Option<u32>,
    /// The cable it blames, both ends by short name, the host end first (`node042 port 1 to
    /// ib-leaf02 port 42`); `None` for a finding of no one cable (no master subnet manager).
    pub link: Option<String>,
    /// What was found where the expectation was not met: `1X`, `SDR`, `SymbolErrorCounter 500`,
    /// `master`, `missing`, `unexpected`.
    pub found: Option<String>,
    pub message: String,
}

/// A master or standby subnet manager, named.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manager {
    pub node: String,
    pub description: String,
    pub guid: String,
    pub port: u32,
    pub state: String,
    pub priority: u32,
}

/// The checks' result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Checked {
    pub findings: Vec<Finding>,
    pub subnet_managers: Vec<Manager>,
    pub masters: Vec<Manager>,
    pub switches: usize,
    pub channel_adapters: usize,
    pub links: usize,
}

/// What `ib::ibdiagnet` returns and journals: whether the fabric passed, the checks' result,
/// the `db_csv` read and the host that ran the scan. Check mode runs nothing: `None`, `()`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    pub ok: bool,
    #[serde(flatten)]
    pub checked: Checked,
    pub db_csv: String,
    pub from: String,
}

/// The short name of a node description: a host's (`node042 mlx5_0` is `node042`), a switch's
/// system name (`MF0;ib-leaf02:MSB7800/U1` is `ib-leaf02`).
pub(crate) fn short_name(description: &str) -> String {
    if let Some((_, rest)) = description.split_once(';') {
        return rest.split(':').next().unwrap_or(rest).to_owned();
    }
    description
        .split_whitespace()
        .next()
        .unwrap_or(description)
        .to_owned()
}

/// The fabric's nodes by GUID: their descriptions and kinds.
struct Nodes<'a> {
    desc: BTreeMap<&'a str, &'a str>,
    kind: BTreeMap<&'a str, &'a str>,
    db: &'a DbCsv,
}

impl<'a> Nodes<'a> {
    fn of(db: &'a DbCsv) -> Self {
        Self {
            desc: db
                .nodes
                .iter()
                .map(|n| (n.guid.as_str(), n.description.as_str()))
                .collect(),
            kind: db
                .nodes
                .iter()
                .map(|n| (n.guid.as_str(), n.kind.as_str()))
                .collect(),
            db,
        }
    }

    /// A node's description, or its GUID when the fabric does not describe it.
    fn describe(&self, guid: &str) -> String {
        self.desc
            .get(guid)
            .map_or_else(|| format!("0x{guid}"), |d| (*d).to_owned())
    }

    /// A node's short name (`node042`).
    fn name(&self, guid: &str) -> String {
        short_name(&self.describe(guid))
    }

    /// The cable a port is on, by short names, the port's own end first.
    fn link_of(&self, guid: &str, port: u32) -> Option<String> {
        self.db.links.iter().find_map(|l| {
            let (here, there) = if (l.node_guid1.as_str(), l.port1) == (guid, port) {
                ((&l.node_guid1, l.port1), (&l.node_guid2, l.port2))
            } else if (l.node_guid2.as_str(), l.port2) == (guid, port) {
                ((&l.node_guid2, l.port2), (&l.node_guid1, l.port1))
            } else {
                return None;
            };
            Some(format!(
                "{} port {} to {} port {}",
                self.name(here.0),
                here.1,
                self.name(there.0),
                there.1
            ))
        })
    }
}

/// Runs every check.
pub(crate) fn check(db: &DbCsv, expected: &Expected) -> Checked {
    let names = Nodes::of(db);
    let mut findings = Vec::new();
    let (managers, masters) = subnet_managers(&names, &mut findings);
    width_and_speed(&names, expected, &mut findings);
    counters(&names, expected, &mut findings);
    if let Some(design) = &expected.design {
        topology(&names, design, &mut findings);
    }
    Checked {
        findings,
        subnet_managers: managers,
        masters,
        switches: db.nodes.iter().filter(|n| n.kind == "Switch").count(),
        channel_adapters: db.nodes.iter().filter(|n| n.kind == "CA").count(),
        links: db.links.len(),
    }
}

/// Subnet managers: exactly one master. Every manager, and the masters.
fn subnet_managers(names: &Nodes<'_>, findings: &mut Vec<Finding>) -> (Vec<Manager>, Vec<Manager>) {
    let db = names.db;
    let managers: Vec<Manager> = db
        .subnet_managers
        .iter()
        .map(|sm| Manager {
            node: names.name(&sm.node_guid),
            description: names.describe(&sm.node_guid),
            guid: format!("0x{}", sm.node_guid),
            port: sm.port,
            state: sm.state.clone(),
            priority: sm.priority,
        })
        .collect();
    let masters: Vec<Manager> = managers
        .iter()
        .filter(|m| m.state == "master")
        .cloned()
        .collect();
    match masters.len() {
        0 => findings.push(Finding {
            check: "subnet_manager".into(),
            node: String::new(),
            guid: None,
            port: None,
            link: None,
            found: Some("no master".into()),
            message: "no master subnet manager on the fabric".into(),
        }),
        1 => {}
        n => {
            let all: Vec<String> = masters
                .iter()
                .map(|m| format!("{} ({})", m.node, m.guid))
                .collect();
            for m in &masters {
                findings.push(Finding {
                    check: "subnet_manager".into(),
                    node: m.node.clone(),
                    guid: Some(m.guid.clone()),
                    port: Some(m.port),
                    link: None,
                    found: Some(m.state.clone()),
                    message: format!(
                        "{n} master subnet managers ({}): {} {} port {} is one (priority {})",
                        all.join(", "),
                        m.node,
                        m.guid,
                        m.port,
                        m.priority
                    ),
                });
            }
        }
    }
    (managers, masters)
}

/// Width and speed, once per cable, naming the host end first.
fn width_and_speed(names: &Nodes<'_>, expected: &Expected, findings: &mut Vec<Finding>) {
    let db = names.db;
    let kind = &names.kind;
    let ports: BTreeMap<(&str, u32), &super::types::Port> = db
        .ports
        .iter()
        .map(|p| ((p.node_guid.as_str(), p.port), p))
        .collect();
    let want_lanes = expected.width.as_deref().and_then(width_lanes);
    let want_speed = expected
        .speed
        .as_deref()
        .and_then(|s| SPEEDS.iter().position(|k| *k == s));
    for link in &db.links {
        let (mut a, mut b) = (
            (&link.node_guid1, link.port1),
            (&link.node_guid2, link.port2),
        );
        if kind.get(a.0.as_str()) == Some(&"Switch") && kind.get(b.0.as_str()) != Some(&"Switch") {
            std::mem::swap(&mut a, &mut b);
        }
        let pa = ports.get(&(a.0.as_str(), a.1));
        let pb = ports.get(&(b.0.as_str(), b.1));
        let cable = format!(
            "{} port {} to {} port {}",
            names.describe(a.0),
            a.1,
            names.describe(b.0),
            b.1
        );
        let link_name = format!(
            "{} port {} to {} port {}",
            names.name(a.0),
            a.1,
            names.name(b.0),
            b.1
        );
        let widths: Vec<&str> = [pa, pb]
            .into_iter()
            .flatten()
            .filter_map(|p| p.width.as_deref())
            .collect();
        let narrow = widths
            .iter()
            .filter_map(|w| width_lanes(w).map(|l| (l, *w)))
            .min();
        if let (Some(want), Some((lanes, text))) = (want_lanes, narrow)
            && lanes < want
        {
            findings.push(Finding {
                check: "width".into(),
                node: names.name(a.0),
                guid: Some(format!("0x{}", a.0)),
                port: Some(a.1),
                link: Some(link_name.clone()),
                found: Some((*text).to_owned()),
                message: format!(
                    "{} port {}: link trained at {text}, expected {} (cable {cable})",
                    names.name(a.0),
                    a.1,
                    expected.width.as_deref().unwrap_or_default()
                ),
            });
        }
        let slow = [pa, pb]
            .into_iter()
            .flatten()
            .filter_map(|p| p.speed.as_deref())
            .filter_map(|s| SPEEDS.iter().position(|k| *k == s))
            .min();
        if let (Some(want), Some(got)) = (want_speed, slow)
            && got < want
        {
            findings.push(Finding {
                check: "speed".into(),
                node: names.name(a.0),
                guid: Some(format!("0x{}", a.0)),
                port: Some(a.1),
                link: Some(link_name.clone()),
                found: Some(SPEEDS[got].to_owned()),
                message: format!(
                    "{} port {}: link runs at {}, expected {} (cable {cable})",
                    names.name(a.0),
                    a.1,
                    SPEEDS[got],
                    SPEEDS[want]
                ),
            });
        }
    }
}

/// Counters above their thresholds.
fn counters(names: &Nodes<'_>, expected: &Expected, findings: &mut Vec<Finding>) {
    for c in &names.db.counters {
        for (counter, limit) in &expected.thresholds {
            if let Some(value) = c.values.get(counter)
                && value > limit
            {
                findings.push(Finding {
                    check: "counter".into(),
                    node: names.name(&c.node_guid),
                    guid: Some(format!("0x{}", c.node_guid)),
                    port: Some(c.port),
                    link: names.link_of(&c.node_guid, c.port),
                    found: Some(format!("{counter} {value}")),
                    message: format!(
                        "{} port {}: {counter} {value}, over the threshold {limit}",
                        names.describe(&c.node_guid),
                        c.port
                    ),
                });
            }
        }
    }
}

/// The cabling against the design, by node description and port.
fn topology(names: &Nodes<'_>, design: &BTreeSet<(End, End)>, findings: &mut Vec<Finding>) {
    let found: BTreeSet<(End, End)> = names
        .db
        .links
        .iter()
        .map(|l| {
            cable(
                (names.describe(&l.node_guid1), l.port1),
                (names.describe(&l.node_guid2), l.port2),
            )
        })
        .collect();
    let missing = design
        .difference(&found)
        .map(|c| (c, "missing", "design", "fabric"));
    let unexpected = found
        .difference(design)
        .map(|c| (c, "unexpected", "fabric", "design"));
    for ((a, b), kind, is_in, not_in) in missing.chain(unexpected) {
        findings.push(Finding {
            check: "topology".into(),
            node: short_name(&a.0),
            guid: None,
            port: Some(a.1),
            link: Some(short_link(a, b)),
            found: Some(kind.into()),
            message: format!(
                "{kind} cable: {} port {} to {} port {} is in the {is_in}, not in the {not_in}",
                a.0, a.1, b.0, b.1
            ),
        });
    }
}

/// A cable by its ends' short names, the host end first (`node042 port 1 to ib-leaf02 port 42`).
fn short_link(a: &End, b: &End) -> String {
    let (a, b) = if a.0.contains(';') && !b.0.contains(';') {
        (b, a)
    } else {
        (a, b)
    };
    format!(
        "{} port {} to {} port {}",
        short_name(&a.0),
        a.1,
        short_name(&b.0),
        b.1
    )
}

/// A cable's two ends in order, so either direction compares equal.
pub(crate) fn cable(a: End, b: End) -> (End, End) {
    if a <= b { (a, b) } else { (b, a) }
}

/// The cables of a design topology in ibnetdiscover's format (what `ibnetdiscover` prints and
/// `ibnetdiscover --diff` compares against), by node description and port.
pub(crate) fn design_cables(topology: &crate::ib::ibnetdiscover::Topology) -> BTreeSet<(End, End)> {
    topology
        .switches
        .iter()
        .chain(&topology.channel_adapters)
        .chain(&topology.routers)
        .flat_map(|node| {
            node.ports.iter().filter_map(move |port| {
                let remote = port.remote.as_ref()?;
                let here = node.description.clone()?;
                let there = remote.description.clone().or_else(|| {
                    // A CA's line names the switch only by reference; its own line has the
                    // description.
                    let r = remote.node_ref.as_deref()?;
                    topology
                        .switches
                        .iter()
                        .chain(&topology.channel_adapters)
                        .find(|n| n.node_ref.as_deref() == Some(r))?
                        .description
                        .clone()
                })?;
                Some(cable((here, port.port), (there, remote.port)))
            })
        })
        .collect()
}
