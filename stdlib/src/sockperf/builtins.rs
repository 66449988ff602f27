//! The `sockperf::` builtins: a UDP or TCP ping-pong latency test between two hosts, through
//! the kernel or with libvma (NVIDIA's "Running VMA").

use rhai::plugin::*;

/// The `sockperf::` module.
///
/// `sockperf::ping_pong(server, client, #{address, vma, tcp, duration, port, msg_size})` runs
/// `sockperf server -i ADDRESS` on `server` (in the background) and `sockperf ping-pong -i ADDRESS
/// -t DURATION` on `client` (default 4 s, UDP; `tcp: true` adds `--tcp`); with `vma: true` both
/// run under `env LD_PRELOAD=libvma.so VMA_SPEC=latency`. `address` (the server's IP on the
/// interface to test) is required. The result is the client's parsed output plus `avg_us`,
/// `std_dev_us`, `p50_us`, `p99_us`, `p99_9_us`, `max_us`, `min_us`, `dropped`, `vma_loaded`
/// (the VMA banner was printed) and `server_side`.
///
/// ```rhai
/// let kernel = sockperf::ping_pong("compute-03", "compute-02", #{ address: "192.168.5.3" });
/// let vma = sockperf::ping_pong("compute-03", "compute-02", #{ address: "192.168.5.3", vma: true });
/// expect(vma.avg_us < kernel.avg_us, `VMA ${vma.avg_us} us, kernel ${kernel.avg_us} us`);
/// ```
#[export_module]
pub mod sockperf_builtins {
    use rhai::{Dynamic, Map, NativeCallContext};

    use crate::action::RhaiResult;

    /// `sockperf server -i ADDRESS` on `server` (in the background) and `sockperf ping-pong -i
    /// ADDRESS -t DURATION` on `client`; with `vma: true` both run under
    /// `LD_PRELOAD=libvma.so VMA_SPEC=latency`. Options: `address` (required: the server's IP on
    /// the interface to test), `vma`, `tcp`, `duration` (seconds, default 4), `port` (default
    /// 11111), `msg_size`. Returns the client's parsed output (`avg_lat_usec`, `std_dev_usec`,
    /// `percentiles`, `dropped_messages`, `vma`, ...) plus `avg_us`, `std_dev_us`, `p50_us`,
    /// `p99_us`, `p99_9_us`, `max_us`, `min_us`, `dropped`, `vma_loaded` and `server_side`.
    ///
    /// ```rhai
    /// let kernel = sockperf::ping_pong("compute-03", "compute-02", #{ address: "192.168.5.3" });
    /// let vma = sockperf::ping_pong("compute-03", "compute-02", #{ address: "192.168.5.3", vma: true });
    /// log(`kernel ${kernel.avg_us} us, VMA ${vma.avg_us} us`);
    /// ```
    #[rhai_fn(volatile, return_raw)]
    pub fn ping_pong(
        ctx: NativeCallContext,
        server: &str,
        client: &str,
        options: Map,
    ) -> RhaiResult<Dynamic> {
        super::ping_pong(&ctx, server, client, &options)
    }
}

use std::time::Duration;

use cairn_runtime::{ActionError, HostContext, Outcome};
use rhai::{Dynamic, Map, NativeCallContext};
use serde_json::{Value, json};

use crate::action::{self, RhaiResult};
use crate::pair::{self, Pair};
use crate::sockperf::command::PingPongOptions;

/// `sockperf::ping_pong(server, client, #{...})`'s options.
pub(crate) const PING_PONG_OPTIONS: cairn_runtime::BuiltinOptions = cairn_runtime::BuiltinOptions {
    builtin: "sockperf::ping_pong",
    arg: 2,
    keys: &[
        crate::action::key("address", cairn_runtime::OptionType::Text),
        crate::action::key("duration", cairn_runtime::OptionType::Int),
        crate::action::key("msg_size", cairn_runtime::OptionType::Int),
        crate::action::key("port", cairn_runtime::OptionType::Int),
        crate::action::key("tcp", cairn_runtime::OptionType::Bool),
        crate::action::key("vma", cairn_runtime::OptionType::Bool),
    ],
};

