//! What every instance of a run shares across threads.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;

use crate::barrier::{Forks, StageBarrier};
use crate::{Cancel, EventSink, HostInfo, Transport};

/// Options of a run that instances consult.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// SSH: record the key of a host that known_hosts does not know (`--accept-new-host-keys`).
    pub accept_new_host_keys: bool,
    /// Check mode: builtins report what they would change and change nothing.
    pub check: bool,
    /// `--debug-on-failure`: a failed action waits for the operator's retry, skip or abort.
    pub debugger: Option<Arc<crate::Debugger>>,
    /// At most this many hosts act at once.
    pub forks: usize,
    /// Stop the run once more than this percentage of its hosts have failed.
    pub max_fail_percent: Option<u8>,
    /// `--max-unavailable`: the run-wide disruption budget.
    pub max_unavailable: Option<crate::Budgets>,
    /// Script operations one instance may run before it is stopped as runaway.
    pub max_operations: u64,
    /// How long a rebooting host may take to come back.
    pub reboot_timeout: Duration,
    /// `--wait-for-hosts`: wait for hosts another run holds, instead of refusing the run.
    pub wait_for_hosts: bool,
    /// Where host leases are kept; `None`: `CAIRN_LEASE_DIR`, else the machine's lease folder.
    pub lease_dir: Option<std::path::PathBuf>,
}

impl Default for RunOptions {
    fn default() -> Self {
        Self {
            accept_new_host_keys: false,
            check: false,
            debugger: None,
            forks: 64,
            max_fail_percent: None,
            max_unavailable: None,
            max_operations: 10_000_000,
            reboot_timeout: Duration::from_secs(600),
            wait_for_hosts: false,
            lease_dir: None,
        }
    }
}

/// State shared by the instances of one run.
pub struct RunShared {
    /// Stage barriers.
    pub barrier: StageBarrier,
    /// `--max-unavailable`: hosts rebooting, in maintenance mode or failed, at most so many.
    pub budget: crate::DisruptionBudget,
    /// Stops the run.
    pub cancel: Cancel,
    /// Progress events.
    pub events: EventSink,
    /// The fork limit.
    pub forks: Forks,
    /// Whether the roll was halted at a failed host, and why.
    pub halt: crate::Halt,
    /// Hosts that failed and left the run.
    pub failed: Mutex<std::collections::BTreeSet<String>>,
    /// Every host of the run, in inventory order.
    pub hosts: Vec<HostInfo>,
    /// Options.
    pub options: RunOptions,
    /// `--param` values by name.
    pub params: BTreeMap<String, String>,
    /// Values hosts published, by host then key.
    pub published: Mutex<BTreeMap<String, BTreeMap<String, Value>>>,
    /// Where the batches of rolling stages stand.
    pub rolling: crate::RollingGate,
    /// Each host's transport, shared so the controller can reach hosts too.
    pub transports: BTreeMap<String, Arc<Mutex<Box<dyn Transport>>>>,
}

impl RunShared {
    /// Shared state for `participants` instances.
    pub fn new(
        participants: usize,
        hosts: Vec<HostInfo>,
        options: RunOptions,
        params: BTreeMap<String, String>,
        cancel: Cancel,
        events: EventSink,
    ) -> Self {
        let budgets = options.max_unavailable.as_ref().filter(|_| !options.check);
        Self {
            barrier: StageBarrier::new(participants),
            budget: crate::DisruptionBudget::for_hosts(budgets, &hosts),
            cancel,
            events,
            failed: Mutex::new(std::collections::BTreeSet::new()),
            forks: Forks::new(options.forks),
            halt: crate::Halt::new(),
            hosts,
            options,
            params,
            published: Mutex::new(BTreeMap::new()),
            rolling: crate::RollingGate::default(),
            transports: BTreeMap::new(),
        }
    }
}
