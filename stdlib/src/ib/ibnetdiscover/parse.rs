//! Walks the `ibnetdiscover` parse tree into [`Topology`].

use pest::Parser as _;
use pest::iterators::Pair;

use super::types::{FabricNode, FabricPort, RemoteEnd, Topology, TopologyHeader};
use crate::ParseError;

const TOOL: &str = "ibnetdiscover";

#[derive(pest_derive::Parser)]
#[grammar = "src/ib/ibnetdiscover/ibnetdiscover.pest"]
struct IbNetDiscoverParser;

/// Parses `ibnetdiscover` or `ibnetdiscover --ports` output.
pub(super) fn parse(text: &str) -> Result<Topology, ParseError> {
    let pairs = IbNetDiscoverParser::parse(Rule::ibnetdiscover, text)
        .map_err(|error| ParseError::from_pest(TOOL, text, &error))?;
    let mut topology = Topology {
        layout: String::new(),
        switches: Vec::new(),
        channel_adapters: Vec::new(),
        routers: Vec::new(),
        warnings: Vec::new(),
        elided: false,
        header: TopologyHeader::default(),
    };
    for pair in pairs.flatten() {
        match pair.as_rule() {
            Rule::generated_line => topology.header.generated = inner_str(&pair, Rule::generated),
            Rule::hops_line => {
                if let Some(hops) = pair.clone().into_inner().next() {
                    topology.header.max_hops_discovered =
                        Some(crate::grammar::number(TOOL, text, &hops)?);
                }
            }
            Rule::mads_line => {
                if let Some(mads) = pair.clone().into_inner().next() {
                    topology.header.total_mads_used =
                        Some(crate::grammar::number(TOOL, text, &mads)?);
                }
            }
            Rule::initiated_line => {
                let mut guids = pair.clone().into_inner().map(|g| g.as_str().to_owned());
                topology.header.initiated_from_node = guids.next();
                topology.header.initiated_from_port = guids.next();
            }
            Rule::topology => topology.layout = "topology".to_owned(),
            Rule::ports_listing => topology.layout = "ports".to_owned(),
            Rule::ibwarn_line => topology
                .warnings
                .push(inner_str(&pair, Rule::rest).unwrap_or_default()),
            Rule::elision_line => topology.elided = true,
            Rule::node_block => {
                let (kind, node) = node_block(text, pair)?;
                nodes_of(&mut topology, &kind).push(node);
            }
            Rule::ports_line => ports_line(text, &mut topology, pair)?,
            _ => {}
        }
    }
    Ok(topology)
}

fn nodes_of<'a>(topology: &'a mut Topology, kind: &str) -> &'a mut Vec<FabricNode> {
    match kind {
        "switch" => &mut topology.switches,
        "router" => &mut topology.routers,
        _ => &mut topology.channel_adapters,
    }
}

fn empty_node() -> FabricNode {
    FabricNode {
        node_ref: None,
        guid: None,
        port_guid: None,
        description: None,
        vendor_id: None,
        device_id: None,
        system_image_guid: None,
        port_count: None,
        lid: None,
        lmc: None,
        port0: None,
        ports: Vec::new(),
    }
}

/// One node block of the topology file; returns the node kind and the node.
fn node_block(text: &str, block: Pair<'_, Rule>) -> Result<(String, FabricNode), ParseError> {
    let mut node = empty_node();
    let mut kind = String::new();
    for pair in block.into_inner() {
        match pair.as_rule() {
            Rule::vendid => node.vendor_id = inner_str(&pair, Rule::id_text),
            Rule::devid => node.device_id = inner_str(&pair, Rule::id_text),
            Rule::sysimgguid => node.system_image_guid = inner_str(&pair, Rule::id_text),
            Rule::switchguid | Rule::caguid | Rule::rtguid => {
                node.guid = inner_str(&pair, Rule::id_text);
                node.port_guid = inner_str(&pair, Rule::paren_text);
            }
            Rule::node_line => {
                for part in pair.into_inner() {
                    match part.as_rule() {
                        Rule::node_kind => {
                            kind = match part.as_str() {
                                "Switch" => "switch",
                                "Rt" => "router",
                                _ => "ca",
                            }
                            .to_owned();
                        }
                        Rule::port_count => {
                            node.port_count = Some(crate::grammar::number(TOOL, text, &part)?)
                        }
                        Rule::quoted_node => node.node_ref = inner_str(&part, Rule::node_ref),
                        Rule::quoted_desc => node.description = inner_str(&part, Rule::desc),
                        Rule::switch_port0 => {
                            let mut inner = part.into_inner();
                            node.port0 = inner.next().map(|p| p.as_str().to_owned());
                            let numbers: Vec<Pair<'_, Rule>> = inner.collect();
                            if let [_port, lid, lmc] = numbers.as_slice() {
                                node.lid = Some(crate::grammar::number(TOOL, text, lid)?);
                                node.lmc = Some(crate::grammar::number(TOOL, text, lmc)?);
                            }
                        }
                        _ => {}
                    }
                }
            }
            Rule::port_line => node.ports.push(port_line(text, pair)?),
            _ => {}
        }
    }
    Ok((kind, node))
}

