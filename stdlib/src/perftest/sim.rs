//! Simulated perftest (`ib_send_bw`, `ib_write_bw`, `ib_read_bw` and the `_lat` tools): results
//! computed from both ends' configuration, printed in perftest's format.
//!
//! The client reads its peer's state (read-only): the server must be listening (started in the
//! background, see `machine::processes`), both ports must be up, of the same link layer, on
//! the same switch, and RoCE ports need an IPv4 address. Bandwidth follows the line rate
//! (about 96 of 100 Gb/s EDR, 196 of 200 Gb/s NDR200), is lower when the RoCE MTU gives an
//! active MTU under 4096 (MTU 1500 → 1024), and latency starts near 1.1 us on InfiniBand and
//! 2 us on RoCE (VMware's guide, figures 17 to 20). The noise is deterministic given the
//! guests' `seed`. Across oversubscribed leaves, concurrent flows share the uplinks
//! (`oversubscription.rs`).

use std::collections::BTreeMap;

use cairn_runtime::ExecOutput;
use cairn_runtime::sim::{SimContext, SimTool};
use serde_json::Value;

use super::programs::PROGRAMS;
use super::sim_figures::{bandwidth_table, latency_table, run_time};
use super::sim_served::{note_served, served_note};
use crate::machine::guest::{
    GuestHw, LinkLayer, hash, not_found, out, peer_tools, sibling_hosts, unit,
};
use crate::machine::ports::{PortView, own_ports, peer_ports};
use crate::machine::processes::Process;

const DASHES: &str =
    "---------------------------------------------------------------------------------------";

/// The client's state (slot `ib_send_bw`): runs so far, and the output each server it talked
/// to prints, by `server:pid`, for that server's collection.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct PerftestState {
    pub(crate) runs: u64,
    pub(crate) served: BTreeMap<String, String>,
}

/// A parsed perftest command line.
#[derive(Debug, Clone, Default)]
struct Args {
    program: String,
    all: bool,
    size: Option<u64>,
    iterations: Option<u64>,
    gid_index: Option<u32>,
    qps: Option<u32>,
    port: u16,
    device: Option<String>,
    server: Option<String>,
    /// `--use_cuda=N`: the GPU whose memory it registers.
    use_cuda: Option<u32>,
    /// `--use_cuda_dmabuf`: registered through DMA-BUF, not the peer-memory module.
    use_cuda_dmabuf: bool,
}

fn parse_args(argv: &[String]) -> Args {
    let mut args = Args {
        program: argv
            .first()
            .map(|p| p.rsplit('/').next().unwrap_or(p).to_owned())
            .unwrap_or_default(),
        port: 18515,
        ..Args::default()
    };
    let mut i = 1;
    while let Some(arg) = argv.get(i) {
        let value = argv.get(i + 1);
        let mut takes = true;
        match arg.as_str() {
            "-d" | "--ib-dev" => args.device = value.cloned(),
            "-s" | "--size" => args.size = value.and_then(|v| v.parse().ok()),
            "-n" | "--iters" => args.iterations = value.and_then(|v| v.parse().ok()),
            "-x" | "--gid-index" => args.gid_index = value.and_then(|v| v.parse().ok()),
            "-q" | "--qp" => args.qps = value.and_then(|v| v.parse().ok()),
            "-p" | "--port" => args.port = value.and_then(|v| v.parse().ok()).unwrap_or(18515),
            "-a" | "--all" => {
                args.all = true;
                takes = false;
            }
            "--use_cuda_dmabuf" => {
                args.use_cuda_dmabuf = true;
                takes = false;
            }
            cuda if cuda.starts_with("--use_cuda=") => {
                args.use_cuda = cuda.trim_start_matches("--use_cuda=").parse().ok();
                takes = false;
            }
            other => {
                takes = false;
                if !other.starts_with('-') {
                    args.server = Some(other.to_owned());
                }
            }
        }
        i += if takes { 2 } else { 1 };
    }
    args
}

/// `ib_*` tools.
pub(crate) struct PerftestSim;

impl SimTool for PerftestSim {
    fn commands(&self) -> &[&'static str] {
        PROGRAMS
    }

    fn options(&self) -> &[&'static str] {
        &[CUDA_FAIL]
    }

