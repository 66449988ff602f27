//! The sockperf command lines (NVIDIA's "Running VMA"): `sockperf server -i IP` and
//! `sockperf ping-pong -i IP -t SECONDS`, under `env LD_PRELOAD=libvma.so VMA_SPEC=latency` for
//! VMA.

use serde_json::Value;

use crate::action;

/// sockperf's default port.
pub(crate) const DEFAULT_PORT: i64 = 11111;

/// The options of a ping-pong test, checked.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub(crate) struct PingPongOptions {
    /// The server's address, which both ends use (`-i`).
    pub(crate) address: String,
    pub(crate) vma: bool,
    pub(crate) tcp: bool,
    pub(crate) duration: i64,
    pub(crate) port: i64,
    pub(crate) msg_size: Option<i64>,
}

impl PingPongOptions {
    /// Reads `#{address, vma, tcp, duration, port, msg_size}`.
    pub(crate) fn from_json(options: &Value) -> Result<Self, String> {
        let known = ["address", "vma", "tcp", "duration", "port", "msg_size"];
        if let Some(map) = options.as_object()
            && let Some(key) = map.keys().find(|k| !known.contains(&k.as_str()))
        {
            return Err(format!(
                "unknown sockperf option `{key}`; known: {}",
                known.join(", ")
            ));
        }
        let address = action::text(options, "address")
            .ok_or("sockperf needs `address`: the server's IP on the interface to test")?;
        let octets: Vec<&str> = address.split('.').collect();
        if octets.len() != 4 || octets.iter().any(|o| o.parse::<u8>().is_err()) {
            return Err(format!("`{address}` is not an IPv4 address"));
        }
        let ranged = |key: &str, min: i64, max: i64| -> Result<Option<i64>, String> {
            match action::int(options, key) {
                Some(v) if v < min || v > max => {
                    Err(format!("`{key}` {v} is out of range {min}..={max}"))
                }
                other => Ok(other),
            }
        };
        Ok(Self {
            address,
            vma: action::flag(options, "vma", false),
            tcp: action::flag(options, "tcp", false),
            duration: ranged("duration", 1, 86_400)?.unwrap_or(4),
            port: ranged("port", 1, 65_535)?.unwrap_or(DEFAULT_PORT),
            msg_size: ranged("msg_size", 12, 65_000)?,
        })
    }

    fn prefix(&self) -> Vec<String> {
        if self.vma {
            [
                "env",
                "LD_PRELOAD=libvma.so",
                "VMA_SPEC=latency",
                "sockperf",
            ]
            .map(str::to_owned)
            .to_vec()
        } else {
            vec!["sockperf".into()]
        }
    }

    fn common(&self, argv: &mut Vec<String>) {
        argv.push("-i".into());
        argv.push(self.address.clone());
        if self.port != DEFAULT_PORT {
            argv.push("-p".into());
            argv.push(self.port.to_string());
        }
        if self.tcp {
            argv.push("--tcp".into());
        }
    }

    /// `[env LD_PRELOAD=libvma.so VMA_SPEC=latency] sockperf server -i IP [-p P] [--tcp]`.
    pub(crate) fn server_argv(&self) -> Vec<String> {
        let mut argv = self.prefix();
        argv.push("server".into());
        self.common(&mut argv);
        argv
    }

    /// `[env ...] sockperf ping-pong -i IP [-p P] [--tcp] -t SECONDS [-m SIZE]`.
    pub(crate) fn client_argv(&self) -> Vec<String> {
        let mut argv = self.prefix();
        argv.push("ping-pong".into());
        self.common(&mut argv);
        argv.push("-t".into());
        argv.push(self.duration.to_string());
        if let Some(size) = self.msg_size {
            argv.push("-m".into());
            argv.push(size.to_string());
        }
        argv
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_guides_command_lines() {
        let kernel = PingPongOptions::from_json(&json!({ "address": "11.4.3.3" }))
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            kernel.server_argv().join(" "),
            "sockperf server -i 11.4.3.3"
        );
        assert_eq!(
            kernel.client_argv().join(" "),
            "sockperf ping-pong -i 11.4.3.3 -t 4"
        );
        let vma =
            PingPongOptions::from_json(&json!({ "address": "11.4.3.3", "vma": true, "tcp": true }))
                .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            vma.client_argv().join(" "),
            "env LD_PRELOAD=libvma.so VMA_SPEC=latency sockperf ping-pong -i 11.4.3.3 --tcp -t 4"
        );
        assert!(PingPongOptions::from_json(&json!({})).is_err());
        assert!(PingPongOptions::from_json(&json!({ "address": "x; rm" })).is_err());
        assert!(
            PingPongOptions::from_json(&json!({ "address": "1.2.3.4", "duration": 0 })).is_err()
        );
    }
}
