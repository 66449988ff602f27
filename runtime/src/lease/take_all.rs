//! Taking the leases of every host a run acts on, before it acts on any.
//!
//! Leases are taken in the order of their identities, so two runs that wait for each other's
//! hosts (`--wait-for-hosts`) take them in the same order and cannot wait in a circle.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use super::{HeldLease, Holder, LeaseError, LeaseStore, Taken};
use crate::Cancel;

/// How often a run waiting for a held host tries again.
const WAIT_POLL: Duration = Duration::from_millis(500);

/// The leases a run holds, by host: hosts that are one machine (two names for `local`) share.
#[derive(Debug, Default)]
pub struct RunLeases {
    /// Each host's lease; dropping the last holder of one gives it back.
    pub by_host: BTreeMap<String, Arc<dyn HeldLease>>,
    /// Hosts whose lease was taken from a holder that died holding it.
    pub taken_over: Vec<(String, Holder)>,
}

/// Why a run could not take its hosts.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum TakeError {
    /// Other runs hold some of the hosts.
    #[error("{}", held_lines(.0))]
    #[diagnostic(
        code(cairn::runtime::host_held),
        help(
            "nothing was run on any host; `--wait-for-hosts` waits for them instead (docs/fleet.md)"
        )
    )]
    Held(Vec<(String, Holder)>),
    /// The lease store failed.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Store(#[from] LeaseError),
    /// The run was stopped while it waited.
    #[error(transparent)]
    Cancelled(#[from] crate::Cancelled),
}

fn held_lines(held: &[(String, Holder)]) -> String {
    held.iter()
        .map(|(host, holder)| {
            format!(
                "{host} is held by {}; wait, or resume that run",
                holder.describe()
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Takes the lease of every `(host, identity)`. Without `wait`, any held host refuses the whole
/// run (and every lease taken is given back); with it, each held host is waited for, and
/// `waiting` is told each time the host or its holder it waits for changes.
pub fn take_all(
    store: &dyn LeaseStore,
    hosts: &[(String, String)],
    holder: &Holder,
    wait: bool,
    cancel: &Cancel,
    waiting: &dyn Fn(&str, &Holder),
) -> Result<RunLeases, TakeError> {
    let mut by_identity: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (host, identity) in hosts {
        by_identity.entry(identity).or_default().push(host);
    }
    let mut leases = RunLeases::default();
    let mut held = Vec::new();
    // Without waiting, every lease is tried once: all of them at once. Waiting keeps one at a
    // time, so that a run never holds a lease past the one it waits for.
    let mut at_once = if wait {
        None
    } else {
        let identities: Vec<&str> = by_identity.keys().copied().collect();
        Some(store.try_take_each(&identities, holder)?.into_iter())
    };
    for (identity, names) in by_identity {
        let take = match at_once.as_mut().and_then(Iterator::next) {
            Some(taken) => settled(taken),
            None => take_one(store, identity, names[0], holder, wait, cancel, waiting)?,
        };
        match take {
            Ok((lease, from)) => {
                if let Some(from) = from {
                    let taken = names.iter().map(|n| ((*n).to_owned(), from.clone()));
                    leases.taken_over.extend(taken);
                }
                for name in names {
                    leases.by_host.insert(name.to_owned(), lease.clone());
                }
            }
            Err(by) => held.extend(names.iter().map(|n| ((*n).to_owned(), by.clone()))),
        }
    }
    if held.is_empty() {
        Ok(leases)
    } else {
        Err(TakeError::Held(held))
    }
}

/// A take tried once: `Ok` with the lease and the dead holder it was taken from, or `Err`
/// with who holds it.
#[allow(clippy::type_complexity)]
fn settled(taken: Taken) -> Result<(Arc<dyn HeldLease>, Option<Holder>), Holder> {
    match taken {
        Taken::Free(lease) => Ok((Arc::from(lease), None)),
        Taken::TakenOver(lease, from) => Ok((Arc::from(lease), Some(from))),
        Taken::Held(by) => Err(by),
    }
}

/// One lease: `Ok` with the lease and the dead holder it was taken from, or `Err` with who
/// holds it (never, when waiting: then it waits until the lease is free or the run stops).
#[allow(clippy::type_complexity)]
fn take_one(
    store: &dyn LeaseStore,
    identity: &str,
    host: &str,
    holder: &Holder,
    wait: bool,
    cancel: &Cancel,
    waiting: &dyn Fn(&str, &Holder),
) -> Result<Result<(Arc<dyn HeldLease>, Option<Holder>), Holder>, TakeError> {
    let mut shown: Option<Holder> = None;
    loop {
        match store.try_take(identity, holder)? {
            Taken::Free(lease) => return Ok(Ok((Arc::from(lease), None))),
            Taken::TakenOver(lease, from) => return Ok(Ok((Arc::from(lease), Some(from)))),
            Taken::Held(by) if wait => {
                if shown.as_ref() != Some(&by) {
                    waiting(host, &by);
                    shown = Some(by);
                }
                crate::Clock::Real.sleep(WAIT_POLL, cancel)?;
            }
            Taken::Held(by) => return Ok(Err(by)),
        }
    }
}
