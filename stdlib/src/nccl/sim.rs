//! The simulated `mpirun` of an nccl-tests job: `mpirun -np N -H node:slots,... -x VAR=value
//! ... PATH/all_reduce_perf -b MIN -e MAX -f 2 -g 1`, printed as nccl-tests prints it
//! (`src/common.cu`'s settings line, device report, size table and footer, in the layout of the
//! A3 Mega capture under `tests/fixtures/nccl-tests/`), so the same parser reads it.
//!
//! The figures are the simulator's model, not a measurement: each node's bus bandwidth at large
//! sizes is its NICs' (`NCCL_IB_HCA`'s devices present on every node) at 0.12 GB/s per Gb/s of a
//! ConnectX-7's 400 Gb/s, 97% of it reached, with the curve over sizes of the capture (about 30%
//! at 64 MiB, 78% at 512 MiB, 98% at 8 GiB). A node without GPUDirect RDMA (`nvidia_peermem` not
//! loaded) moves the data through host memory: the job falls to about a twentieth, as
//! NVIDIA/nccl#1676 reports (about 180 to 10 GB/s); a node whose PCIe switch has ACS on routes
//! GPU-to-NIC traffic through the root complex: half. A node that is not a GPU server fails the
//! test with CUDA's `no CUDA-capable device is detected`; one that is no host of the run is
//! refused by `ssh`, as Open MPI's launch would be.

use cairn_runtime::ExecOutput;
use cairn_runtime::sim::{SimContext, SimTool};
use serde::Deserialize as _;

use crate::machine::gpu_server::{GPU_SLOT, GpuServerState, layout};
use crate::machine::guest::{out, peer_tools};

/// What the simulated job's NICs carry at most: 0.12 GB/s per Gb/s of 400 Gb/s, 97% reached.
const NIC_GBYTES: f64 = 0.12 * 400.0 * 0.97;

pub(crate) struct MpirunSim;

/// The job a command line asks for.
struct Job {
    nodes: Vec<(String, u32)>,
    hcas: Vec<String>,
    min_bytes: u64,
    max_bytes: u64,
}

impl SimTool for MpirunSim {
    fn commands(&self) -> &[&'static str] {
        &["mpirun"]
    }

    fn run(&self, host: &mut SimContext<'_>, argv: &[String]) -> ExecOutput {
        let Some(job) = read_job(argv) else {
            return out(
                1,
                "",
                "mpirun: the simulator runs nccl-tests jobs only (-H, -x, PROGRAM -b -e)\n",
            );
        };
        let mut nodes = Vec::new();
        for (node, slots) in &job.nodes {
            let state = if node == host.host_name() {
                Some(host.tool_state(GPU_SLOT).cloned())
            } else {
                peer_tools(host, node).map(|tools| tools.get(GPU_SLOT).cloned())
            };
            match state {
                None => {
                    return out(
                        255,
                        "",
                        format!(
                            "ssh: Could not resolve hostname {node}: Name or service not known\n"
                        ),
                    );
                }
                Some(None) => {
                    return out(
                        1,
                        format!(
                            "{node}: Test CUDA failure common.cu:892 'no CUDA-capable device is detected'\n"
                        ),
                        "",
                    );
                }
                Some(Some(state)) => {
                    let state = GpuServerState::deserialize(&state).unwrap_or_default();
                    nodes.push((node.clone(), *slots, state));
                }
            }
        }
        out(0, print(&job, &nodes), "")
    }
}

/// The job of `mpirun ... PROGRAM -b MIN -e MAX ...`; `None` for another command line.
fn read_job(argv: &[String]) -> Option<Job> {
    let mut words = argv.iter().skip(1);
    let (mut nodes, mut hcas) = (Vec::new(), Vec::new());
    while let Some(word) = words.next() {
        match word.as_str() {
            "-H" => {
                for entry in words.next()?.split(',') {
                    let (node, slots) = entry.split_once(':')?;
                    nodes.push((node.to_owned(), slots.parse().ok()?));
                }
            }
            "-x" => {
                if let Some(value) = words.next()?.strip_prefix("NCCL_IB_HCA=") {
                    hcas = value
                        .split(',')
                        .map(|h| h.trim_start_matches('=').to_owned())
                        .collect();
                }
            }
            "-np" | "--bind-to" => {
                words.next()?;
            }
            program if program.ends_with("_perf") => {
                let rest: Vec<&String> = words.collect();
                let value = |flag: &str| {
                    rest.iter()
                        .position(|w| *w == flag)
                        .and_then(|i| rest.get(i + 1))
                };
                return Some(Job {
                    nodes,
                    hcas,
                    min_bytes: bytes(value("-b")?)?,
                    max_bytes: bytes(value("-e")?)?,
                });
            }
            _ => {}
        }
    }
    None
}