fn ping_pong(
    ctx: &NativeCallContext,
    server: &str,
    client: &str,
    options: &Map,
) -> RhaiResult<Dynamic> {
    let host = HostContext::current(ctx)?;
    crate::action::check_options(ctx, &PING_PONG_OPTIONS, options)?;
    let options = action::options_json(options)?;
    let opts = PingPongOptions::from_json(&options).map_err(|m| action::bad_argument(ctx, m))?;
    let shared = host.shared.clone();
    let run = host.run_id();
    let builtin = action::builtin_name(ctx, super::NAMESPACE);
    let call = pair::action_call(builtin, server, client, &opts, &shared);
    action::act(ctx, call, |io| {
        if io.checking() {
            return Ok(Outcome::unchanged(json!({ "checked": true })));
        }
        let pair = Pair {
            server,
            client,
            server_argv: opts.server_argv(),
            client_argv: opts.client_argv(),
            log: format!("/tmp/cairn-sockperf-{}.log", opts.port),
            pidfile: pair::pidfile(&run, opts.port),
            timeout: Duration::from_secs(u64::try_from(opts.duration).unwrap_or(4) + 60),
        };
        let output = pair::run(Some(io), &shared, &pair)?;
        let text = format!("{}{}", output.client.stdout, output.client.stderr);
        let command = format!("{} (on {client})", pair.client_argv.join(" "));
        let parsed = crate::grammar::read_output(&text, crate::sockperf::parse).map_err(|_| {
            ActionError::CommandFailed {
                code: output.client.code,
                command: command.clone(),
                stderr: output.client.stderr.clone(),
            }
        })?;
        let Some(avg) = parsed.avg_lat_usec.filter(|_| output.client.code == 0) else {
            return Err(ActionError::CommandFailed {
                code: output.client.code,
                command,
                stderr: output.client.stderr,
            });
        };
        let percentile = |p: f64| {
            parsed
                .percentiles
                .iter()
                .find(|q| (q.percentile - p).abs() < 1e-6)
                .map(|q| q.usec)
        };
        let mut value = action::json(&parsed);
        if let Some(map) = value.as_object_mut() {
            map.insert("avg_us".into(), json!(avg));
            map.insert("std_dev_us".into(), json!(parsed.std_dev_usec));
            map.insert("p50_us".into(), json!(percentile(50.0)));
            map.insert("p99_us".into(), json!(percentile(99.0)));
            map.insert("p99_9_us".into(), json!(percentile(99.9)));
            map.insert("max_us".into(), json!(parsed.max_usec));
            map.insert("min_us".into(), json!(parsed.min_usec));
            map.insert("dropped".into(), json!(parsed.dropped_messages));
            map.insert("vma_loaded".into(), json!(parsed.vma.is_some()));
            map.insert("server".into(), json!(server));
            map.insert("client".into(), json!(client));
            map.insert("command".into(), json!(pair.client_argv.join(" ")));
            map.insert(
                "server_side".into(),
                crate::grammar::read_output(&output.server.stdout, crate::sockperf::parse)
                    .map_or(Value::Null, |s| action::json(&s)),
            );
        }
        Ok(Outcome::unchanged(value))
    })
}

#[cfg(test)]
mod tests {
    use crate::test_support::TestHost;

    #[test]
    fn vma_beats_the_kernel_as_in_the_guide() {
        let up = "ofed=5.6-0.7.0.0";
        let t = TestHost::guests(&[("vm-03", up), ("vm-04", up)], "controller").build();
        for (host, ip) in [("vm-03", "11.4.3.3/24"), ("vm-04", "11.4.3.4/24")] {
            let req = cairn_runtime::ExecRequest::new(["ip", "addr", "add", ip, "dev", "ens224f1"]);
            assert_eq!(
                t.host.shared.exec_on(host, &req).map(|o| o.code).ok(),
                Some(0)
            );
        }
        let kernel =
            t.eval(r#"sockperf::ping_pong("vm-03", "vm-04", #{ address: "11.4.3.3" }).avg_us"#);
        let vma =
            t.eval(r#"sockperf::ping_pong("vm-03", "vm-04", #{ address: "11.4.3.3", vma: true })"#);
        let vma = vma.try_cast::<rhai::Map>().unwrap_or_default();
        let kernel = kernel.as_float().unwrap_or(0.0);
        let fast = vma
            .get("avg_us")
            .and_then(|v| v.as_float().ok())
            .unwrap_or(0.0);
        assert!((6.3..6.7).contains(&kernel), "{kernel}");
        assert!((1.0..1.12).contains(&fast), "{fast}");
        assert_eq!(
            vma.get("vma_loaded").and_then(|v| v.as_bool().ok()),
            Some(true)
        );
        assert_eq!(vma.get("dropped").and_then(|v| v.as_int().ok()), Some(0));
        let error = t.error(r#"sockperf::ping_pong("vm-03", "vm-04", #{ address: "11.4.3.9" })"#);
        assert!(error.contains("Is the server down?"), "{error}");
        assert!(
            t.error(r#"sockperf::ping_pong("vm-03", "vm-04", #{})"#)
                .contains("needs `address`")
        );
    }
}
