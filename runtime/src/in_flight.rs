//! The actions hosts are in the middle of, so that a run stopped at once (a second Ctrl-C or
//! SIGTERM) can say which outcomes it leaves unknown.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Per host, the action it is performing and since when. Cloning shares it.
#[derive(Debug, Clone, Default)]
pub struct InFlight(Arc<Mutex<BTreeMap<String, (String, Instant)>>>);

impl InFlight {
    /// Marks `host` as performing `action` until the returned guard is dropped.
    pub fn start(&self, host: &str, action: String) -> Acting {
        if let Ok(mut busy) = self.0.lock() {
            busy.insert(host.to_owned(), (action, Instant::now()));
        }
        Acting {
            host: host.to_owned(),
            in_flight: self.clone(),
        }
    }

    /// The hosts in an action, each with the action and how long it has run, by host name.
    pub fn now(&self) -> Vec<(String, String, Duration)> {
        self.0.lock().map_or_else(
            |_| Vec::new(),
            |busy| {
                busy.iter()
                    .map(|(host, (action, since))| (host.clone(), action.clone(), since.elapsed()))
                    .collect()
            },
        )
    }

    /// One line per host in an action, or a line saying there is none.
    pub fn describe(&self) -> String {
        let now = self.now();
        if now.is_empty() {
            return "no host was in the middle of an action".to_owned();
        }
        let lines: Vec<String> = now
            .iter()
            .map(|(host, action, elapsed)| {
                format!("  {host}: {action} (for {:.1} s)", elapsed.as_secs_f64())
            })
            .collect();
        format!(
            "{} host(s) were in the middle of an action; `cairn resume` settles each:\n{}",
            now.len(),
            lines.join("\n")
        )
    }
}

/// A host's action in flight; it lands when this is dropped.
#[derive(Debug)]
pub struct Acting {
    host: String,
    in_flight: InFlight,
}

impl Drop for Acting {
    fn drop(&mut self) {
        if let Ok(mut busy) = self.in_flight.0.lock() {
            busy.remove(&self.host);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_action_is_in_flight_until_its_guard_drops() {
        let in_flight = InFlight::default();
        let acting = in_flight.start("node01", "run sleep 5".into());
        let _other = in_flight.clone().start("node02", "reboot".into());
        let text = in_flight.describe();
        assert!(text.contains("node01: run sleep 5"), "{text}");
        assert!(text.contains("node02: reboot"), "{text}");
        drop(acting);
        assert_eq!(in_flight.now().len(), 1);
        assert!(!in_flight.describe().contains("node01"));
    }
}
