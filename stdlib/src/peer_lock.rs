//! Taking another host's transport from inside an action, which holds its own host's transport
//! for its whole span. Two host actions that each need the other's host (two host stages running
//! a test with themselves as one end) would wait for each other forever, and a host that is its
//! own peer would wait for itself: such a wait is refused with an error instead. Waits that end
//! (a peer busy with a long action of its own, a reboot) are waited out, cancellably.

use std::collections::BTreeMap;
use std::sync::{Mutex, MutexGuard, PoisonError, TryLockError};
use std::time::Duration;

use cairn_runtime::{ActionError, RunShared, Transport};

/// Who waits for whose transport, per run: (run, waiting host) → wanted host.
static WAITS: Mutex<BTreeMap<(usize, String), String>> = Mutex::new(BTreeMap::new());

/// The transport of `peer`, locked, for an action of `holder` (the host whose transport the
/// action holds; `None` when it holds none).
pub(crate) fn lock<'a>(
    shared: &'a RunShared,
    holder: Option<&str>,
    peer: &str,
    what: &str,
) -> Result<MutexGuard<'a, Box<dyn Transport>>, ActionError> {
    let transport = shared
        .transports
        .get(peer)
        .ok_or_else(|| ActionError::Failed(format!("`{peer}` is not a host of this run")))?;
    if holder == Some(peer) {
        return Err(ActionError::WouldDeadlock {
            what: format!("{what} on `{peer}` would wait for `{peer}` itself"),
            help: format!("name another host than `{peer}` as its peer"),
        });
    }
    let run = std::ptr::from_ref(shared) as usize;
    let mut pause = Duration::from_millis(2);
    loop {
        match transport.try_lock() {
            Ok(guard) => {
                forget(run, holder);
                return Ok(guard);
            }
            Err(TryLockError::Poisoned(_)) => {
                forget(run, holder);
                return Err(ActionError::Failed(format!(
                    "the transport of `{peer}` broke"
                )));
            }
            Err(TryLockError::WouldBlock) => {}
        }
        if let Some(holder) = holder
            && let Some(cycle) = wait(run, holder, peer)
        {
            return Err(ActionError::WouldDeadlock {
                what: format!(
                    "{what}: `{holder}` waits for `{peer}`, whose own action waits for {cycle}"
                ),
                help: "run tests between hosts from an `on controller` stage, or from one host's \
                       stage at a time, so no two hosts' actions need each other"
                    .into(),
            });
        }
        if let Err(cancelled) = shared.cancel.check() {
            forget(run, holder);
            return Err(cancelled.into());
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(50));
    }
}

/// Records that `holder` waits for `peer`; if that closes a cycle back to `holder`, withdraws
/// the wait and returns the chain (`` `b`, which waits for `a` ``).
fn wait(run: usize, holder: &str, peer: &str) -> Option<String> {
    let mut waits = WAITS.lock().unwrap_or_else(PoisonError::into_inner);
    waits.insert((run, holder.to_owned()), peer.to_owned());
    let mut chain = Vec::new();
    let mut current = peer.to_owned();
    while let Some(next) = waits.get(&(run, current.clone())) {
        chain.push(format!("`{next}`"));
        if next == holder {
            waits.remove(&(run, holder.to_owned()));
            return Some(chain.join(", which waits for "));
        }
        if chain.len() > waits.len() {
            break;
        }
        current.clone_from(next);
    }
    None
}

fn forget(run: usize, holder: Option<&str>) {
    if let Some(holder) = holder {
        WAITS
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&(run, holder.to_owned()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wait_that_closes_a_cycle_is_refused_and_withdrawn() {
        let run = usize::MAX - 1;
        assert_eq!(wait(run, "a", "b"), None);
        assert_eq!(wait(run, "c", "a"), None);
        assert_eq!(
            wait(run, "b", "c").as_deref(),
            Some("`a`, which waits for `b`")
        );
        // b's wait was withdrawn: a chain ending at b is no cycle for anyone else.
        assert_eq!(wait(run, "d", "b"), None);
        forget(run, Some("a"));
        forget(run, Some("c"));
        forget(run, Some("d"));
        // Another run's waits are its own.
        assert_eq!(wait(run - 1, "b", "a"), None);
        forget(run - 1, Some("b"));
    }
}
