//! What every instance of a run shares across threads.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use serde_json::Value;

use super::pair_hold::{PairHold, PairHolds};
use crate::barrier::{Forks, StageBarrier};
use crate::{
    ActionError, CONTROLLER, Cancel, Clock, EventSink, ExecOutput, ExecRequest, HostInfo, Transport,
};

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
    /// `--store URL`: the store every controller sees, for leases and journals; `None`: this
    /// machine's lease folder and the run folder alone.
    pub shared_store: Option<Arc<dyn crate::SharedStore>>,
    /// `--controllers N`: which share of a run shared between controllers this run is, and the
    /// store's side of the barriers and budget that span the shares; `None`: a run of one.
    pub fleet: Option<crate::FleetPlan>,
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
            shared_store: None,
            fleet: None,
        }
    }
}

/// State shared by the instances of one run. Its fields are the runtime's own; the stdlib
/// reaches the run through the methods below (`stdlib/tests/run_shared.rs` keeps it so).
pub struct RunShared {
    /// Stage barriers.
    pub(crate) barrier: StageBarrier,
    /// `--max-unavailable`: hosts rebooting, in maintenance mode or failed, at most so many.
    pub(crate) budget: crate::DisruptionBudget,
    /// Stops the run.
    pub(crate) cancel: Cancel,
    /// Progress events.
    pub(crate) events: EventSink,
    /// The fork limit.
    pub(crate) forks: Forks,
    /// Whether the roll was halted at a failed host, and why.
    pub(crate) halt: crate::Halt,
    /// The hosts cross-host tests hold.
    pub(crate) pair_holds: PairHolds,
    /// Hosts that failed and left the run, each with what failed it (its failure's message).
    pub(crate) failed: Mutex<BTreeMap<String, String>>,
    /// Every host of the run, in inventory order.
    pub(crate) hosts: Vec<HostInfo>,
    /// Options.
    pub(crate) options: RunOptions,
    /// How far each host has come, for pipelined stages (`after VAR`).
    pub(crate) progress: crate::pipeline::StageProgress,
    /// The params, checked and converted before the run.
    pub(crate) params: crate::RunParams,
    /// Check mode's predictions: what a change the check only predicted would have left (a
    /// VM powered off), by a key its builtin names, so that a later call sees it.
    predicted: Mutex<BTreeMap<String, Value>>,
    /// Values hosts published, by host then key.
    pub(crate) published: Mutex<BTreeMap<String, BTreeMap<String, Value>>>,
    /// Where the batches of rolling stages stand.
    pub(crate) rolling: crate::RollingGate,
    /// Each host's transport, shared so the controller can reach hosts too.
    pub(crate) transports: BTreeMap<String, Arc<Mutex<Box<dyn Transport>>>>,
    /// Hosts the run as a whole refuses before their first action (one fence folder under
    /// two names, `executor/fence_folders.rs`), each with its refusal.
    refused: Mutex<BTreeMap<String, crate::TransportError>>,
}

impl RunShared {
    /// Shared state for `participants` instances.
    pub fn new(
        participants: usize,
        hosts: Vec<HostInfo>,
        options: RunOptions,
        params: crate::RunParams,
        cancel: Cancel,
        events: EventSink,
    ) -> Self {
        let budgets = options.max_unavailable.as_ref().filter(|_| !options.check);
        // A share of a shared run waits at its barriers for the other shares too, and its
        // budget's limits count every host of the shared run, the others' down ones included.
        let (barrier, budget) = match &options.fleet {
            None => (
                StageBarrier::new(participants),
                crate::DisruptionBudget::for_hosts(budgets, &hosts),
            ),
            Some(fleet) => (
                StageBarrier::new(participants).with_fleet(
                    fleet.sync.clone(),
                    Box::new({
                        let events = events.clone();
                        move |message| {
                            events.send(crate::RunEvent::Warning {
                                host: CONTROLLER.into(),
                                message,
                            });
                        }
                    }),
                    fleet.share.run.clone(),
                ),
                crate::DisruptionBudget::for_hosts(budgets, &fleet.hosts)
                    .with_fleet(fleet.sync.clone()),
            ),
        };
        Self {
            barrier,
            budget,
            cancel,
            events,
            failed: Mutex::new(BTreeMap::new()),
            forks: Forks::new(options.forks),
            halt: crate::Halt::new(),
            hosts,
            options,
            pair_holds: PairHolds::default(),
            params,
            progress: crate::pipeline::StageProgress::default(),
            predicted: Mutex::new(BTreeMap::new()),
            published: Mutex::new(BTreeMap::new()),
            rolling: crate::RollingGate::default(),
            transports: BTreeMap::new(),
            refused: Mutex::new(BTreeMap::new()),
        }
    }

