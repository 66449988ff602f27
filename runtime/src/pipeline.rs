//! Pipelined stages: `stage "NAME" on GROUP after VAR { }` starts on a host as soon as the
//! hosts its var `VAR` names (a guest's ESXi host) have finished every stage before it, instead
//! of waiting at a barrier for the whole run. This is where each host of the run stands.
//!
//! A host without the var (an inventory written before the recipe was pipelined) waits for
//! every host of the run instead, as at a barrier; the check says so, and a var whose name is
//! close to `VAR` is refused as a typo rather than taken for an absent one.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Condvar, Mutex};
use std::time::Duration;

use crate::{Cancel, Cancelled};

/// How far each host of the run has come: the index of the last stage it reached (so it
/// finished every stage before it), and the hosts whose part of the run is over.
#[derive(Debug, Default)]
pub(crate) struct StageProgress {
    state: Mutex<ProgressState>,
    wake: Condvar,
}

#[derive(Debug, Default)]
struct ProgressState {
    /// The hosts that run stages in this run (helpers do not).
    participants: BTreeSet<String>,
    /// The last stage index each host reached.
    reached: BTreeMap<String, u64>,
    /// Hosts that finished, failed or stopped: nobody waits for them.
    gone: BTreeSet<String>,
}

impl StageProgress {
    /// Progress for a run whose stages `participants` run.
    pub(crate) fn new(participants: impl IntoIterator<Item = String>) -> Self {
        Self {
            state: Mutex::new(ProgressState {
                participants: participants.into_iter().collect(),
                ..ProgressState::default()
            }),
            wake: Condvar::new(),
        }
    }

    /// Whether `host` runs stages in this run (a host outside the selection, or a helper,
    /// does not: nothing waits for it).
    pub(crate) fn takes_part(&self, host: &str) -> bool {
        self.state
            .lock()
            .is_ok_and(|state| state.participants.contains(host))
    }

    /// `host` has reached stage `index`: it finished every stage before it.
    pub(crate) fn reach(&self, host: &str, index: u64) {
        if let Ok(mut state) = self.state.lock() {
            let reached = state.reached.entry(host.to_owned()).or_default();
            *reached = (*reached).max(index);
        }
        self.wake.notify_all();
    }

    /// `host`'s part of the run is over (done, failed or stopped): nobody waits for it.
    pub(crate) fn leave(&self, host: &str) {
        if let Ok(mut state) = self.state.lock() {
            state.gone.insert(host.to_owned());
        }
        self.wake.notify_all();
    }

    /// Leaves when dropped, so that a host whose thread ends in any way (a panic too) holds no
    /// pipelined stage of another host.
    pub(crate) fn departure<'a>(&'a self, host: &str) -> ProgressDeparture<'a> {
        ProgressDeparture(self, host.to_owned())
    }

    /// Waits until every host of the run has reached stage `index` or left it: a barrier
    /// built from the progress, for a host of a pipelined stage that has no var to wait by.
    pub(crate) fn wait_for_everyone(&self, index: u64, cancel: &Cancel) -> Result<(), Cancelled> {
        let everyone: Vec<String> = match self.state.lock() {
            Ok(state) => state.participants.iter().cloned().collect(),
            Err(_) => return Err(Cancelled),
        };
        self.wait_for(&everyone, index, cancel)
    }

    /// Those of `hosts` a pipelined stage of index `index` still waits for: taking part in the
    /// run, not gone, and not yet at the stage.
    pub(crate) fn behind(&self, hosts: &[String], index: u64) -> Vec<String> {
        let Ok(state) = self.state.lock() else {
            return Vec::new();
        };
        hosts
            .iter()
            .filter(|host| !state.ready(host, index))
            .cloned()
            .collect()
    }

    /// Waits until each of `hosts` that takes part in the run has reached stage `index` (so
    /// finished the stages before it) or left the run.
    pub(crate) fn wait_for(
        &self,
        hosts: &[String],
        index: u64,
        cancel: &Cancel,
    ) -> Result<(), Cancelled> {
        let Ok(mut state) = self.state.lock() else {
            return Err(Cancelled);
        };
        loop {
            if hosts.iter().all(|host| state.ready(host, index)) {
                return Ok(());
            }
            cancel.check()?;
            state = match self.wake.wait_timeout(state, Duration::from_millis(100)) {
                Ok((state, _)) => state,
                Err(_) => return Err(Cancelled),
            };
        }
    }
}

impl ProgressState {
    /// Whether nobody waits for `host` at stage `index`: it takes no part, left, or reached it.
    fn ready(&self, host: &str, index: u64) -> bool {
        !self.participants.contains(host)
            || self.gone.contains(host)
            || self.reached.get(host).is_some_and(|r| *r >= index)
    }
}

/// A host's place in the run's progress, given up when dropped.
#[derive(Debug)]
pub(crate) struct ProgressDeparture<'a>(&'a StageProgress, String);

impl Drop for ProgressDeparture<'_> {
    fn drop(&mut self) {
        self.0.leave(&self.1);
    }
}

