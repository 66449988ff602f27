//! The table of tools (layer 3): one row per builtin namespace, from which the installed
//! builtins and their option maps, the parser list, the simulated models' tool lists and
//! docs/builtins.md's module lists are derived. Adding a namespace is its folder, its `pub mod`
//! line in `lib.rs` and its row here.
//!
//! `install_tools` is the one install step; `ToolParser`, a row's parser entry, is here so
//! `parsers.rs` reads the table and the table needs nothing back (no import circle,
//! `tests/src/import_circles.rs`).

use cairn_runtime::BuiltinOptions;
use cairn_runtime::sim::SimModel;
use serde::Serialize;

use crate::ParseError;

/// One vendor tool output parser: a row's part that `cairn parse` lists (defined here, beside
/// the rows, so the parser list reads the table and the table needs nothing back).
#[derive(Debug, Clone, Copy)]
pub struct ToolParser {
    /// The command whose output it reads.
    pub command: &'static str,
    /// The name `cairn parse` knows it by.
    pub name: &'static str,
    /// Parses the output into its typed result, as JSON.
    pub parse: fn(&str) -> Result<serde_json::Value, ParseError>,
}

/// What `parse` reads in `text` (whatever its line ends, [`crate::grammar`]), as JSON, for a
/// row's `parse`.
pub(crate) fn json<T: Serialize>(
    text: &str,
    parse: fn(&str) -> Result<T, ParseError>,
) -> Result<serde_json::Value, ParseError> {
    // Serializing plain derived structs into a JSON value cannot fail.
    crate::grammar::read_output(text, parse)
        .map(|value| serde_json::to_value(value).unwrap_or(serde_json::Value::Null))
}

/// Which simulated hosts a namespace's tools run on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Host {
    /// An ESXi host or its vCenter management host (`sim:esxi7`).
    Esxi,
    /// The MFT tools: on an ESXi host (`sim:esxi7`) and on a bare-metal Linux host
    /// (`sim:rhel8-metal`).
    Mft,
    /// Linux: a guest (`sim:rhel8`) and a bare-metal host (`sim:rhel8-metal`).
    Guest,
    /// A bare-metal Linux host only (`sim:rhel8-metal`): MFT tools that have no ESXi build.
    Metal,
    /// The GPU server only (`sim:gpu-metal`, bare metal with GPUs): the GPU driver's tools.
    GpuServer,
}

impl Host {
    /// Whether the namespace runs on the ESXi model.
    pub(crate) fn on_esxi(self) -> bool {
        matches!(self, Self::Esxi | Self::Mft)
    }

    /// Whether the namespace runs on the guest model.
    pub(crate) fn on_guest(self) -> bool {
        self == Self::Guest
    }

    /// Whether the namespace runs on the bare-metal model.
    pub(crate) fn on_metal(self) -> bool {
        matches!(self, Self::Mft | Self::Guest | Self::Metal)
    }

    /// Whether the namespace runs on the GPU server's model (beside the bare-metal ones).
    pub(crate) fn on_gpu_server(self) -> bool {
        self == Self::GpuServer
    }

    /// Whether docs/builtins.md documents the namespace in its Linux (first) half.
    #[cfg_attr(not(test), allow(dead_code, reason = "the docs test reads it"))]
    pub(crate) fn on_linux_only(self) -> bool {
        matches!(self, Self::Guest | Self::Metal | Self::GpuServer)
    }
}