    fn check_option(&self, _key: &str, value: &str) -> Result<(), String> {
        crate::machine::staged_faults::check_flag(value)
    }

    fn run(&self, host: &mut SimContext<'_>, argv: &[String]) -> ExecOutput {
        let program = argv.first().map_or("", String::as_str);
        if !host.tool_state("ofed").is_some_and(|o| o["loaded"] == true) {
            return not_found(program);
        }
        let args = parse_args(argv);
        let Some(server) = args.server.clone() else {
            // A server in the foreground would wait for a client forever.
            return out(1, waiting_box(), "");
        };
        client(host, &args, &server)
    }
}

/// The option: a server started here runs with `--use_cuda` and cannot register its GPU
/// buffer, as when GPUDirect RDMA is not available (perftest's README: "If GPUDirect is not
/// working, (e.g. you see "Couldn't allocate MR" error message) ...").
const CUDA_FAIL: &str = "perftest_cuda_fail";

/// What such a server prints: the waiting box, `src/cuda_memory.c`'s initialisation lines (as a
/// published `--use_cuda` server transcript shows them, `../shared/fixtures/perftest/
/// ib_write_bw-server-cuda-16qp-rdmacm-roce.txt`), then the registration failure of
/// `src/perftest_resources.c`.
fn cuda_failure() -> String {
    waiting_box()
        + "initializing CUDA\nListing all CUDA devices in system:\nCUDA device 0: PCIe address is 61:00\n\nPicking device No. 0\n[pid = 4109, dev = 0] device name = [NVIDIA A40]\ncreating CUDA Ctx\nmaking it the current CUDA Ctx\nCUDA device integrated: 0\ncuMemAlloc() of a 2097152 bytes GPU buffer\nallocated GPU buffer address at 00007f8bca600000 pointer=0x7f8bca600000\nCouldn't allocate MR\nFailed to create MR\n Couldn't create IB resources\n"
}

fn waiting_box() -> String {
    "\n************************************\n* Waiting for client to connect... *\n************************************\n".to_owned()
}

fn title(program: &str) -> &'static str {
    match program {
        "ib_write_bw" => "RDMA_Write BW Test",
        "ib_read_bw" => "RDMA_Read BW Test",
        "ib_send_lat" => "Send Latency Test",
        "ib_write_lat" => "RDMA_Write Latency Test",
        "ib_read_lat" => "RDMA_Read Latency Test",
        _ => "Send BW Test",
    }
}

fn connect_error(server: &str, port: u16) -> ExecOutput {
    out(
        1,
        "",
        format!(
            "Couldn't connect to {server}:{port}\nUnable to open file descriptor for socket connection Unable to init the socket connection\n"
        ),
    )
}

/// The peer guest that answers to `name`: its host name, or one of its addresses.
fn resolve(host: &SimContext<'_>, name: &str) -> Option<String> {
    if peer_tools(host, name).is_some() {
        return Some(name.to_owned());
    }
    sibling_hosts(host).into_iter().find(|peer| {
        peer_ports(host, peer).is_some_and(|(hw, ports, _)| {
            hw.mgmt_ip == name || ports.iter().any(|p| p.ipv4.as_deref() == Some(name))
        })
    })
}

/// The server a client reaches: the peer guest (its hardware and ports) and the perftest
/// listening there (its pid and command line).
struct Server {
    peer: String,
    hw: GuestHw,
    ports: Vec<PortView>,
    pid: String,
    args: Args,
}

