//! The steps between a run's checks and its hosts' threads: the hosts' leases, the state the
//! instances share (what a resume carries over into it), and every journal begun before any
//! host is touched.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use super::{NotOpened, Participant, Plan, RunError, RunHost};
use crate::CONTROLLER;
use crate::journal::{
    HostJournal, JOURNAL_VERSION, JournalEvent, JournalSet, JournalWriter, ResumeRecord, RunHeader,
    now_millis,
};
use crate::{
    Cancel, EventSink, HostInfo, Outline, Role, RunEvent, RunOptions, RunShared, Transport,
};

/// Takes the lease of every host the run acts on, before it acts on any (docs/fleet.md). A new
/// run refused for a held host leaves no run folder behind, so `cairn resume` finds the run
/// that holds it, not this one.
pub(super) fn take_leases(
    participants: &[Participant],
    plan: &Plan,
    options: &RunOptions,
    cancel: &Cancel,
    events: &EventSink,
    resume: bool,
) -> Result<crate::lease::RunLeases, RunError> {
    let hosts: Vec<(String, String)> = participants
        .iter()
        .filter(|(_, role, _)| *role == Role::Host)
        .filter_map(|(info, _, transport)| Some((info.name.clone(), transport.identity()?)))
        .collect();
    let run_dir = plan.run_dir.as_path();
    let state_dir = run_dir
        .parent()
        .and_then(std::path::Path::parent)
        .unwrap_or(run_dir);
    let holder = crate::lease::Holder::this_process(&plan.run_id, state_dir);
    let waiting = |host: &str, by: &crate::lease::Holder| {
        events.send(RunEvent::Warning {
            host: host.to_owned(),
            message: format!("waiting: {host} is held by {}", by.describe()),
        });
    };
    let folder = options.lease_dir.as_deref().map_or_else(
        crate::lease::FolderLeases::from_env,
        crate::lease::FolderLeases::at,
    );
    let store: &dyn crate::lease::LeaseStore = match &options.shared_store {
        Some(shared) => shared.leases(),
        None => &folder,
    };
    let taken = crate::lease::take_all(
        store,
        &hosts,
        &holder,
        options.wait_for_hosts,
        cancel,
        &waiting,
    );
    if taken.is_err() && !resume {
        let _ = std::fs::remove_dir_all(run_dir);
    }
    Ok(taken?)
}

/// A participant with its shared transport, ready for its journal.
pub(super) type Instance = (HostInfo, Role, Arc<Mutex<Box<dyn Transport>>>);

/// A participant whose journal is begun: what its instance replays from and appends to.
pub(super) type Begun = (
    HostInfo,
    Role,
    Arc<Mutex<Box<dyn Transport>>>,
    HostJournal,
    Option<JournalWriter>,
);

/// The state the instances share, with what the journals of a resume carry into it (the
/// budget places of hosts left in maintenance mode, what hosts published) and every
/// transport, the helpers' too, so the controller can reach any host.
pub(super) fn share(
    mut shared: RunShared,
    recorded: &BTreeMap<String, HostJournal>,
    helpers: Vec<RunHost>,
    participants: Vec<Participant>,
) -> (Arc<RunShared>, Vec<Instance>) {
    // The budget survives a resume: a host its journal left in maintenance mode holds its
    // place from the start.
    for (host, journal) in recorded {
        let left_in_maintenance = journal
            .actions
            .values()
            .filter(|a| a.intent.builtin == "esxcli::maintenance_mode_set")
            .filter_map(|a| a.outcome.as_ref().filter(|o| o.ok))
            .filter_map(|o| o.result.get("enabled").and_then(serde_json::Value::as_bool))
            .next_back()
            .unwrap_or(false);
        if left_in_maintenance {
            shared.budget.resume_in_maintenance(host);
        }
    }
    // A share of a shared run: the store's budget places of its hosts are what their
    // journals say, whoever drove them before.
    let names: Vec<String> = participants.iter().map(|p| p.0.name.clone()).collect();
    let down = |host: &str| recorded.get(host).is_some_and(left_down);
    shared.budget.settle_fleet_places(&names, &down);
    for (host, journal) in recorded {
        let published = journal.published();
        if let Ok(mut all) = shared.published.lock() {
            all.insert(host.clone(), published);
        }
    }
    for helper in helpers {
        let host = helper.info.name.clone();
        let transport = helper
            .transport
            .unwrap_or_else(|error| Box::new(NotOpened::new(host, error)));
        shared
            .transports
            .insert(helper.info.name, Arc::new(Mutex::new(transport)));
    }
    shared.progress =
        crate::pipeline::StageProgress::new(participants.iter().map(|p| p.0.name.clone()));
    let mut instances = Vec::new();
    for (info, role, transport) in participants {
        let transport = Arc::new(Mutex::new(transport));
        shared
            .transports
            .insert(info.name.clone(), transport.clone());
        instances.push((info, role, transport));
    }
    (Arc::new(shared), instances)
}

