//! Simulated sockperf, with and without libvma (NVIDIA's "Running VMA"): the server's start-up
//! lines, and a ping-pong client whose latency follows the path: about 6.5 us through the
//! kernel on a ConnectX port, about 1.06 us with `LD_PRELOAD=libvma.so VMA_SPEC=latency`, about
//! 25 us on the virtual management NIC (which VMA cannot offload); TCP costs more. The client
//! reads the server's guest state read-only: a server must listen on the address and port.

use cairn_runtime::ExecOutput;
use cairn_runtime::sim::{SimContext, SimTool};
use serde_json::Value;

use crate::machine::guest::{GuestHw, hash, not_found, out, sibling_hosts, unit};
use crate::machine::interfaces::{Iface, interfaces, own_interfaces};
use crate::machine::ports::peer_ports;
use crate::machine::processes::{Process, program_of};

const VERSION: &str = "3.7-no.git";

/// `sockperf`.
pub(crate) struct SockperfSim;

impl SimTool for SockperfSim {
    fn commands(&self) -> &[&'static str] {
        &["sockperf"]
    }

    fn run(&self, host: &mut SimContext<'_>, argv: &[String]) -> ExecOutput {
        run(host, &[], argv)
    }
}

#[derive(Debug, Default)]
struct Args {
    mode: String,
    ip: Option<String>,
    port: u16,
    tcp: bool,
    duration: f64,
}

fn parse_args(argv: &[String]) -> Args {
    let skip = argv
        .iter()
        .position(|a| program_of(std::slice::from_ref(a)) == "sockperf")
        .unwrap_or(0);
    let mut args = Args {
        port: 11111,
        duration: 1.0,
        ..Args::default()
    };
    let mut rest = argv.iter().skip(skip + 1);
    args.mode = rest.next().cloned().unwrap_or_default();
    while let Some(a) = rest.next() {
        match a.as_str() {
            "-i" | "--ip" => args.ip = rest.next().cloned(),
            "-p" | "--port" => {
                args.port = rest.next().and_then(|p| p.parse().ok()).unwrap_or(11111)
            }
            "-t" | "--time" => {
                args.duration = rest.next().and_then(|t| t.parse().ok()).unwrap_or(1.0)
            }
            "-m" | "--msg-size" => {
                rest.next();
            }
            "--tcp" => args.tcp = true,
            _ => {}
        }
    }
    args
}

fn vma_banner(host: &SimContext<'_>, vars: &[(String, String)], argv: &[String]) -> String {
    let preload = vars
        .iter()
        .any(|(k, v)| k == "LD_PRELOAD" && v.contains("libvma"));
    if !preload {
        return String::new();
    }
    let ofed = host
        .tool_state("ofed")
        .and_then(|o| o.get("installed"))
        .and_then(Value::as_str)
        .unwrap_or("5.4-3.0.3.0")
        .to_owned();
    let cmd = argv
        .iter()
        .skip_while(|a| program_of(std::slice::from_ref(a)) != "sockperf")
        .cloned()
        .collect::<Vec<_>>()
        .join(" ");
    let rule =
        " VMA INFO: ---------------------------------------------------------------------------\n";
    let mut text = format!(
        "{rule} VMA INFO: VMA_VERSION: 9.5.2-1 Release built on Apr 11 2022 18:07:16\n VMA INFO: Cmd Line: {cmd}\n VMA INFO: OFED Version: MLNX_OFED_LINUX-{ofed}:\n VMA INFO: Architecture: x86_64\n VMA INFO: Node: {}\n{rule}",
        host.host_name()
    );
    if vars.iter().any(|(k, v)| k == "VMA_SPEC" && v == "latency") {
        for (name, value, env) in [
            ("VMA Spec", "Latency", "VMA_SPEC"),
            ("Log Level", "INFO", "VMA_TRACELEVEL"),
            ("Ring On Device Memory TX", "16384", "VMA_RING_DEV_MEM_TX"),
            ("Tx QP WRE", "256", "VMA_TX_WRE"),
            ("Tx QP WRE Batching", "4", "VMA_TX_WRE_BATCHING"),
            ("Rx QP WRE", "256", "VMA_RX_WRE"),
            ("Rx QP WRE Batching", "4", "VMA_RX_WRE_BATCHING"),
            ("Rx Poll Loops", "-1", "VMA_RX_POLL"),
            ("Select Poll (usec)", "-1", "VMA_SELECT_POLL"),
            (
                "CQ Interrupts Moderation",
                "Disabled",
                "VMA_CQ_MODERATION_ENABLE",
            ),
            ("TCP nodelay", "1", "VMA_TCP_NODELAY"),
            ("Thread mode", "Single", "VMA_THREAD_MODE"),
            ("Mem Allocate type", "2 (Huge Pages)", "VMA_MEM_ALLOC_TYPE"),
        ] {
            text.push_str(&format!(" VMA INFO: {name:<30} {value:<26} [{env}]\n"));
        }
        text.push_str(rule);
    }
    text
}

