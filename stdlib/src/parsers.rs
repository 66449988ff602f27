//! Every output parser, by the name `cairn parse` knows it.

use serde::Serialize;

use crate::ParseError;

/// One vendor tool output parser.
pub struct ToolParser {
    /// The command whose output it reads.
    pub command: &'static str,
    /// The name `cairn parse` knows it by.
    pub name: &'static str,
    /// Parses the output into its typed result, as JSON.
    pub parse: fn(&str) -> Result<serde_json::Value, ParseError>,
}

/// All parsers, in the order `cairn parse --list` prints them.
pub fn parsers() -> &'static [ToolParser] {
    &PARSERS
}

/// The parser called `name`.
pub fn parser(name: &str) -> Option<&'static ToolParser> {
    PARSERS.iter().find(|parser| parser.name == name)
}

fn json<T: Serialize>(parsed: Result<T, ParseError>) -> Result<serde_json::Value, ParseError> {
    // Serializing plain derived structs into a JSON value cannot fail.
    parsed.map(|value| serde_json::to_value(value).unwrap_or(serde_json::Value::Null))
}

const PARSERS: [ToolParser; 27] = [
    ToolParser {
        name: "mst-status",
        command: "mst status [-v|-vv]",
        parse: |t| json(crate::mst::parse_status(t)),
    },
    ToolParser {
        name: "mlxconfig-query",
        command: "mlxconfig -d DEV [-e] query",
        parse: |t| json(crate::mlxconfig::parse_query(t)),
    },
    ToolParser {
        name: "mlxconfig-set",
        command: "mlxconfig -d DEV [-y] set KEY=VALUE...",
        parse: |t| json(crate::mlxconfig::parse_set(t)),
    },
    ToolParser {
        name: "mlxfwmanager",
        command: "mlxfwmanager [-d DEV] [--query|--online -u]",
        parse: |t| json(crate::mlxfwmanager::parse(t)),
    },
    ToolParser {
        name: "flint-query",
        command: "flint -d DEV query [full]",
        parse: |t| json(crate::flint::parse_query(t)),
    },
    ToolParser {
        name: "esxcli-vib-list",
        command: "esxcli software vib list",
        parse: |t| json(crate::esxcli::parse_vib_list(t)),
    },
    ToolParser {
        name: "esxcli-vib-install",
        command: "esxcli software vib install -v|-d ...",
        parse: |t| json(crate::esxcli::parse_vib_install(t)),
    },
    ToolParser {
        name: "esxcli-module-parameters",
        command: "esxcli system module parameters list -m MODULE",
        parse: |t| json(crate::esxcli::parse_module_parameters(t)),
    },
    ToolParser {
        name: "esxcli-nic-list",
        command: "esxcli network nic list",
        parse: |t| json(crate::esxcli::parse_nic_list(t)),
    },
    ToolParser {
        name: "esxcli-pcipassthru-list",
        command: "esxcli hardware pci pcipassthru list",
        parse: |t| json(crate::esxcli::parse_pcipassthru_list(t)),
    },
    ToolParser {
        name: "esxcli-advanced",
        command: "esxcli system settings advanced list -o OPTION",
        parse: |t| json(crate::esxcli::parse_advanced(t)),
    },
    ToolParser {
        name: "ofed-info",
        command: "ofed_info -s",
        parse: |t| json(crate::ofed::parse_info(t)),
    },
    ToolParser {
        name: "openibd",
        command: "/etc/init.d/openibd restart|start|stop",
        parse: |t| json(crate::ofed::openibd::parse(t)),
    },
    ToolParser {
        name: "ibstatus",
        command: "ibstatus [DEV[:PORT]]",
        parse: |t| json(crate::ib::ibstatus::parse(t)),
    },
    ToolParser {
        name: "ibstat",
        command: "ibstat [-s]",
        parse: |t| json(crate::ib::ibstat::parse(t)),
    },
    ToolParser {
        name: "ibstat-list",
        command: "ibstat -l",
        parse: |t| json(crate::ib::ibstat::parse_list(t)),
    },
    ToolParser {
        name: "ibstat-ports",
        command: "ibstat -p",
        parse: |t| json(crate::ib::ibstat::parse_ports(t)),
    },
    ToolParser {
        name: "ibv-devinfo",
        command: "ibv_devinfo [-d DEV] [-i PORT] [-v]",
        parse: |t| json(crate::ib::ibv_devinfo::parse(t)),
    },
    ToolParser {
        name: "ibv-devinfo-list",
        command: "ibv_devinfo -l",
        parse: |t| json(crate::ib::ibv_devinfo::parse_list(t)),
    },
    ToolParser {
        name: "ibnetdiscover",
        command: "ibnetdiscover [-p]",
        parse: |t| json(crate::ib::ibnetdiscover::parse(t)),
    },
    ToolParser {
        name: "ibdev2netdev",
        command: "ibdev2netdev [-v]",
        parse: |t| json(crate::net::ibdev2netdev::parse(t)),
    },
    ToolParser {
        name: "lspci",
        command: "lspci [-D] | grep Mellanox",
        parse: |t| json(crate::lspci::parse(t)),
    },
    ToolParser {
        name: "ip-addr",
        command: "ip -j addr show",
        parse: |t| json(crate::net::ip::parse_json(t)),
    },
    ToolParser {
        name: "ip-addr-text",
        command: "ip addr show",
        parse: |t| json(crate::net::ip::parse_text(t)),
    },
    ToolParser {
        name: "ip-link",
        command: "ip [-d] link show",
        parse: |t| json(crate::net::ip::parse_link(t)),
    },
    ToolParser {
        name: "perftest",
        command: "ib_{send,write,read}_{bw,lat} ...",
        parse: |t| json(crate::perftest::parse(t)),
    },
    ToolParser {
        name: "sockperf",
        command: "sockperf server|ping-pong ...",
        parse: |t| json(crate::sockperf::parse(t)),
    },
];
