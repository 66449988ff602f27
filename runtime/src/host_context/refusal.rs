//! A host refused before its first action: what its transport finds wrong before anything runs
//! (a changed host key, a fence folder that cannot keep the fence) fails the host there, as the
//! host's refusal (`cairn::runtime::host_refused`), not as its runbook's first action failing.

use super::{HostContext, Mode, Role};
use crate::TransportError;

impl HostContext {
    /// Asks the host's transport ([`crate::Transport::prepare`]) whether it refuses the host;
    /// fenced when this run's lease gives the fence an epoch (not in a check). The executor
    /// turns a refusal into the host's failure (`HostFailure::refused`).
    pub(crate) fn refuse_before_first_action(&self) -> Result<(), TransportError> {
        if self.role != Role::Host || self.mode != Mode::Live {
            return Ok(());
        }
        if let Some(refusal) = self.shared.take_refusal(&self.info.name) {
            return Err(refusal);
        }
        let fenced = self.fence_lease.is_some() && !self.shared.options.check;
        self.transport
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .prepare(fenced)
    }
}