/// One builtin namespace: what it installs, parses and simulates.
#[cfg_attr(not(test), allow(dead_code, reason = "the docs test reads the names"))]
pub(crate) struct Tool {
    /// The namespace, as runbooks call it (`esxcli::`).
    pub(crate) namespace: &'static str,
    /// One line about it, for docs/builtins.md.
    pub(crate) about: &'static str,
    /// The host its programs run on.
    pub(crate) host: Host,
    /// Its builtins, the `#[export_module]` module registered under `namespace`; `None` for a
    /// parser-only namespace.
    pub(crate) builtins: Option<fn() -> rhai::Module>,
    /// The `#{...}` option maps its builtins take, declared for the builtins and `cairn check`.
    pub(crate) options: &'static [&'static [BuiltinOptions]],
    /// Its output parsers, in the order `cairn parse --list` prints them.
    pub(crate) parsers: &'static [ToolParser],
    /// Adds its simulators to its host's model (in table order: `esxcli` first, as its
    /// `on_boot` makes the installed VIBs' tools available before the others look).
    pub(crate) simulate: fn(SimModel) -> SimModel,
}

/// Registers every row's builtins under its namespace and declares their option maps: the one
/// install step, so a namespace needs no `install` of its own.
pub(crate) fn install_tools(engine: &mut rhai::Engine) {
    static MODULES: std::sync::OnceLock<Vec<Option<rhai::Shared<rhai::Module>>>> =
        std::sync::OnceLock::new();
    let modules = MODULES.get_or_init(|| {
        TOOLS
            .iter()
            .map(|tool| tool.builtins.map(|module| rhai::Shared::new(module())))
            .collect()
    });
    for (tool, module) in TOOLS.iter().zip(modules) {
        let Some(module) = module else {
            continue;
        };
        for options in tool.options.iter().flat_map(|o| o.iter()) {
            cairn_runtime::declare_options(options);
        }
        engine.register_static_module(tool.namespace, module.clone());
    }
}