fn client(host: &mut SimContext<'_>, args: &Args, server_name: &str) -> ExecOutput {
    let hw = GuestHw::of(host);
    let device = args.device.clone().unwrap_or_else(|| "mlx5_0".into());
    let local = match local_port(host, &device) {
        Ok(local) => local,
        Err(refusal) => return refusal,
    };
    let Some(server) = listening_server(host, args, server_name) else {
        return connect_error(server_name, args.port);
    };
    let mut state: PerftestState = host.load_state().unwrap_or_default();
    state.runs += 1;
    let test = Test::new(args, hw, device, local, server, state.runs);
    if let Some(error) = test.link_failure() {
        let server_text = format!(
            "{}{DASHES}\n{}{DASHES}\n{error}",
            waiting_box(),
            test.banner
        );
        note_served(host, &test.key);
        state.served.insert(test.key.clone(), server_text);
        let _ = host.save_state(&state);
        return out(1, format!("{DASHES}\n{}{DASHES}\n", test.banner), error);
    }
    let Some(remote) = test.remote.clone() else {
        return connect_error(server_name, args.port);
    };
    // A server whose port is not active refused it at start and exited: nobody listens.
    if !remote.active {
        return connect_error(server_name, args.port);
    }
    let table = test.measure(host, &remote);
    let client_text = format!(
        "{DASHES}\n{}{DASHES}\n{}{}{DASHES}\n{table}{DASHES}\n",
        test.banner,
        test.address(&test.local, "local"),
        test.address(&remote, "remote")
    );
    let server_table = if args.program.starts_with("ib_send") {
        format!("{table}{DASHES}\n")
    } else {
        String::new()
    };
    let server_text = format!(
        "{}{DASHES}\n{}{DASHES}\n{}{}{DASHES}\n{server_table}",
        waiting_box(),
        test.banner,
        test.address(&remote, "local"),
        test.address(&test.local, "remote")
    );
    note_served(host, &test.key);
    keep_recent(&mut state, &test.key);
    state.served.insert(test.key, server_text);
    let _ = host.save_state(&state);
    out(0, client_text, "")
}

/// The client's own port on `device`, or what perftest prints when it has none or the port is
/// not active: perftest checks its own port before it connects (see `port_state`); each
/// simulated device has one port, 1.
fn local_port(host: &SimContext<'_>, device: &str) -> Result<PortView, ExecOutput> {
    let Some(local) = own_ports(host).into_iter().find(|p| p.hw.device == device) else {
        return Err(out(
            1,
            "",
            format!(" IB device {device} not found\n Unable to find the Infiniband/RoCE device\n"),
        ));
    };
    if !local.active {
        let infiniband = local.hw.link_layer == LinkLayer::InfiniBand;
        return Err(super::port_state::refusal(
            1,
            super::port_state::state_name(false, infiniband),
        ));
    }
    Ok(local)
}

/// The peer `server_name` names and the server listening there: a perftest of the same
/// program on the port, started without a server name of its own.
fn listening_server(host: &SimContext<'_>, args: &Args, server_name: &str) -> Option<Server> {
    let peer = resolve(host, server_name)?;
    let (hw, ports, state) = peer_ports(host, &peer)?;
    let (pid, server_args) = state
        .get("processes")
        .and_then(|p| p.get("running"))
        .and_then(Value::as_object)
        .and_then(|running| {
            running.iter().find_map(|(pid, process)| {
                let process: Process = serde_json::from_value(process.clone()).ok()?;
                let server = parse_args(&process.argv);
                (server.program == args.program
                    && server.port == args.port
                    && server.server.is_none())
                .then(|| (pid.clone(), server))
            })
        })?;
    Some(Server {
        peer,
        hw,
        ports,
        pid,
        args: server_args,
    })
}

/// Only the last 16 servers' texts are kept; never the one just served, which its server
/// collects next (the smallest key first would drop `node001:…` at once).
fn keep_recent(state: &mut PerftestState, key: &str) {
    while state.served.len() >= 16 {
        let Some(first) = state.served.keys().find(|k| *k != key).cloned() else {
            break;
        };
        state.served.remove(&first);
    }
}

/// One client run against a listening server: both ends' ports, what the run's noise is drawn
/// from, and the banner both ends print.
struct Test<'a> {
    args: &'a Args,
    hw: GuestHw,
    peer: String,
    peer_hw: GuestHw,
    local: PortView,
    /// The server's port on its device, if it has that device.
    remote: Option<PortView>,
    server_device: String,
    seed: String,
    run: String,
    roce: bool,
    lat: bool,
    active_mtu: u32,
    banner: String,
    /// The server as `server:pid`, the key its text is kept under.
    key: String,
}

