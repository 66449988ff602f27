//! Simulated perftest (`ib_send_bw`, `ib_write_bw`, `ib_read_bw` and the `_lat` tools): results
//! computed from both ends' configuration, printed in perftest's format.
//!
//! The client reads its peer's state (read-only): the server must be listening (started in the
//! background, see `machine::processes`), both ports must be up, of the same link layer, on
//! the same switch, and RoCE ports need an IPv4 address. Bandwidth follows the line rate
//! (about 96 of 100 Gb/s EDR, 196 of 200 Gb/s NDR200), is lower when the RoCE MTU gives an
//! active MTU under 4096 (MTU 1500 → 1024), and latency starts near 1.1 us on InfiniBand and
//! 2 us on RoCE (reference 000, figures 17 to 20). The noise is deterministic given the
//! guests' `seed`. Across oversubscribed leaves, concurrent flows share the uplinks
//! (`oversubscription.rs`).

use std::collections::BTreeMap;

use cairn_runtime::ExecOutput;
use cairn_runtime::sim::{SimContext, SimTool};
use serde_json::Value;

use super::programs::PROGRAMS;
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

fn client(host: &mut SimContext<'_>, args: &Args, server_name: &str) -> ExecOutput {
    let hw = GuestHw::of(host);
    let device = args.device.clone().unwrap_or_else(|| "mlx5_0".into());
    let mine = own_ports(host);
    let Some(local) = mine.iter().find(|p| p.hw.device == device).cloned() else {
        return out(
            1,
            "",
            format!(" IB device {device} not found\n Unable to find the Infiniband/RoCE device\n"),
        );
    };
    // perftest checks its own port before it connects (see `port_state`); each simulated
    // device has one port, 1.
    if !local.active {
        let infiniband = local.hw.link_layer == LinkLayer::InfiniBand;
        return super::port_state::refusal(1, super::port_state::state_name(false, infiniband));
    }
    let Some(peer) = resolve(host, server_name) else {
        return connect_error(server_name, args.port);
    };
    let Some((peer_hw, peer_ports_list, peer_state)) = peer_ports(host, &peer) else {
        return connect_error(server_name, args.port);
    };
    // The server: a perftest of the same program listening on the port.
    let listening = peer_state
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
        });
    let Some((pid, server_args)) = listening else {
        return connect_error(server_name, args.port);
    };
    let mut state: PerftestState = host.load_state().unwrap_or_default();
    state.runs += 1;
    let run = state.runs.to_string();
    let seed = hw.seed.to_string();
    let n = |what: &str| hash(&[&seed, &hw.host, &peer, &args.program, &run, what]);
    let server_device = server_args
        .device
        .clone()
        .unwrap_or_else(|| "mlx5_0".into());
    let remote = peer_ports_list
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
    let qpn = |who: &str| format!("0x{:04x}", 0x40 + n(who) % 0x200);
    let psn = |who: &str| format!("0x{:x}", n(&format!("{who}psn")) % 0x100_0000);
    let address = |p: &PortView, who: &str| {
        let mut line = if roce {
            format!(
                " {who} address: LID 0000 QPN {} PSN {}\n",
                qpn(who),
                psn(who)
            )
        } else {
            format!(
                " {who} address: LID {:#04x} QPN {} PSN {}\n",
                p.lid,
                qpn(who),
                psn(who)
            )
        };
        if roce {
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
    };
    let key = format!("{peer}:{pid}");
    // Can the two ports talk?
    let broken = match &remote {
        None => Some(format!(
            " IB device {server_device} not found\n Unable to find the Infiniband/RoCE device\n"
        )),
        Some(r) => {
            let same_layer = r.hw.link_layer == local.hw.link_layer;
            let same_switch = match local.hw.link_layer {
                LinkLayer::InfiniBand => crate::machine::guest::ib_reachable(&hw, &peer_hw),
                LinkLayer::Ethernet => peer_hw.eth_switch == hw.eth_switch,
            };
            let addressed = !roce || (local.ipv4.is_some() && r.ipv4.is_some());
            (!(same_layer && same_switch && addressed && r.active && local.active)).then(|| {
                format!("Failed to modify QP {} to RTR\n Unable to Connect the HCA's through the link\n", n("qp") % 2000 + 100)
            })
        }
    };
    if let Some(error) = broken {
        let server_text = format!("{}{DASHES}\n{banner}{DASHES}\n{error}", waiting_box());
        note_served(host, &key);
        state.served.insert(key, server_text);
        let _ = host.save_state(&state);
        return out(1, format!("{DASHES}\n{banner}{DASHES}\n"), error);
    }
    let Some(remote) = remote else {
        return connect_error(server_name, args.port);
    };
    // A server whose port is not active refused it at start and exited: nobody listens.
    if !remote.active {
        return connect_error(server_name, args.port);
    }
    let sizes: Vec<u64> = if args.all {
        (1..=23).map(|p| 1u64 << p).collect()
    } else {
        vec![args.size.unwrap_or(if lat { 2 } else { 65536 })]
    };
    let iterations = args.iterations.unwrap_or(1000);
    // The slower of the two ports' active rates: a port trained at 1X carries a quarter.
    let rate = f64::from(local.rate_gbps.min(remote.rate_gbps));
    // Across leaves, the share of the uplinks the round's concurrent flows leave this one.
    let rate = if lat || roce {
        rate
    } else {
        rate * super::oversubscription::share(host, &hw, &peer_hw)
    };
    let eth_penalty = if roce && !(hw.pfc && peer_hw.pfc) {
        0.8
    } else {
        1.0
    };
    // The run's noise at a size and on a figure: the same for the same host, peer and run.
    let noise = |s: u64, w: &str| {
        unit(&[
            &seed,
            &hw.host,
            &peer,
            &args.program,
            &run,
            &s.to_string(),
            w,
        ])
    };
    let table = if lat {
        latency_table(&sizes, iterations, rate, roce, active_mtu, &noise)
    } else {
        bandwidth_table(&sizes, iterations, rate * eth_penalty, active_mtu, &noise)
    };
    // The test takes its time on the client's clock: `-n` iterations of each size.
    host.sleep(run_time(
        &sizes,
        iterations,
        rate * eth_penalty,
        active_mtu,
        lat,
        roce,
    ));
    let client_text = format!(
        "{DASHES}\n{banner}{DASHES}\n{}{}{DASHES}\n{table}{DASHES}\n",
        address(&local, "local"),
        address(&remote, "remote")
    );
    let server_table = if args.program.starts_with("ib_send") {
        format!("{table}{DASHES}\n")
    } else {
        String::new()
    };
    let server_text = format!(
        "{}{DASHES}\n{banner}{DASHES}\n{}{}{DASHES}\n{server_table}",
        waiting_box(),
        address(&remote, "local"),
        address(&local, "remote")
    );
    note_served(host, &key);
    // Only the last 16 servers' texts are kept; never the one just served, which its server
    // collects next (the smallest key first would drop `node001:…` at once).
    while state.served.len() >= 16 {
        let Some(first) = state.served.keys().find(|k| **k != key).cloned() else {
            break;
        };
        state.served.remove(&first);
    }
    state.served.insert(key, server_text);
    let _ = host.save_state(&state);
    out(0, client_text, "")
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

/// Bandwidth in Gb/s at a message size: the smaller of the line's payload rate and the message
/// rate's, blended (a p-norm), as measured rows show.
fn bandwidth_at(size: u64, rate: f64, active_mtu: u32) -> f64 {
    // Payload efficiency of the link at 4096-byte packets: 96.2% of EDR, 98.3% of NDR200.
    let efficiency = if rate >= 200.0 { 0.983 } else { 0.962 };
    // Smaller packets cost headers and a packet-rate limit of about 10 Mpps per QP.
    let mtu = f64::from(active_mtu.max(256));
    let packet_cap = 10.0e6 * mtu * 8.0 / 1e9 * (mtu / (mtu + 82.0));
    let line = (rate * efficiency).min(packet_cap);
    #[allow(clippy::cast_precision_loss)]
    let message_rate = size as f64 * 8.0 * 7.0e6 / 1e9;
    (line.powf(-3.0) + message_rate.powf(-3.0)).powf(-1.0 / 3.0)
}

/// How long a test moves data for: each size's iterations at its bandwidth, or for latency
/// tests a round trip per iteration.
fn run_time(
    sizes: &[u64],
    iterations: u64,
    rate: f64,
    mtu: u32,
    lat: bool,
    roce: bool,
) -> std::time::Duration {
    #[allow(clippy::cast_precision_loss)]
    let seconds: f64 = sizes
        .iter()
        .map(|&size| {
            let wire = size as f64 * 8.0
                / (bandwidth_at(size.max(if lat { 65536 } else { 1 }), rate, mtu).max(1.0) * 1e9);
            let one = if lat {
                2.0 * ((if roce { 1.93 } else { 1.06 }) * 1e-6 + wire)
            } else {
                wire
            };
            one * iterations as f64
        })
        .sum();
    std::time::Duration::from_secs_f64(seconds)
}

fn bandwidth_table(
    sizes: &[u64],
    iterations: u64,
    rate: f64,
    active_mtu: u32,
    noise: &dyn Fn(u64, &str) -> f64,
) -> String {
    let mut text =
        " #bytes   #iterations  BW peak[Gb/sec]  BW average[Gb/sec]  MsgRate[Mpps] \n".to_owned();
    for &size in sizes {
        let average = bandwidth_at(size, rate, active_mtu) * (1.0 - 0.004 * noise(size, "avg"));
        let peak = average * (1.0 + 0.002 * noise(size, "peak"));
        #[allow(clippy::cast_precision_loss)]
        let mpps = average * 1e9 / 8.0 / size as f64 / 1e6;
        text.push_str(&format!(
            " {size:<8} {iterations:<12} {peak:<16.2} {average:<19.2} {mpps:.6} \n"
        ));
    }
    text
}

fn latency_table(
    sizes: &[u64],
    iterations: u64,
    rate: f64,
    roce: bool,
    active_mtu: u32,
    noise: &dyn Fn(u64, &str) -> f64,
) -> String {
    let mut text = " #bytes   #iterations  t_min[usec]  t_max[usec]  t_typical[usec] t_avg[usec] t_stdev[usec] 99%[usec]  99.9%[usec] \n".to_owned();
    let base = if roce { 1.93 } else { 1.06 };
    for &size in sizes {
        let inline_penalty = if size > 236 {
            0.45
        } else if size >= 64 {
            0.13
        } else {
            0.0
        };
        let line = bandwidth_at(size.max(65536), rate, active_mtu).max(1.0);
        #[allow(clippy::cast_precision_loss)]
        let wire = size as f64 * 8.0 / (line * 1000.0);
        let typical = base + inline_penalty + wire + 0.02 * noise(size, "typ");
        let min = typical - 0.04 - 0.02 * noise(size, "min");
        let avg = typical + 0.01 + 0.02 * noise(size, "avg");
        let stdev = 0.08 + 0.06 * noise(size, "sd") + typical * 0.001;
        let p99 = typical + 0.14 + 0.2 * noise(size, "p99");
        let max = typical + 2.0 + 3.0 * noise(size, "max");
        text.push_str(&format!(
            " {size:<8} {iterations:<12} {min:<12.2} {max:<12.2} {typical:<15.2} {avg:<11.2} {stdev:<13.2} {p99:<10.2} {max:.2} \n"
        ));
    }
    text
}

/// What a perftest server that `collect` stopped had printed: the waiting box, and once a
/// client ran against it, the banner, both addresses and (send tests) the table.
pub(crate) fn server_output(host: &mut SimContext<'_>, pid: &str, process: &Process) -> String {
    if crate::machine::staged_faults::flag(host, CUDA_FAIL) {
        return cuda_failure();
    }
    // A server checks its port at start, as the client does, and exits when it is not active.
    let device = parse_args(&process.argv)
        .device
        .unwrap_or_else(|| "mlx5_0".into());
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

/// Where a client notes which host it is for the server `key` (`server:pid`) it talked to: a
/// file `<sim root>/.served/<server>` holding the key and the client's name, beside the hosts'
/// directories and in none of them (a client never writes its peer's state). One file a server
/// host, overwritten in place and never removed: a note created and deleted for each test made
/// the file system's inode allocation the cost of a fabric's matrix. Only a shortcut: the text
/// itself is in the client's state, and without the note (or with one for another server) the
/// server looks through every peer's, as many reads as there are hosts.
fn served_note(host: &SimContext<'_>, key: &str) -> Option<std::path::PathBuf> {
    let server = key.split_once(':').map_or(key, |(server, _)| server);
    crate::machine::guest::sim_root(host).map(|root| root.join(".served").join(server))
}

/// Notes that this host talked to the server `key` (see [`served_note`]).
fn note_served(host: &SimContext<'_>, key: &str) {
    use std::io::Write;
    use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
    let Some(path) = served_note(host, key) else {
        return;
    };
    // Private like the hosts' own folders and files.
    let written = path
        .parent()
        .map_or(Ok(()), |dir| {
            std::fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(dir)
        })
        .and_then(|()| {
            std::fs::OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(false)
                .mode(0o600)
                .open(&path)
        })
        .and_then(|mut file| {
            let note = format!("{key} {}\n", host.host_name());
            file.write_all(note.as_bytes())?;
            file.set_len(note.len() as u64)
        });
    // A note that cannot be written costs the server a longer search, nothing else.
    let _ = written;
}