/// Every namespace, ESXi first, each host's in the order its model runs their simulators.
pub(crate) const TOOLS: &[Tool] = &[
    Tool {
        namespace: "esxcli",
        about: "The ESXi host: VIBs, driver module parameters, advanced settings, PCI passthrough, NICs, maintenance mode.",
        host: Host::Esxi,
        builtins: Some(|| rhai::exported_module!(crate::esxcli::builtins::esxcli_builtins)),
        options: &[&[crate::esxcli::builtins::VIB_INSTALL_OPTIONS]],
        parsers: &[
            ToolParser {
                name: "esxcli-vib-list",
                command: "esxcli software vib list",
                parse: |t| json(t, crate::esxcli::parse_vib_list),
            },
            ToolParser {
                name: "esxcli-vib-install",
                command: "esxcli software vib install -v|-d ...",
                parse: |t| json(t, crate::esxcli::parse_vib_install),
            },
            ToolParser {
                name: "esxcli-module-parameters",
                command: "esxcli system module parameters list -m MODULE",
                parse: |t| json(t, crate::esxcli::parse_module_parameters),
            },
            ToolParser {
                name: "esxcli-nic-list",
                command: "esxcli network nic list",
                parse: |t| json(t, crate::esxcli::parse_nic_list),
            },
            ToolParser {
                name: "esxcli-pcipassthru-list",
                command: "esxcli hardware pci pcipassthru list",
                parse: |t| json(t, crate::esxcli::parse_pcipassthru_list),
            },
            ToolParser {
                name: "esxcli-advanced",
                command: "esxcli system settings advanced list -o OPTION",
                parse: |t| json(t, crate::esxcli::parse_advanced),
            },
        ],
        simulate: |m| m.with_tool(crate::esxcli::Esxcli),
    },
    Tool {
        namespace: "mst",
        about: "The MST service of the MFT tools, and the ConnectX devices it sees.",
        host: Host::Mft,
        builtins: Some(|| rhai::exported_module!(crate::mst::builtins::mst_builtins)),
        options: &[],
        parsers: &[ToolParser {
            name: "mst-status",
            command: "mst status [-v|-vv]",
            parse: |t| json(t, crate::mst::parse_status),
        }],
        simulate: |m| m.with_tool(crate::mst::Mst),
    },
    Tool {
        namespace: "mlxconfig",
        about: "Firmware configuration: link types, SR-IOV, for the next boot.",
        host: Host::Mft,
        builtins: Some(|| rhai::exported_module!(crate::mlxconfig::builtins::mlxconfig_builtins)),
        options: &[],
        parsers: &[
            ToolParser {
                name: "mlxconfig-query",
                command: "mlxconfig -d DEV [-e] query",
                parse: |t| json(t, crate::mlxconfig::parse_query),
            },
            ToolParser {
                name: "mlxconfig-set",
                command: "mlxconfig -d DEV [-y] set KEY=VALUE...",
                parse: |t| json(t, crate::mlxconfig::parse_set),
            },
        ],
        simulate: |m| m.with_tool(crate::mlxconfig::Mlxconfig),
    },
    Tool {
        namespace: "mlxfwmanager",
        about: "Firmware versions and online updates.",
        host: Host::Mft,
        builtins: Some(|| {
            rhai::exported_module!(crate::mlxfwmanager::builtins::mlxfwmanager_builtins)
        }),
        options: &[&[crate::mlxfwmanager::builtins::UPDATE_OPTIONS]],
        parsers: &[ToolParser {
            name: "mlxfwmanager",
            command: "mlxfwmanager [-d DEV] [--query|--online -u]",
            parse: |t| json(t, crate::mlxfwmanager::parse),
        }],
        simulate: |m| m.with_tool(crate::mlxfwmanager::MlxfwmanagerTool),
    },
    Tool {
        namespace: "flint",
        about: "The firmware image on an adapter's flash.",
        host: Host::Mft,
        builtins: Some(|| rhai::exported_module!(crate::flint::builtins::flint_builtins)),
        options: &[],
        parsers: &[ToolParser {
            name: "flint-query",
            command: "flint -d DEV query [full]",
            parse: |t| json(t, crate::flint::parse_query),
        }],
        simulate: |m| m.with_tool(crate::flint::Flint),
    },
    Tool {
        namespace: "mlxfwreset",
        about: "Loading a staged firmware image or NVCONFIG change without a reboot, at a reset level the device supports (MFT on Linux; ESXi's MFT has none).",
        host: Host::Metal,
        builtins: Some(|| rhai::exported_module!(crate::mlxfwreset::builtins::mlxfwreset_builtins)),
        options: &[],
        parsers: &[
            ToolParser {
                name: "mlxfwreset-query",
                command: "mlxfwreset -d DEV query",
                parse: |t| json(t, crate::mlxfwreset::parse_query),
            },
            ToolParser {
                name: "mlxfwreset-status",
                command: "mlxfwreset -d DEV status",
                parse: |t| json(t, crate::mlxfwreset::parse_status),
            },
            ToolParser {
                name: "mlxfwreset-reset",
                command: "mlxfwreset -d DEV [-y] [-l N] reset",
                parse: |t| json(t, crate::mlxfwreset::parse_reset),
            },
        ],
        simulate: |m| m.with_tool(crate::mlxfwreset::MlxfwresetSim),
    },
    Tool {
        namespace: "mlxlink",
        about: "A port's link as the firmware reports it: state, speed, FEC, troubleshooting advice, error counters and bit error rates.",
        host: Host::Guest,
        builtins: Some(|| rhai::exported_module!(crate::mlxlink::builtins::mlxlink_builtins)),
        options: &[],
        parsers: &[ToolParser {
            name: "mlxlink",
            command: "mlxlink -d DEV [-p PORT] [-c] [-m] [-e]",
            parse: |t| json(t, crate::mlxlink::parse),
        }],
        simulate: |m| m.with_tool(crate::mlxlink::sim::MlxlinkSim),
    },
    Tool {
        namespace: "vhpc",
        about: "vCenter through `vhpc_toolkit` on the management host named by the inventory var `vhpc_host`.",
        host: Host::Esxi,
        builtins: Some(|| rhai::exported_module!(crate::vhpc::builtins::vhpc_builtins)),
        options: &[&[crate::vhpc::builtins::RESERVE_OPTIONS]],
        parsers: &[],
        simulate: |m| m.with_tool(crate::vhpc::VhpcToolkit),
    },
    Tool {
        namespace: "ofed",
        about: "MLNX_OFED or DOCA-OFED: its version, installing it, and restarting its driver service.",
        host: Host::Guest,
        builtins: Some(|| rhai::exported_module!(crate::ofed::builtins::ofed_builtins)),
        options: &[&[
            crate::ofed::builtins::INSTALL_OPTIONS,
            crate::ofed::builtins::INSTALL_DOCA_OPTIONS,
        ]],
        parsers: &[
            ToolParser {
                name: "ofed-info",
                command: "ofed_info -s",
                parse: |t| json(t, crate::ofed::parse_info),
            },
            ToolParser {
                name: "mlnxofedinstall",
                command: "mlnxofedinstall [--force] [--without-fw-update] ...",
                parse: |t| json(t, crate::ofed::parse_install),
            },
            ToolParser {
                name: "openibd",
                command: "/etc/init.d/openibd restart|start|stop",
                parse: |t| json(t, crate::ofed::openibd::parse),
            },
        ],
        simulate: |m| m.with_tool(crate::ofed::sim::OfedSim),
    },
    Tool {
        namespace: "net",
        about: "Network interfaces: addresses, MTU, and which RDMA port each one is.",
        host: Host::Guest,
        builtins: Some(|| rhai::exported_module!(crate::net::builtins::net_builtins)),
        options: &[],
        parsers: &[
            ToolParser {
                name: "ibdev2netdev",
                command: "ibdev2netdev [-v]",
                parse: |t| json(t, crate::net::ibdev2netdev::parse),
            },
            ToolParser {
                name: "ip-addr",
                command: "ip -j addr show",
                parse: |t| json(t, crate::net::ip::parse_json),
            },
            ToolParser {
                name: "ip-addr-text",
                command: "ip addr show",
                parse: |t| json(t, crate::net::ip::parse_text),
            },
            ToolParser {
                name: "ip-link",
                command: "ip [-d] link show",
                parse: |t| json(t, crate::net::ip::parse_link),
            },
            ToolParser {
                name: "show-gids",
                command: "show_gids [DEV]",
                parse: |t| json(t, crate::grammar::show_gids::parse),
            },
            ToolParser {
                name: "ethtool-stats",
                command: "ethtool -S IFACE [| grep ...]",
                parse: |t| json(t, crate::net::ethtool::parse_stats),
            },
            ToolParser {
                name: "ethtool-driver",
                command: "ethtool -i IFACE",
                parse: |t| json(t, crate::net::ethtool::parse_driver),
            },
            ToolParser {
                name: "rdma-link",
                command: "rdma [-d] link [show [DEV[/PORT]]]",
                parse: |t| json(t, crate::net::rdma::parse),
            },
        ],
        simulate: |m| {
            m.with_tool(crate::net::sim::IpSim)
                .with_tool(crate::net::sim::Ibdev2netdevSim)
                .with_tool(crate::net::show_gids_sim::ShowGidsSim)
                .with_tool(crate::net::ethtool::sim::EthtoolSim)
        },
    },
    Tool {
        namespace: "ib",
        about: "RDMA ports and the InfiniBand fabric.",
        host: Host::Guest,
        builtins: Some(|| rhai::exported_module!(crate::ib::builtins::ib_builtins)),
        options: &[&[crate::ib::ibdiagnet::options::IBDIAGNET_OPTIONS]],
        parsers: &[
            ToolParser {
                name: "ibstatus",
                command: "ibstatus [DEV[:PORT]]",
                parse: |t| json(t, crate::ib::ibstatus::parse),
            },
            ToolParser {
                name: "ibstat",
                command: "ibstat [-s]",
                parse: |t| json(t, crate::ib::ibstat::parse),
            },
            ToolParser {
                name: "ibstat-list",
                command: "ibstat -l",
                parse: |t| json(t, crate::ib::ibstat::parse_list),
            },
            ToolParser {
                name: "ibstat-ports",
                command: "ibstat -p",
                parse: |t| json(t, crate::ib::ibstat::parse_ports),
            },
            ToolParser {
                name: "ibv-devinfo",
                command: "ibv_devinfo [-d DEV] [-i PORT] [-v]",
                parse: |t| json(t, crate::ib::ibv_devinfo::parse),
            },
            ToolParser {
                name: "ibv-devinfo-list",
                command: "ibv_devinfo -l",
                parse: |t| json(t, crate::ib::ibv_devinfo::parse_list),
            },
            ToolParser {
                name: "ibnetdiscover",
                command: "ibnetdiscover [-p]",
                parse: |t| json(t, crate::ib::ibnetdiscover::parse),
            },
            ToolParser {
                name: "ibdiagnet-db-csv",
                command: "cat OUT/ibdiagnet2.db_csv (after ibdiagnet -o OUT)",
                parse: |t| json(t, crate::ib::ibdiagnet::parse),
            },
            // The fabric's diagnostics, read from published outputs (parsers only).
            ToolParser {
                name: "ibqueryerrors",
                command: "ibqueryerrors [-c] [-s ...] [-r] [--data] [--counters]",
                parse: |t| json(t, crate::ib::ibqueryerrors::parse),
            },
            ToolParser {
                name: "perfquery",
                command: "perfquery [-x] [-E|-D|...] [-a] [LID|GUID] [PORT]",
                parse: |t| json(t, crate::ib::perfquery::parse),
            },
            ToolParser {
                name: "iblinkinfo",
                command: "iblinkinfo [-l] [--switches-only|--cas-only] [-d]",
                parse: |t| json(t, crate::ib::iblinkinfo::parse),
            },
            ToolParser {
                name: "sminfo",
                command: "sminfo [SM_LID|SM_DR_PATH]",
                parse: |t| json(t, crate::ib::sminfo::parse),
            },
            ToolParser {
                name: "ibnodes",
                command: "ibnodes|ibhosts|ibswitches",
                parse: |t| json(t, crate::ib::ibnodes::parse),
            },
            ToolParser {
                name: "ibv-rc-pingpong",
                command: "ibv_rc_pingpong [-d DEV] [-g GIDX] [HOST]",
                parse: |t| json(t, crate::ib::rc_pingpong::parse),
            },
            ToolParser {
                name: "ibdiagnet-summary",
                command: "ibdiagnet [...] (its console output)",
                parse: |t| json(t, crate::ib::ibdiagnet_summary::parse),
            },
        ],
        simulate: |m| {
            m.with_tool(crate::ib::sim::IbSim)
                .with_tool(crate::ib::ibdiagnet::sim::IbdiagnetSim)
        },
    },
    Tool {
        namespace: "perftest",
        about: "RDMA bandwidth and latency between two hosts.",
        host: Host::Guest,
        builtins: Some(|| rhai::exported_module!(crate::perftest::builtins::perftest_builtins)),
        options: &[
            crate::perftest::command::PAIR_OPTIONS,
            &[crate::perftest::command::MATRIX_OPTIONS],
        ],
        parsers: &[ToolParser {
            name: "perftest",
            command: "ib_{send,write,read}_{bw,lat} ...",
            parse: |t| json(t, crate::perftest::parse),
        }],
        simulate: |m| m.with_tool(crate::perftest::sim::PerftestSim),
    },
    Tool {
        namespace: "fabric",
        about: "Fabric acceptance from the controller: every pair of hosts measured in rounds, flagged against the best pair, suspects named; a GPU cluster's NCCL all-reduce across its nodes, judged by what its NICs should carry.",
        host: Host::Guest,
        builtins: Some(|| rhai::exported_module!(crate::fabric::builtins::fabric_builtins)),
        options: &[&[
            crate::fabric::options::ALL_PAIRS_OPTIONS,
            crate::fabric::nccl::NCCL_OPTIONS,
        ]],
        parsers: &[],
        // It drives perftest on the guests; nothing of its own to simulate.
        simulate: |m| m,
    },
    Tool {
        namespace: "report",
        about: "What a runbook publishes to `cairn report`: result tables and verdict lines, journaled.",
        host: Host::Guest,
        builtins: Some(|| rhai::exported_module!(crate::report::builtins::report_builtins)),
        options: &[],
        parsers: &[],
        // It runs no program; nothing to simulate.
        simulate: |m| m,
    },
    Tool {
        namespace: "sockperf",
        about: "Socket latency between two hosts, with or without VMA.",
        host: Host::Guest,
        builtins: Some(|| rhai::exported_module!(crate::sockperf::builtins::sockperf_builtins)),
        options: &[&[crate::sockperf::builtins::PING_PONG_OPTIONS]],
        parsers: &[ToolParser {
            name: "sockperf",
            command: "sockperf server|ping-pong ...",
            parse: |t| json(t, crate::sockperf::parse),
        }],
        simulate: |m| m.with_tool(crate::sockperf::sim::SockperfSim),
    },
    Tool {
        namespace: "lspci",
        about: "PCI devices (a parser only; the guest model prints `lspci`).",
        host: Host::Guest,
        builtins: None,
        options: &[],
        parsers: &[
            ToolParser {
                name: "lspci",
                command: "lspci [-D] | grep Mellanox",
                parse: |t| json(t, crate::lspci::parse),
            },
            ToolParser {
                name: "lspci-vv",
                command: "lspci -vv|-vvv [-s ADDR]",
                parse: |t| json(t, crate::lspci::parse_verbose),
            },
        ],
        simulate: |m| m,
    },
    Tool {
        namespace: "qos",
        about: "RoCE lossless on a host: trust state, PFC, traffic classes, DSCP map, ECN, RDMA-CM's ToS.",
        host: Host::Guest,
        builtins: Some(|| rhai::exported_module!(crate::qos::builtins::qos_builtins)),
        options: &[&[
            crate::qos::wanted::SET_OPTIONS,
            crate::qos::wanted::ECN_OPTIONS,
            crate::qos::wanted::TOS_OPTIONS,
        ]],
        parsers: &[ToolParser {
            name: "mlnx-qos",
            command: "mlnx_qos -i IFACE",
            parse: |t| json(t, crate::qos::parse),
        }],
        simulate: |m| m.with_tool(crate::qos::sim::QosSim),
    },
    Tool {
        namespace: "gpu",
        about: "A GPU server's GPUDirect RDMA readiness: each GPU's nearest NIC, the peer-memory module, ACS on the PCIe switches.",
        host: Host::GpuServer,
        builtins: Some(|| rhai::exported_module!(crate::gpu::builtins::gpu_builtins)),
        options: &[],
        parsers: &[ToolParser {
            name: "nvidia-smi-topo",
            command: "nvidia-smi topo -m",
            parse: |t| json(t, crate::gpu::parse_topo),
        }],
        simulate: |m| m.with_tool(crate::gpu::sim::GpuSim),
    },
    Tool {
        namespace: "nccl",
        about: "The NCCL performance tests' bus bandwidth between a cluster's GPUs: the parser, and the launch and verdict `fabric::nccl_all_reduce` runs.",
        host: Host::Guest,
        builtins: None,
        options: &[],
        parsers: &[ToolParser {
            name: "nccl-tests",
            command: "all_reduce_perf|all_gather_perf|... -b MIN -e MAX [-f 2] [-g N]",
            parse: |t| json(t, crate::nccl::parse),
        }],
        simulate: |m| m.with_tool(crate::nccl::sim::MpirunSim),
    },
];