impl<'a> Test<'a> {
    fn new(
        args: &'a Args,
        hw: GuestHw,
        device: String,
        local: PortView,
        server: Server,
        runs: u64,
    ) -> Self {
        let server_device = server
            .args
            .device
            .clone()
            .unwrap_or_else(|| "mlx5_0".into());
        let remote = server
            .ports
            .iter()
            .find(|p| p.hw.device == server_device)
            .cloned();
        let roce = local.hw.link_layer == LinkLayer::Ethernet;
        let gid_index = args
            .gid_index
            .unwrap_or(if roce && local.ipv4.is_some() { 3 } else { 0 });
        let lat = args.program.ends_with("_lat");
        let active_mtu = remote
            .as_ref()
            .map_or(local.active_mtu, |r| r.active_mtu.min(local.active_mtu));
        let banner = banner(args, &device, roce, gid_index, active_mtu, lat);
        Test {
            args,
            seed: hw.seed.to_string(),
            hw,
            key: format!("{}:{}", server.peer, server.pid),
            peer: server.peer,
            peer_hw: server.hw,
            local,
            remote,
            server_device,
            run: runs.to_string(),
            roce,
            lat,
            active_mtu,
            banner,
        }
    }

    /// The run's hash on `what`: the same for the same host, peer and run.
    fn n(&self, what: &str) -> u64 {
        hash(&[
            &self.seed,
            &self.hw.host,
            &self.peer,
            &self.args.program,
            &self.run,
            what,
        ])
    }

    /// The run's noise at a size and on a figure: the same for the same host, peer and run.
    fn noise(&self, size: u64, what: &str) -> f64 {
        unit(&[
            &self.seed,
            &self.hw.host,
            &self.peer,
            &self.args.program,
            &self.run,
            &size.to_string(),
            what,
        ])
    }

    /// The address line `who` (`local` or `remote`) prints for port `p`, with its GID on RoCE.
    fn address(&self, p: &PortView, who: &str) -> String {
        let qpn = format!("0x{:04x}", 0x40 + self.n(who) % 0x200);
        let psn = format!("0x{:x}", self.n(&format!("{who}psn")) % 0x100_0000);
        let mut line = if self.roce {
            format!(" {who} address: LID 0000 QPN {qpn} PSN {psn}\n")
        } else {
            format!(" {who} address: LID {:#04x} QPN {qpn} PSN {psn}\n", p.lid)
        };
        if self.roce {
            let ip = p.ipv4.clone().unwrap_or_default();
            let octets: Vec<String> = ip
                .split('.')
                .map(|o| format!("{:02}", o.parse::<u8>().unwrap_or(0)))
                .collect();
            line.push_str(&format!(
                " GID: 00:00:00:00:00:00:00:00:00:00:255:255:{}\n",
                octets.join(":")
            ));
        }
        line
    }

    /// What both ends print when the two ports cannot talk: the server has no such device,
    /// or the ports differ in link layer, are on different switches, lack an address on
    /// RoCE, or are not both active.
    fn link_failure(&self) -> Option<String> {
        let local = &self.local;
        let Some(r) = &self.remote else {
            return Some(format!(
                " IB device {} not found\n Unable to find the Infiniband/RoCE device\n",
                self.server_device
            ));
        };
        let same_layer = r.hw.link_layer == local.hw.link_layer;
        let same_switch = match local.hw.link_layer {
            LinkLayer::InfiniBand => crate::machine::guest::ib_reachable(&self.hw, &self.peer_hw),
            LinkLayer::Ethernet => self.peer_hw.eth_switch == self.hw.eth_switch,
        };
        let addressed = !self.roce || (local.ipv4.is_some() && r.ipv4.is_some());
        (!(same_layer && same_switch && addressed && r.active && local.active)).then(|| {
            format!(
                "Failed to modify QP {} to RTR\n Unable to Connect the HCA's through the link\n",
                self.n("qp") % 2000 + 100
            )
        })
    }