fn address_line(ip: &str, port: u16, tcp: bool) -> String {
    format!(
        "[ 0] IP = {ip:<15} PORT = {port:>5} # {}\n",
        if tcp { "TCP" } else { "UDP" }
    )
}

/// Runs `sockperf` with environment `vars` (from `env VAR=VALUE ... sockperf ...`).
pub(crate) fn run(
    host: &mut SimContext<'_>,
    vars: &[(String, String)],
    argv: &[String],
) -> ExecOutput {
    if !host.tool_state("ofed").is_some_and(|o| o["loaded"] == true) {
        return not_found("sockperf");
    }
    let args = parse_args(argv);
    let banner = vma_banner(host, vars, argv);
    match args.mode.as_str() {
        "server" | "sr" => out(0, server_lines(host, &banner, &args), ""),
        "ping-pong" | "pp" => ping_pong(host, &banner, &args),
        other => out(1, "", format!("sockperf: unknown command '{other}'\n")),
    }
}

fn server_lines(host: &SimContext<'_>, banner: &str, args: &Args) -> String {
    let tid = 120_000 + hash(&[host.host_name(), "tid"]) % 9000;
    format!(
        "{banner}sockperf: == version #{VERSION} ==\nsockperf: [SERVER] listen on:\n{}sockperf: Warmup stage (sending a few dummy messages)...\nsockperf: [tid {tid}] using recvfrom() to block on socket(s)\n",
        address_line(args.ip.as_deref().unwrap_or("0.0.0.0"), args.port, args.tcp)
    )
}

/// What a stopped sockperf server printed.
pub(crate) fn server_output(host: &mut SimContext<'_>, _pid: &str, process: &Process) -> String {
    let vars: Vec<(String, String)> = process
        .argv
        .iter()
        .skip(1)
        .take_while(|a| a.contains('='))
        .filter_map(|a| a.split_once('='))
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect();
    let banner = vma_banner(host, &vars, &process.argv);
    server_lines(host, &banner, &parse_args(&process.argv))
}

fn same_subnet(a: &str, b: &str) -> bool {
    let net = |ip: &str| ip.rsplit_once('.').map(|(n, _)| n.to_owned());
    net(a).is_some() && net(a) == net(b)
}