/// Whether a journal leaves its host down for the budget's place in the store: in a reboot
/// it sent (its progress records the boot id it left) and never saw end, or having declared
/// itself unavailable (`unavailable()`, `available()`). A reboot journaled and still waiting
/// for its place was never sent: that host is up, and must not hold a place it would then
/// find already its own.
fn left_down(journal: &HostJournal) -> bool {
    let mut down = false;
    for action in journal.actions.values() {
        match action.intent.builtin.as_str() {
            "reboot" | "reboot_if_pending"
                if action.outcome.is_none() && !action.progress.is_empty() =>
            {
                down = true;
            }
            "unavailable" => down = true,
            "available" => down = false,
            _ => {}
        }
    }
    down
}

/// Begins every journal before any host is touched, and run.json then says so: from then on a
/// missing or headerless journal was lost, not "not started yet". A host whose journal cannot
/// be opened (a name the file system refuses, too many open files) fails the run before
/// anything runs, instead of leaving the hosts already started waiting for it at the first
/// barrier. A host whose lease was taken from a dead holder journals that first.
pub(super) fn begin_journals(
    plan: &Plan,
    shared: &RunShared,
    instances: Vec<Instance>,
    recorded: &mut BTreeMap<String, HostJournal>,
    journals: &mut JournalSet,
    leases: &mut crate::lease::RunLeases,
) -> Result<Vec<Begun>, RunError> {
    let header = |host: &str| RunHeader {
        at: now_millis(),
        host: host.to_owned(),
        hosts: plan.host_infos.iter().map(|h| h.name.clone()).collect(),
        inventory: plan.inventory.clone(),
        params: plan.params.shown(),
        run_id: plan.run_id.clone(),
        runbook: plan.runbook.name(),
        runbook_hash: plan.runbook.hash.clone(),
        version: JOURNAL_VERSION,
    };
    if !shared.options.check {
        put_meta(plan, shared)?;
        open_fleet(plan, shared)?;
    }
    let mut begun = Vec::new();
    for (info, role, transport) in instances {
        let path = plan.journal_path(&info.name);
        let journal = recorded.remove(&info.name).unwrap_or_default();
        let writer = if shared.options.check {
            None
        } else {
            let mut writer = match journals.take(&info.name) {
                Some(writer) => writer,
                None => JournalWriter::open(&path)?,
            };
            attach_store(plan, shared, leases, &info.name, &mut writer)?;
            let first = match journal.header {
                None => JournalEvent::Header(header(&info.name)),
                Some(_) => JournalEvent::Resume(ResumeRecord { at: now_millis() }),
            };
            writer.append(&first, true)?;
            if let Some(index) = leases.taken_over.iter().position(|(h, _)| *h == info.name) {
                let (_, from) = leases.taken_over.swap_remove(index);
                let mut held = transport
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                claim_fence(plan, shared, leases, &info.name, held.as_mut())?;
                drop(held);
                shared.events.send(RunEvent::Warning {
                    host: info.name.clone(),
                    message: format!(
                        "took the host over from {}: that process ended while it held the host",
                        from.describe()
                    ),
                });
                let record = crate::journal::LeaseRecord {
                    at: now_millis(),
                    taken_over_from: from,
                };
                writer.append(&JournalEvent::Lease(record), true)?;
            }
            Some(writer)
        };
        begun.push((info, role, transport, journal, writer));
    }
    if !shared.options.check {
        crate::run::run_folders::mark_begun(&plan.run_dir)?;
        put_meta(plan, shared)?;
    }
    Ok(begun)
}