/// `[1] "H-..."[1](guid) # "desc" lid 22 2xNDR` or `[1](guid) "S-..."[3] # lid 5 lmc 0 "desc" lid 3 4xEDR`.
fn port_line(text: &str, line: Pair<'_, Rule>) -> Result<FabricPort, ParseError> {
    let mut port = FabricPort {
        port: 0,
        guid: None,
        lid: None,
        lmc: None,
        width: None,
        speed: None,
        remote: None,
    };
    let mut remote = RemoteEnd {
        kind: String::new(),
        node_ref: None,
        guid: None,
        port: 0,
        description: None,
        lid: None,
    };
    let mut seen_local_port = false;
    for pair in line.into_inner() {
        match pair.as_rule() {
            Rule::integer if !seen_local_port => {
                port.port = crate::grammar::number(TOOL, text, &pair)?;
                seen_local_port = true;
            }
            Rule::port_guid => port.guid = Some(pair.as_str().to_owned()),
            Rule::quoted_node => {
                remote.node_ref = inner_str(&pair, Rule::node_ref);
                remote.kind = kind_of_ref(remote.node_ref.as_deref().unwrap_or_default());
            }
            Rule::remote_port => remote.port = crate::grammar::number(TOOL, text, &pair)?,
            Rule::remote_port_guid => remote.guid = Some(pair.as_str().to_owned()),
            Rule::port_comment => {
                for part in pair.into_inner() {
                    match part.as_rule() {
                        Rule::local_lid => {
                            let numbers: Vec<Pair<'_, Rule>> = part.into_inner().collect();
                            if let [lid, lmc] = numbers.as_slice() {
                                port.lid = Some(crate::grammar::number(TOOL, text, lid)?);
                                port.lmc = Some(crate::grammar::number(TOOL, text, lmc)?);
                            }
                        }
                        Rule::quoted_desc => remote.description = inner_str(&part, Rule::desc),
                        Rule::integer => {
                            remote.lid = Some(crate::grammar::number(TOOL, text, &part)?)
                        }
                        Rule::width_speed => {
                            port.width = inner_str(&part, Rule::link_width);
                            port.speed = inner_str(&part, Rule::link_speed);
                        }
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
    port.remote = Some(remote);
    Ok(port)
}

fn kind_of_ref(node_ref: &str) -> String {
    match node_ref.chars().next() {
        Some('S') => "switch",
        Some('R') => "router",
        _ => "ca",
    }
    .to_owned()
}

fn kind_of_list(kind: &str) -> String {
    match kind {
        "SW" => "switch",
        "RT" => "router",
        _ => "ca",
    }
    .to_owned()
}

/// One `--ports` line: adds the port to its node (grouped by node description, else GUID).
fn ports_line(text: &str, topology: &mut Topology, line: Pair<'_, Rule>) -> Result<(), ParseError> {
    let mut ends: Vec<(String, u32, u32, String)> = Vec::new();
    let mut names: Vec<String> = Vec::new();
    let (mut width, mut speed) = (None, None);
    for pair in line.into_inner().flat_map(|p| {
        if p.as_rule() == Rule::peer {
            p.into_inner().collect::<Vec<_>>()
        } else {
            vec![p]
        }
    }) {
        match pair.as_rule() {
            Rule::port_end => {
                let parts: Vec<Pair<'_, Rule>> = pair.into_inner().collect();
                if let [kind, lid, port, guid] = parts.as_slice() {
                    ends.push((
                        kind.as_str().to_owned(),
                        crate::grammar::number(TOOL, text, lid)?,
                        crate::grammar::number(TOOL, text, port)?,
                        guid.as_str().to_owned(),
                    ));
                }
            }
            Rule::list_width => width = Some(pair.as_str().to_owned()),
            Rule::list_speed => speed = Some(pair.as_str().to_owned()),
            Rule::list_name => names.push(pair.as_str().to_owned()),
            _ => {}
        }
    }
    let Some((kind, lid, port_number, guid)) = ends.first().cloned() else {
        return Ok(());
    };
    let description = names.first().cloned();
    let remote = match (ends.get(1), names.get(1)) {
        (Some((rkind, rlid, rport, rguid)), rname) => Some(RemoteEnd {
            kind: kind_of_list(rkind),
            node_ref: None,
            guid: Some(rguid.clone()),
            port: *rport,
            description: rname.cloned(),
            lid: Some(*rlid),
        }),
        _ => None,
    };
    let is_switch = kind == "SW";
    let port = FabricPort {
        port: port_number,
        guid: if is_switch { None } else { Some(guid.clone()) },
        lid: if is_switch { None } else { Some(lid) },
        lmc: None,
        width,
        speed,
        remote,
    };
    let nodes = nodes_of(topology, &kind_of_list(&kind));
    let found = nodes.iter_mut().find(|node| match &description {
        Some(name) if !name.is_empty() => node.description.as_deref() == Some(name.as_str()),
        _ => is_switch && node.guid.as_deref() == Some(guid.as_str()),
    });
    match found {
        Some(node) => node.ports.push(port),
        None => {
            let mut node = empty_node();
            node.description = description;
            if is_switch {
                node.guid = Some(guid);
                node.lid = Some(lid);
            }
            node.ports.push(port);
            nodes.push(node);
        }
    }
    Ok(())
}

fn inner_str(pair: &Pair<'_, Rule>, rule: Rule) -> Option<String> {
    pair.clone()
        .into_inner()
        .find(|p| p.as_rule() == rule)
        .map(|p| p.as_str().to_owned())
}

#[cfg(test)]
mod tests {
    use super::parse;

    #[test]
    fn ca_block_with_local_lid() {
        let out = "vendid=0x2c9\ndevid=0x5a44\ncaguid=0x8f10403960984\nCa\t2 \"H-0008f10403960984\"\t\t# \"MT23108 InfiniHost\"\n[1](8f10403960985) \t\"S-0008f10400410015\"[6]\t\t# lid 16 lmc 1 \"SW-6IB4 Voltaire\" lid 3 4xSDR\n";
        let topology = parse(out).unwrap_or_else(|e| panic!("{e}"));
        let ca = &topology.channel_adapters[0];
        assert_eq!(ca.ports[0].lid, Some(16));
        assert_eq!(ca.ports[0].lmc, Some(1));
        let remote = ca.ports[0]
            .remote
            .as_ref()
            .unwrap_or_else(|| panic!("no remote"));
        assert_eq!(remote.kind, "switch");
        assert_eq!(remote.port, 6);
        assert_eq!(remote.lid, Some(3));
    }

    #[test]
    fn unconnected_port_in_ports_listing() {
        let out = "SW  2052 37 0x506b4b03005c2740 4x ???                                    'ib-i4l1s01'\n";
        let topology = parse(out).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(topology.switches[0].ports[0].speed.as_deref(), Some("???"));
        assert!(topology.switches[0].ports[0].remote.is_none());
    }

    /// The header of newer infiniband-diags with `-m` (`dump_topology`: `# Reported max hops
    /// discovered: %u`, `# Total MADs used: %u`), above the rdma-core man page's first block.
    #[test]
    fn the_header_of_a_max_hops_run() {
        let out = "#\n# Topology file: generated on Tue Jun  5 14:15:10 2007\n#\n\
# Reported max hops discovered: 3\n# Total MADs used: 412\n\
# Initiated from node 0008f10403960558 port 0008f10403960559\n\n\
vendid=0x8f1\ndevid=0x5a06\nsysimgguid=0x5442ba00003000\nswitchguid=0x5442ba00003080(5442ba00003080)\n\
Switch\t24 \"S-005442ba00003080\"\t\t# \"ISR9024 Voltaire\" base port 0 lid 6 lmc 0\n";
        let header = parse(out).unwrap_or_else(|e| panic!("{e}")).header;
        assert_eq!(
            header.generated.as_deref(),
            Some("Tue Jun  5 14:15:10 2007")
        );
        assert_eq!(header.max_hops_discovered, Some(3));
        assert_eq!(header.total_mads_used, Some(412));
        assert_eq!(
            header.initiated_from_node.as_deref(),
            Some("0008f10403960558")
        );
        assert_eq!(
            header.initiated_from_port.as_deref(),
            Some("0008f10403960559")
        );
    }

    #[test]
    fn comments_alone_are_not_a_topology() {
        assert!(parse("#\n# Topology file: generated on Fri Jul 19 02:49:25 2024\n#\n").is_err());
    }
}