/// nccl-tests' sizes: a number with an optional `K`, `M` or `G` (powers of 1024).
fn bytes(text: &str) -> Option<u64> {
    let (digits, unit) = match text.char_indices().last()? {
        (i, 'K' | 'k') => (&text[..i], 1 << 10),
        (i, 'M' | 'm') => (&text[..i], 1 << 20),
        (i, 'G' | 'g') => (&text[..i], 1 << 30),
        _ => (text, 1),
    };
    digits.parse::<u64>().ok()?.checked_mul(unit)
}

/// The whole output.
fn print(job: &Job, nodes: &[(String, u32, GpuServerState)]) -> String {
    let nics = layout()
        .nics
        .iter()
        .filter(|nic| nic.rdma.as_ref().is_some_and(|r| job.hcas.contains(r)))
        .count();
    let gdr = nodes.iter().all(|(_, _, state)| state.nvidia_peermem);
    let acs = nodes
        .iter()
        .any(|(_, _, state)| state.acs.values().any(|v| *v != 0));
    let factor = if gdr { 1.0 } else { 0.055 } * if acs { 0.5 } else { 1.0 };
    let ranks: u32 = nodes.iter().map(|(_, slots, _)| slots).sum();
    let peak = NIC_GBYTES * nics as f64 * factor;
    let mut text = format!(
        "# nThread 1 nGpus 1 minBytes {} maxBytes {} step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0\n#\n# Using devices\n",
        job.min_bytes, job.max_bytes
    );
    let gpus = layout().gpus;
    let mut rank = 0;
    for (node, slots, _) in nodes {
        for device in 0..*slots {
            let bus = gpus
                .get(device as usize)
                .map_or("00:00", |g| g.address.get(..5).unwrap_or("00:00"));
            text.push_str(&format!(
                "#  Rank {rank:>2} Group  0 Pid {:>6} on {node:>10} device {device:>2} [0000:{bus}] NVIDIA H100 80GB HBM3\n",
                4100 + rank
            ));
            rank += 1;
        }
    }
    text.push_str("#\n#                                                              out-of-place                       in-place          \n");
    text.push_str("#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n");
    text.push_str("#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)       \n");
    let ring = 2.0 * f64::from(ranks.saturating_sub(1)) / f64::from(ranks.max(1));
    let mut size = job.min_bytes.max(4);
    let mut sum = 0.0;
    let mut rows = 0;
    while size <= job.max_bytes {
        let busbw = peak * size as f64 / (size as f64 + 150e6);
        let algbw = busbw / ring;
        // A latency floor of 120 us, as the capture's small sizes show.
        let time_us = 120.0 + size as f64 / (algbw.max(1e-9) * 1e3);
        let algbw = size as f64 / (time_us * 1e3);
        let busbw = algbw * ring;
        let side = format!(
            "  {:>7}  {algbw:>6.2}  {busbw:>6.2}  {:>5}",
            time(time_us),
            0
        );
        text.push_str(&format!(
            "{size:>12}  {:>12}  {:>8}  {:>6}  {:>6}{side}{side}\n",
            size / 4,
            "float",
            "sum",
            -1
        ));
        sum += busbw;
        rows += 1;
        size *= 2;
    }
    text.push_str("# Out of bounds values : 0 OK\n");
    text.push_str(&format!(
        "# Avg bus bandwidth    : {:.3} \n#\n",
        sum / f64::from(rows.max(1))
    ));
    text
}

/// nccl-tests' time cell: one decimal below 10 ms, whole microseconds above.
fn time(us: f64) -> String {
    if us < 10_000.0 {
        format!("{us:.1}")
    } else {
        format!("{us:.0}")
    }
}