    /// Refuses `host` before its first action, with `refusal`.
    pub(crate) fn refuse_before_first_action(&self, host: &str, refusal: crate::TransportError) {
        if let Ok(mut refused) = self.refused.lock() {
            refused.insert(host.to_owned(), refusal);
        }
    }

    /// The run's refusal of `host`, taken (a host is refused once).
    pub(crate) fn take_refusal(&self, host: &str) -> Option<crate::TransportError> {
        self.refused.lock().ok()?.remove(host)
    }

    /// In check mode, records that a predicted change leaves `key` at `value` (nothing was
    /// changed on the host, so only this says so to the calls after it). Ignored in a real
    /// run, where the host itself is the truth.
    pub fn predict(&self, key: &str, value: Value) {
        if self.options.check {
            self.predicted
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .insert(key.to_owned(), value);
        }
    }

    /// What a predicted change left `key` at, in check mode.
    pub fn predicted(&self, key: &str) -> Option<Value> {
        if !self.options.check {
            return None;
        }
        self.predicted
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(key)
            .cloned()
    }

    /// The run's options.
    pub fn options(&self) -> &RunOptions {
        &self.options
    }

    /// What stops the run.
    pub fn cancel(&self) -> &Cancel {
        &self.cancel
    }

    /// Whether the run can reach `host` (a host of its selection, or one a selected host's vars
    /// name).
    pub fn reaches(&self, host: &str) -> bool {
        self.transports.contains_key(host)
    }

    /// The hosts that failed and left the run so far, each with what failed it: a controller's
    /// test of the whole fleet names them as not tested, and why.
    pub fn failed_hosts(&self) -> BTreeMap<String, String> {
        self.failed
            .lock()
            .map(|f| f.clone())
            .unwrap_or_else(|e| e.into_inner().clone())
    }

    /// The names of the run's hosts in `group`, in inventory order, failed ones too.
    pub fn group_members(&self, group: &str) -> Vec<String> {
        self.hosts
            .iter()
            .filter(|h| h.groups.iter().any(|g| g == group))
            .map(|h| h.name.clone())
            .collect()
    }

    /// The hosts the run can reach, by name, for a did-you-mean.
    pub fn reachable(&self) -> impl Iterator<Item = &str> {
        self.transports.keys().map(String::as_str)
    }

    /// The transport of `host`, shared by every instance that reaches it.
    pub fn transport(&self, host: &str) -> Option<&Arc<Mutex<Box<dyn Transport>>>> {
        self.transports.get(host)
    }

    /// Lets the run reach `host` through `transport` (a test's or a session's set-up).
    pub fn add_transport(&mut self, host: String, transport: Arc<Mutex<Box<dyn Transport>>>) {
        self.transports.insert(host, transport);
    }

    /// `peer`'s transport for one command. Locked for the command only (as `HostIo` locks its
    /// own host's), so two actions that reach each other's hosts never wait for each other's
    /// whole action, and the wait is at most the command another action runs there. Not refused
    /// once the run is stopped: stopping a test's server on the way out must still run. A
    /// command that panicked leaves it usable: the transport reconnects when its session is
    /// broken.
    fn peer(&self, peer: &str) -> Result<MutexGuard<'_, Box<dyn Transport>>, ActionError> {
        let transport = self
            .transports
            .get(peer)
            .ok_or_else(|| ActionError::NotAHost(peer.to_owned()))?;
        Ok(transport.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// Runs a command on another host of the run; a non-zero exit is an `Ok` here. An action
    /// on a host reaches its peers through [`HostIo::exec_on`](crate::HostIo::exec_on).
    pub fn exec_on(&self, peer: &str, request: &ExecRequest) -> Result<ExecOutput, ActionError> {
        Ok(self.peer(peer)?.exec(request)?)
    }

    /// The clock of another host of the run.
    pub fn clock_of(&self, peer: &str) -> Result<Clock, ActionError> {
        Ok(self.peer(peer)?.clock())
    }

    /// Holds hosts `a` and `b` for a test between them until the hold drops, waiting while
    /// another test of the run holds either (`pair_hold.rs`); a stopped run ends the wait.
    pub fn hold_pair(&self, a: &str, b: &str) -> Result<PairHold<'_>, ActionError> {
        Ok(self
            .pair_holds
            .hold(a, b, self.options.check, &self.cancel)?)
    }
}