/// Raises the fence of `host`, just taken over from a dead holder, to this run's epoch before
/// anything runs: the holder, if it was only paused (a controller stopped, or cut off, past
/// its TTL), is refused by the host itself from now on, even for a command it had journaled
/// and not yet sent, and not only once this run's first command reaches the host. A host that
/// does not answer now is claimed by that first command, as before; one whose fence has seen a
/// higher epoch stops the run before anything runs.
fn claim_fence(
    plan: &Plan,
    shared: &RunShared,
    leases: &crate::lease::RunLeases,
    host: &str,
    transport: &mut dyn crate::Transport,
) -> Result<(), RunError> {
    let Some((epoch, owner)) = crate::lease::fence_of(&plan.run_id, leases.by_host.get(host))
    else {
        return Ok(());
    };
    match transport.fence_claim(epoch, &owner) {
        Ok(()) => Ok(()),
        Err(error @ crate::TransportError::Refused { .. }) => Err(RunError::Claim(error)),
        Err(error) => {
            shared.events.send(RunEvent::Warning {
                host: host.to_owned(),
                message: format!(
                    "its fence could not be claimed now ({error}); this run's first command on it claims it"
                ),
            });
            Ok(())
        }
    }
}

/// With a shared store, keeps run.json there. The first time stores the run whole, before any
/// journal record: a run id another controller's run has already is refused there, before its
/// records could join that run's journals.
fn put_meta(plan: &Plan, shared: &RunShared) -> Result<(), RunError> {
    let Some(store) = &shared.options.shared_store else {
        return Ok(());
    };
    let path = plan.run_dir.join("run.json");
    let meta = std::fs::read(&path)
        .map_err(|source| crate::journal::JournalError::io(&path, "cannot read", source))?;
    Ok(store.put_meta(&plan.run_id, &meta, &plan.modules)?)
}

/// A new shared run's other shares (`--controllers N`), stored unclaimed once this one is, and
/// before any of its hosts starts, so that `cairn join` finds them: each one's `run.json` is
/// this one's with its own id, share and hosts, not begun.
fn open_fleet(plan: &Plan, shared: &RunShared) -> Result<(), RunError> {
    let (Some(store), Some(fleet)) = (&shared.options.shared_store, &shared.options.fleet) else {
        return Ok(());
    };
    if fleet.others.is_empty() {
        return Ok(());
    }
    let path = plan.run_dir.join("run.json");
    let text = std::fs::read_to_string(&path)
        .map_err(|source| crate::journal::JournalError::io(&path, "cannot read", source))?;
    let first: crate::RunMeta =
        serde_json::from_str(&text).map_err(|error| crate::journal::JournalError::Header {
            path: path.display().to_string(),
            reason: error.to_string(),
        })?;
    let mut shares = Vec::new();
    for (k, (run_id, hosts)) in (2..).zip(&fleet.others) {
        let mut meta = first.clone();
        meta.run_id.clone_from(run_id);
        meta.hosts.clone_from(hosts);
        meta.begun = false;
        if let Some(share) = &mut meta.fleet {
            share.share = k;
        }
        let bytes = serde_json::to_vec_pretty(&meta)
            .map_err(|e| crate::journal::JournalError::io(&path, "cannot encode", e.into()))?;
        shares.push((run_id.clone(), bytes, hosts.len()));
    }
    store.open_fleet(&plan.run_id, plan.host_infos.len(), &shares, &plan.modules)?;
    shared.events.send(RunEvent::Log {
        host: CONTROLLER.into(),
        message: format!(
            "run {} is shared between {} controllers: this one drives share 1 ({} hosts); on each other one: `cairn join --store URL {}`",
            plan.run_id,
            fleet.others.len() + 1,
            plan.host_infos.len(),
            plan.run_id
        ),
    });
    Ok(())
}

/// With a shared store, `host`'s records go there first: fenced by its lease, or (the
/// controller's journal, which no lease covers) by the session alone.
fn attach_store(
    plan: &Plan,
    shared: &RunShared,
    leases: &crate::lease::RunLeases,
    host: &str,
    writer: &mut JournalWriter,
) -> Result<(), RunError> {
    let Some(store) = &shared.options.shared_store else {
        return Ok(());
    };
    let sink = match leases.by_host.get(host) {
        Some(lease) => lease.journal_sink(&plan.run_id, host),
        None => Some(store.unfenced_sink(&plan.run_id, host)?),
    };
    if let Some(sink) = sink {
        writer.attach(sink)?;
    }
    Ok(())
}

/// The run's first event: its hosts, params (secrets redacted) and stages.
pub(super) fn announce_start(plan: &Plan, shared: &RunShared, outline: &Outline, resume: bool) {
    shared.events.send(RunEvent::RunStarted {
        check: shared.options.check,
        hosts: plan.host_infos.iter().map(|h| h.name.clone()).collect(),
        params: plan.params.shown(),
        resume,
        run_id: plan.run_id.clone(),
        runbook: plan.runbook.name(),
        schema: crate::run::event::EVENTS_SCHEMA_VERSION,
        stages: outline.stages.iter().map(|s| s.name.clone()).collect(),
    });
}