    /// Runs the test against `remote`: its table, and the time it takes on the client's clock
    /// (`-n` iterations of each size).
    fn measure(&self, host: &mut SimContext<'_>, remote: &PortView) -> String {
        let args = self.args;
        let sizes: Vec<u64> = if args.all {
            (1..=23).map(|p| 1u64 << p).collect()
        } else {
            vec![args.size.unwrap_or(if self.lat { 2 } else { 65536 })]
        };
        let iterations = args.iterations.unwrap_or(1000);
        // The slower of the two ports' active rates: a port trained at 1X carries a quarter.
        let rate = f64::from(self.local.rate_gbps.min(remote.rate_gbps));
        // Across leaves, the share of the uplinks the round's concurrent flows leave this one.
        let rate = if self.lat || self.roce {
            rate
        } else {
            rate * super::oversubscription::share(host, &self.hw, &self.peer_hw)
        };
        let eth_penalty = if self.roce && !(self.hw.pfc && self.peer_hw.pfc) {
            0.8
        } else {
            1.0
        };
        let noise = |size: u64, what: &str| self.noise(size, what);
        let table = if self.lat {
            latency_table(&sizes, iterations, rate, self.roce, self.active_mtu, &noise)
        } else {
            bandwidth_table(
                &sizes,
                iterations,
                rate * eth_penalty,
                self.active_mtu,
                &noise,
            )
        };
        host.sleep(run_time(
            &sizes,
            iterations,
            rate * eth_penalty,
            self.active_mtu,
            self.lat,
            self.roce,
        ));
        table
    }
}

fn banner(args: &Args, device: &str, roce: bool, gid_index: u32, mtu: u32, lat: bool) -> String {
    let mut text = format!(
        "                    {} \n Dual-port       : OFF      Device         : {device} \n Number of qps   : {}        Transport type : IB \n Connection type : RC       Using SRQ      : OFF \n PCIe relax order: ON \n ibv_wr* API     : ON \n",
        title(&args.program),
        args.qps.unwrap_or(1)
    );
    if lat {
        text.push_str(" TX depth        : 1 \n");
    } else {
        text.push_str(" TX depth        : 128 \n CQ Moderation   : 100 \n");
    }
    if args.program.starts_with("ib_read") {
        text.push_str(" Outstand reads  : 16 \n");
    }
    text.push_str(&format!(
        " Mtu             : {mtu}[B] \n Link type       : {} \n",
        if roce { "Ethernet" } else { "IB" }
    ));
    if roce {
        text.push_str(&format!(" GID index       : {gid_index} \n"));
    }
    let inline = if lat && args.program == "ib_send_lat" || args.program == "ib_write_lat" {
        236
    } else {
        0
    };
    text.push_str(&format!(
        " Max inline data : {inline}[B] \n rdma_cm QPs     : OFF \n Data ex. method : Ethernet \n"
    ));
    text
}

/// What a perftest server that `collect` stopped had printed: the waiting box, and once a
/// client ran against it, the banner, both addresses and (send tests) the table.
pub(crate) fn server_output(host: &mut SimContext<'_>, pid: &str, process: &Process) -> String {
    let args = parse_args(&process.argv);
    // Without DMA-BUF, a GPU buffer registers through the peer-memory module: on a GPU server
    // without nvidia-peermem the registration fails.
    let no_gdr = args.use_cuda.is_some()
        && !args.use_cuda_dmabuf
        && crate::machine::gpu_server::gdr_available(host) == Some(false);
    if no_gdr || crate::machine::staged_faults::flag(host, CUDA_FAIL) {
        return cuda_failure();
    }
    // A server checks its port at start, as the client does, and exits when it is not active.
    let device = args.device.unwrap_or_else(|| "mlx5_0".into());
    if let Some(port) = own_ports(host)
        .into_iter()
        .find(|p| p.hw.device == device && !p.active)
    {
        let infiniband = port.hw.link_layer == LinkLayer::InfiniBand;
        return super::port_state::refusal(1, super::port_state::state_name(false, infiniband))
            .stderr;
    }
    let key = format!("{}:{pid}", host.host_name());
    let served = |peer: &str| {
        peer_tools(host, peer)
            .and_then(|tools| tools.get("ib_send_bw").cloned())
            .and_then(|state| serde_json::from_value::<PerftestState>(state).ok())
            .and_then(|state| state.served.get(&key).cloned())
    };
    // The client the note names first; every peer when there is no note or it is stale.
    let noted = served_note(host, &key)
        .and_then(|path| std::fs::read_to_string(path).ok())
        .and_then(|note| {
            let (for_key, client) = note.trim().split_once(' ')?;
            (for_key == key).then(|| client.to_owned())
        });
    let text = noted.and_then(|client| served(&client)).or_else(|| {
        sibling_hosts(host)
            .iter()
            .filter(|peer| *peer != host.host_name())
            .find_map(|peer| served(peer))
    });
    text.unwrap_or_else(waiting_box)
}
