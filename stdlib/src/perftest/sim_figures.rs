//! The figures simulated perftest prints: bandwidth and latency tables from the line rate and
//! the active MTU, and how long a test takes on the client's clock.

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
pub(super) fn run_time(
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

/// The table a bandwidth test prints: one row a size, its figures drawn around
/// [`bandwidth_at`] by `noise`.
pub(super) fn bandwidth_table(
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

/// The table a latency test prints: one row a size, from the base latency of the link layer,
/// a penalty past the inline size and the time on the wire.
pub(super) fn latency_table(
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
