//! Pruning the host fence's records of this run once the host's part of it ended done: every
//! outcome is journaled then, so no resume asks the fence about them, and its three files per
//! changing command would otherwise stay on the host for good (docs/fleet.md, "Fencing on the
//! host").

use super::HostContext;
use crate::RunEvent;

impl HostContext {
    /// Removes this run's step records from the host's fence, once the host's last record is
    /// journaled and the host ended done. A prune that fails or is refused (another controller
    /// holds the host now) leaves the records, which only take room: a warning. A host the
    /// run took no action on (no stage of the runbook is on it) is not contacted.
    pub fn prune_fence(&self) {
        let Some((epoch, owner)) = &self.fence_lease else {
            return;
        };
        let acted = self.state().seq > 0 || !self.recorded.is_empty();
        if self.shared.options.check || !acted {
            return;
        }
        let run = self.run_id();
        let pruned = self
            .transport
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .fence_prune(*epoch, owner, &run);
        if let Err(error) = pruned {
            self.shared.events.send(RunEvent::Warning {
                host: self.info.name.clone(),
                message: format!(
                    "its fence keeps this run's step records, which only take room: {error}"
                ),
            });
        }
    }
}
