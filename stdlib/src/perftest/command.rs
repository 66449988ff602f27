//! The perftest command lines: the same options on the server and the client, the client
//! adding the server's address (VMware's guide section 3.1, the blog post "InfiniBand
//! Performance Test").

use cairn_runtime::{BuiltinOptions, OptionKey, OptionType};
use serde_json::Value;

use crate::action::key;

use crate::action;

/// The table of perftest tests: one row (builtin name, program) registers each. From a row come
/// the builtin's journal name (`perftest::send_bw`), its declared options and its program; the
/// wrappers in `builtins.rs` read their own name from the call, so no name is typed twice.
macro_rules! perftest_tests {
    ($(($name:literal, $program:literal)),* $(,)?) => {
        /// The perftest programs cairn runs, by builtin name.
        pub(crate) const TOOLS: &[(&str, &str)] = &[$(($name, $program)),*];
        /// Each test's options, in the order of [`TOOLS`]; `builtin` is its journal name.
        pub(crate) const PAIR_OPTIONS: &[BuiltinOptions] =
            &[$(pair_options(concat!("perftest::", $name))),*];
    };
}

perftest_tests![
    ("send_bw", "ib_send_bw"),
    ("write_bw", "ib_write_bw"),
    ("read_bw", "ib_read_bw"),
    ("send_lat", "ib_send_lat"),
    ("write_lat", "ib_write_lat"),
    ("read_lat", "ib_read_lat"),
];

/// The keys of one test's `#{...}`.
const TEST_KEYS: &[OptionKey] = &[
    key("address", OptionType::Text),
    key("all_sizes", OptionType::Bool),
    key("device", OptionType::Text),
    key("gid_index", OptionType::Int),
    key("iterations", OptionType::Int),
    key("port", OptionType::Int),
    key("qps", OptionType::Int),
    key("size", OptionType::Int),
    key("use_cuda", OptionType::Int),
    key("use_cuda_dmabuf", OptionType::Bool),
];

const fn pair_options(builtin: &'static str) -> BuiltinOptions {
    BuiltinOptions {
        builtin,
        arg: 2,
        keys: TEST_KEYS,
    }
}

/// `perftest::matrix(hosts, #{...})`'s options: a test's, and which test, pairs, concurrency.
pub(crate) const MATRIX_OPTIONS: BuiltinOptions = BuiltinOptions {
    builtin: "perftest::matrix",
    arg: 1,
    keys: &[
        key("address", OptionType::Text),
        key("all_sizes", OptionType::Bool),
        key("concurrency", OptionType::Int),
        key("device", OptionType::Text),
        key("gid_index", OptionType::Int),
        key("iterations", OptionType::Int),
        key("pairs", OptionType::Array),
        key("port", OptionType::Int),
        key("qps", OptionType::Int),
        key("size", OptionType::Int),
        key("test", OptionType::Text),
        key("use_cuda", OptionType::Int),
        key("use_cuda_dmabuf", OptionType::Bool),
    ],
};

/// perftest's default TCP port for exchanging queue pair data.
pub(crate) const DEFAULT_PORT: i64 = 18515;

/// The options of one test, checked.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub(crate) struct TestOptions {
    pub(crate) device: String,
    pub(crate) all_sizes: bool,
    pub(crate) size: Option<i64>,
    pub(crate) iterations: Option<i64>,
    pub(crate) gid_index: Option<i64>,
    pub(crate) qps: Option<i64>,
    pub(crate) port: i64,
    /// The address the client connects to; by default the server's host name.
    pub(crate) address: Option<String>,
    /// The GPU whose memory the test registers (`--use_cuda=N`: GPUDirect RDMA).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) use_cuda: Option<i64>,
    /// Registers the GPU memory through DMA-BUF (`--use_cuda_dmabuf`) instead of the
    /// peer-memory module.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub(crate) use_cuda_dmabuf: bool,
}