/// The hosts a member's var `var` names: one host name, or an array of them; `None` when the
/// host has no such var (nor one whose name is close to it), so it waits for every host. `Err`
/// says what is wrong with the var, in the runbook's words.
pub(crate) fn dependencies(
    host: &str,
    vars: &BTreeMap<String, serde_json::Value>,
    var: &str,
) -> Result<Option<Vec<String>>, String> {
    let Some(value) = vars.get(var) else {
        return match crate::inventory::closest(var, vars.keys().map(String::as_str)) {
            Some(near) => Err(format!(
                "`after {var}`: {host} has no var `{var}`: did you mean `{near}`? (it names the hosts {host} waits for)"
            )),
            None => Ok(None),
        };
    };
    let names = match value {
        serde_json::Value::String(name) => vec![name.clone()],
        serde_json::Value::Array(items) => items
            .iter()
            .map(|item| item.as_str().map(str::to_owned))
            .collect::<Option<Vec<_>>>()
            .unwrap_or_default(),
        _ => Vec::new(),
    };
    if names.is_empty() {
        return Err(format!(
            "`after {var}`: {host}'s var `{var}` is {value}, not a host name or an array of host names"
        ));
    }
    Ok(Some(names))
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn a_host_waits_for_its_dependency_to_reach_the_stage_and_no_longer() {
        let progress = Arc::new(StageProgress::new(names(&["esx01", "esx02", "vm01"])));
        let cancel = Cancel::default();
        progress.reach("esx01", 2);
        let waiter = {
            let (progress, cancel) = (progress.clone(), cancel.clone());
            std::thread::spawn(move || progress.wait_for(&names(&["esx01"]), 3, &cancel))
        };
        std::thread::sleep(Duration::from_millis(150));
        assert!(!waiter.is_finished(), "esx01 has not finished stage 2 yet");
        // esx02 is far behind, and vm01 does not wait for it.
        progress.reach("esx01", 3);
        assert_eq!(waiter.join().ok(), Some(Ok(())));
    }

    #[test]
    fn behind_names_only_the_hosts_still_short_of_the_stage() {
        let progress = StageProgress::new(names(&["esx01", "esx02", "esx03", "vm01"]));
        progress.reach("esx01", 3);
        progress.reach("esx02", 2);
        progress.leave("esx03");
        let asked = names(&["esx01", "esx02", "esx03", "vcenter"]);
        assert_eq!(progress.behind(&asked, 3), names(&["esx02"]));
        assert_eq!(progress.behind(&asked, 2), Vec::<String>::new());
    }

    #[test]
    fn a_dependency_that_left_or_takes_no_part_holds_nobody() {
        let progress = StageProgress::new(names(&["esx01", "vm01"]));
        let cancel = Cancel::default();
        assert_eq!(progress.wait_for(&names(&["vcenter"]), 5, &cancel), Ok(()));
        progress.leave("esx01");
        assert_eq!(progress.wait_for(&names(&["esx01"]), 5, &cancel), Ok(()));
    }

    #[test]
    fn a_host_without_the_var_waits_for_every_host_of_the_run() {
        let progress = Arc::new(StageProgress::new(names(&["esx01", "esx02", "vm01"])));
        let cancel = Cancel::default();
        progress.reach("vm01", 3);
        progress.reach("esx01", 3);
        let waiter = {
            let (progress, cancel) = (progress.clone(), cancel.clone());
            std::thread::spawn(move || progress.wait_for_everyone(3, &cancel))
        };
        std::thread::sleep(Duration::from_millis(150));
        assert!(!waiter.is_finished(), "esx02 has not finished stage 2 yet");
        progress.reach("esx02", 3);
        assert_eq!(waiter.join().ok(), Some(Ok(())));
    }

    #[test]
    fn cancel_ends_the_wait() {
        let progress = StageProgress::new(names(&["esx01"]));
        let cancel = Cancel::default();
        cancel.cancel();
        assert_eq!(
            progress.wait_for(&names(&["esx01"]), 2, &cancel),
            Err(Cancelled)
        );
    }

    #[test]
    fn a_missing_or_wrong_var_is_named_with_a_did_you_mean() {
        let mut vars = BTreeMap::new();
        vars.insert("esxi_host".to_owned(), serde_json::json!("esx01"));
        vars.insert("roce_prefix".to_owned(), serde_json::json!(24));
        assert_eq!(
            dependencies("vm01", &vars, "esxi_host"),
            Ok(Some(names(&["esx01"])))
        );
        assert_eq!(dependencies("vm01", &vars, "hypervisor"), Ok(None));
        let missing = dependencies("vm01", &vars, "esxi_hots")
            .err()
            .unwrap_or_default();
        assert!(missing.contains("did you mean `esxi_host`?"), "{missing}");
        let wrong = dependencies("vm01", &vars, "roce_prefix")
            .err()
            .unwrap_or_default();
        assert!(wrong.contains("not a host name"), "{wrong}");
    }
}