fn ping_pong(host: &mut SimContext<'_>, banner: &str, args: &Args) -> ExecOutput {
    let ip = args.ip.clone().unwrap_or_default();
    let head = format!(
        "{banner}sockperf: == version #{VERSION} ==\nsockperf[CLIENT] send on:sockperf: using recvfrom() to block on socket(s)\n\n{}",
        address_line(&ip, args.port, args.tcp)
    );
    let mine = own_interfaces(host);
    let Some(local) = mine
        .iter()
        .find(|i| i.addrs.iter().any(|(a, _)| same_subnet(a, &ip)))
    else {
        return out(
            1,
            head,
            "sockperf: ERROR: sendto() failed (errno=101 Network is unreachable)\n",
        );
    };
    let Some((server_hw, server_iface)) = listening_server(host, args, &ip) else {
        return out(
            1,
            format!("{head}sockperf: Warmup stage (sending a few dummy messages)...\n"),
            "sockperf: ERROR: No messages were received from the server. Is the server down?\n",
        );
    };
    let fast = local.rdma.is_some() && server_iface.rdma.is_some();
    let vma = !banner.is_empty() && fast;
    let hw = GuestHw::of(host);
    let seed = hw.seed.to_string();
    let me = host.host_name();
    let n = |what: &str| {
        unit(&[
            &seed,
            me,
            &server_hw.host,
            &ip,
            if vma { "vma" } else { "kernel" },
            what,
        ])
    };
    let avg = mean_latency(fast, vma, args.tcp) * (1.0 + 0.02 * (n("avg") - 0.5));
    let mut text = format!("{head}{}", statistics(avg, vma, args.duration));
    for (label, ratio) in percentile_ratios(vma) {
        let value = avg * ratio * (1.0 + 0.01 * (n(label) - 0.5));
        text.push_str(&format!("sockperf: ---> {label} = {value:>8.3}\n"));
    }
    out(0, text, "")
}

/// The guest other than this one that has the address `ip`, with a sockperf server listening
/// on it (the port and protocol of the client's): its hardware and the interface.
fn listening_server(host: &SimContext<'_>, args: &Args, ip: &str) -> Option<(GuestHw, Iface)> {
    let me = host.host_name();
    sibling_hosts(host)
        .into_iter()
        .filter(|p| p != me)
        .find_map(|peer| {
            let (hw, _, tools) = peer_ports(host, &peer)?;
            let ifaces = interfaces(&hw, tools.get("ofed"), tools.get("ip"));
            let iface = ifaces
                .into_iter()
                .find(|i| i.addrs.iter().any(|(a, _)| a == ip))?;
            let running = tools.get("processes")?.get("running")?.as_object()?;
            let listening = running.values().any(|p| {
                serde_json::from_value::<Process>(p.clone()).is_ok_and(|p| {
                    let s = parse_args(&p.argv);
                    program_of(&p.argv) == "sockperf"
                        && matches!(s.mode.as_str(), "server" | "sr")
                        && s.ip.as_deref() == Some(ip)
                        && s.port == args.port
                        && s.tcp == args.tcp
                })
            });
            listening.then_some((hw, iface))
        })
}

/// The path's mean latency in microseconds, before noise: through VMA when both ends'
/// ports are ConnectX (`fast`) and the client preloads it, else through the kernel, or the
/// virtual management NIC's; TCP costs more.
fn mean_latency(fast: bool, vma: bool, tcp: bool) -> f64 {
    let base = match (fast, vma) {
        (true, true) => 1.056,
        (true, false) => 6.488,
        _ => 25.3,
    };
    let tcp_extra = match (tcp, vma) {
        (true, true) => 0.35,
        (true, false) => 1.9,
        _ => 0.0,
    };
    base + tcp_extra
}

/// The run's lines from the warm-up to the percentiles' header: its message counts over
/// `duration` seconds (at least 1, the first 0.45 a warm-up) and the mean `avg`.
fn statistics(avg: f64, vma: bool, duration: f64) -> String {
    let std_dev = avg * if vma { 0.070 } else { 0.061 };
    let duration = duration.max(1.0);
    let valid = duration - 0.45;
    let rate = 1e6 / (2.0 * avg);
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let (sent, valid_sent) = ((duration * rate) as u64, (valid * rate) as u64);
    #[allow(clippy::cast_precision_loss)]
    let per = valid_sent as f64 / 100.0;
    format!(
        "sockperf: Warmup stage (sending a few dummy messages)...\nsockperf: Starting test...\nsockperf: Test end (interrupted by timer)\nsockperf: Test ended\nsockperf: [Total Run] RunTime={duration:.3} sec; Warm up time=400 msec; SentMessages={sent}; ReceivedMessages={}\nsockperf: ========= Printing statistics for Server No: 0\nsockperf: [Valid Duration] RunTime={valid:.3} sec; SentMessages={valid_sent}; ReceivedMessages={valid_sent}\nsockperf: ====> avg-lat={avg:>7.3} (std-dev={std_dev:.3})\nsockperf: # dropped messages = 0; # duplicated messages = 0; # out-of-order messages = 0\nsockperf: Summary: Latency is {avg:.3} usec\nsockperf: Total {valid_sent} observations; each percentile contains {per:.2} observations\n",
        sent.saturating_sub(1)
    )
}

