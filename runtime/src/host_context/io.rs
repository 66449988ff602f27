//! The host context as a running action's [`HostIo`](crate::HostIo) sees it.

use std::sync::{Arc, Mutex};

use serde_json::Value;

use crate::host_io::ActionHost;
use crate::{ActionError, Cancel, HostContext, RunShared, Transport};

impl ActionHost for HostContext {
    fn shared(&self) -> &RunShared {
        &self.shared
    }

    fn name(&self) -> &str {
        &self.info.name
    }

    fn interrupt(&self) -> Option<Cancel> {
        HostContext::interrupt(self)
    }

    fn redact_text(&self, text: &str) -> String {
        HostContext::redact_text(self, text)
    }

    fn record_progress(&self, seq: u64, data: Value) -> Result<(), ActionError> {
        HostContext::record_progress(self, seq, data)
    }

    fn record_progress_all(&self, seq: u64, data: Vec<Value>) -> Result<(), ActionError> {
        HostContext::record_progress_all(self, seq, data)
    }

    fn transport(&self) -> &Arc<Mutex<Box<dyn Transport>>> {
        HostContext::transport(self)
    }

    fn fence_lease(&self) -> Option<(u64, String)> {
        self.fence_lease.clone()
    }

    fn run_id(&self) -> String {
        HostContext::run_id(self)
    }
}