impl TestOptions {
    /// Reads `#{device, all_sizes, size, iterations, gid_index, qps, port, address}`.
    pub(crate) fn from_json(options: &Value) -> Result<Self, String> {
        let known = [
            "device",
            "all_sizes",
            "size",
            "iterations",
            "gid_index",
            "qps",
            "port",
            "address",
            "use_cuda",
            "use_cuda_dmabuf",
        ];
        if let Some(map) = options.as_object()
            && let Some(key) = map.keys().find(|k| !known.contains(&k.as_str()))
        {
            return Err(format!(
                "unknown perftest option `{key}`; known: {}",
                known.join(", ")
            ));
        }
        let device = action::text(options, "device").unwrap_or_else(|| "mlx5_0".into());
        if !crate::action::valid_device(&device) {
            return Err(format!("`{device}` is not an RDMA device name"));
        }
        let positive = |key: &str, max: i64| -> Result<Option<i64>, String> {
            match action::int(options, key) {
                Some(v) if v < 0 || v > max => {
                    Err(format!("`{key}` {v} is out of range 0..={max}"))
                }
                other => Ok(other),
            }
        };
        let address = action::text(options, "address");
        if let Some(a) = &address
            && (a.is_empty() || a.starts_with('-') || a.contains(char::is_whitespace))
        {
            return Err(format!("`{a}` is not an address"));
        }
        let use_cuda = positive("use_cuda", 1023)?;
        let use_cuda_dmabuf = action::flag(options, "use_cuda_dmabuf", false);
        if use_cuda_dmabuf && use_cuda.is_none() {
            return Err(
                "`use_cuda_dmabuf` needs `use_cuda`, the GPU whose memory is registered".into(),
            );
        }
        Ok(Self {
            device,
            all_sizes: action::flag(options, "all_sizes", false),
            size: positive("size", 1 << 30)?,
            iterations: positive("iterations", 100_000_000)?,
            gid_index: positive("gid_index", 255)?,
            qps: positive("qps", 16_384)?,
            port: positive("port", 65_535)?.unwrap_or(DEFAULT_PORT),
            address,
            use_cuda,
            use_cuda_dmabuf,
        })
    }

    /// The server's command line.
    pub(crate) fn server_argv(&self, program: &str) -> Vec<String> {
        let mut argv = vec![program.to_owned()];
        if self.all_sizes {
            argv.push("-a".into());
        }
        if program.ends_with("_bw") {
            argv.push("--report_gbits".into());
        }
        argv.push("-F".into());
        argv.push("-d".into());
        argv.push(self.device.clone());
        let mut push = |flag: &str, value: Option<i64>| {
            if let Some(v) = value {
                argv.push(flag.into());
                argv.push(v.to_string());
            }
        };
        if !self.all_sizes {
            push("-s", self.size);
        }
        push("-n", self.iterations);
        push("-x", self.gid_index);
        push("-q", self.qps);
        if self.port != DEFAULT_PORT {
            push("-p", Some(self.port));
        }
        if let Some(gpu) = self.use_cuda {
            argv.push(format!("--use_cuda={gpu}"));
        }
        if self.use_cuda_dmabuf {
            argv.push("--use_cuda_dmabuf".into());
        }
        argv
    }

    /// The client's command line: the server's, then the server's address.
    pub(crate) fn client_argv(&self, program: &str, server: &str) -> Vec<String> {
        let mut argv = self.server_argv(program);
        argv.push(self.address.clone().unwrap_or_else(|| server.to_owned()));
        argv
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_guides_command_lines() {
        let options = TestOptions::from_json(&json!({ "device": "mlx5_0", "all_sizes": true }))
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            options.client_argv("ib_send_bw", "compute-03").join(" "),
            "ib_send_bw -a --report_gbits -F -d mlx5_0 compute-03"
        );
        assert_eq!(
            options.server_argv("ib_send_lat").join(" "),
            "ib_send_lat -a -F -d mlx5_0"
        );
        let one = TestOptions::from_json(
            &json!({ "device": "mlx5_1", "size": 65536, "gid_index": 3, "port": 18600 }),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            one.client_argv("ib_write_bw", "10.0.0.3").join(" "),
            "ib_write_bw --report_gbits -F -d mlx5_1 -s 65536 -x 3 -p 18600 10.0.0.3"
        );
        assert!(TestOptions::from_json(&json!({ "devise": "x" })).is_err());
        assert!(TestOptions::from_json(&json!({ "size": -1 })).is_err());
        assert!(TestOptions::from_json(&json!({ "address": "-x" })).is_err());
    }

    /// perftest's GPUDirect flags (its README: `--use_cuda=<cuda device id>`,
    /// `--use_cuda_dmabuf`), passed through; DMA-BUF without a GPU is refused.
    #[test]
    fn the_gpu_flags_are_passed_through() {
        let options = TestOptions::from_json(
            &json!({ "device": "mlx5_6", "use_cuda": 4, "use_cuda_dmabuf": true }),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            options.server_argv("ib_write_bw").join(" "),
            "ib_write_bw --report_gbits -F -d mlx5_6 --use_cuda=4 --use_cuda_dmabuf"
        );
        let refused = TestOptions::from_json(&json!({ "use_cuda_dmabuf": true })).err();
        assert!(refused.is_some_and(|e| e.contains("needs `use_cuda`")));
        let plain = TestOptions::from_json(&json!({})).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            serde_json::to_value(&plain)
                .ok()
                .and_then(|v| v.get("use_cuda").cloned()),
            None
        );
    }
}