/// Each percentile line's label and its ratio to the mean, as measured runs with and without
/// VMA show them.
fn percentile_ratios(vma: bool) -> [(&'static str, f64); 10] {
    if vma {
        [
            ("<MAX> observation", 3.955),
            ("percentile 99.999", 1.552),
            ("percentile 99.990", 1.470),
            ("percentile 99.900", 1.418),
            ("percentile 99.000", 1.236),
            ("percentile 90.000", 1.116),
            ("percentile 75.000", 0.998),
            ("percentile 50.000", 0.976),
            ("percentile 25.000", 0.961),
            ("<MIN> observation", 0.903),
        ]
    } else {
        [
            ("<MAX> observation", 3.157),
            ("percentile 99.999", 2.733),
            ("percentile 99.990", 1.443),
            ("percentile 99.900", 1.309),
            ("percentile 99.000", 1.227),
            ("percentile 90.000", 1.075),
            ("percentile 75.000", 1.053),
            ("percentile 50.000", 0.972),
            ("percentile 25.000", 0.957),
            ("<MIN> observation", 0.907),
        ]
    }
}

#[cfg(test)]
mod tests {

    use crate::test_support::{rhel8_guest, sim_exec as run};

    #[test]
    fn kernel_and_vma_latency_parse_as_the_guide_prints_them() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let open =
            |name: &str| rhel8_guest(name, dir.path().join(name), &[("ofed", "5.6-0.7.0.0")]);
        let (server, client) = (open("sp-03"), open("sp-04"));
        run(
            &server,
            &["ip", "addr", "add", "11.4.3.3/24", "dev", "ens224f1"],
        );
        run(
            &client,
            &["ip", "addr", "add", "11.4.3.4/24", "dev", "ens224f1"],
        );
        let refused = run(
            &client,
            &["sockperf", "ping-pong", "-i", "11.4.3.3", "-t", "4"],
        );
        assert_eq!(refused.code, 1);
        for vma in [false, true] {
            let prefix: &[&str] = if vma {
                &["env", "LD_PRELOAD=libvma.so", "VMA_SPEC=latency"]
            } else {
                &[]
            };
            let mut start = vec![
                "env",
                "LOG=/tmp/s.log",
                "PIDFILE=/tmp/s.pid",
                "sh",
                "-c",
                crate::pair::background::BACKGROUND_SCRIPT,
                "sh",
            ];
            start.extend_from_slice(prefix);
            start.extend(["sockperf", "server", "-i", "11.4.3.3"]);
            let pid = run(&server, &start).stdout.trim().to_owned();
            let mut ping: Vec<&str> = prefix.to_vec();
            ping.extend(["sockperf", "ping-pong", "-i", "11.4.3.3", "-t", "4"]);
            let output = run(&client, &ping);
            assert_eq!(output.code, 0, "{}{}", output.stdout, output.stderr);
            let parsed = crate::sockperf::parse(&output.stdout)
                .unwrap_or_else(|e| panic!("{e}\n{}", output.stdout));
            let avg = parsed.avg_lat_usec.unwrap_or(0.0);
            if vma {
                assert!((1.0..1.12).contains(&avg), "{avg}");
                assert!(parsed.vma.is_some());
            } else {
                assert!((6.3..6.7).contains(&avg), "{avg}");
            }
            assert_eq!(parsed.percentiles.len(), 8);
            let collect = [
                "sh",
                "-c",
                crate::pair::background::COLLECT_SCRIPT,
                "sh",
                &pid,
                "/tmp/s.log",
                "/tmp/s.pid",
            ];
            let server_text = run(&server, &collect).stdout;
            let parsed = crate::sockperf::parse(&server_text)
                .unwrap_or_else(|e| panic!("{e}\n{server_text}"));
            assert_eq!(parsed.role.as_deref(), Some("server"));
        }
    }
}
