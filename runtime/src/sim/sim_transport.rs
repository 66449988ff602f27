//! The `sim:` transport: a [`SimHost`] in this process.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use super::{SimError, SimHost, SimModel};
use crate::{Clock, ExecOutput, ExecRequest, Transport, TransportError};

/// Reaches one simulated host, whose state lives in its directory (by convention
/// `.cairn/sim/<host>/`).
#[derive(Debug)]
pub struct SimTransport {
    host: SimHost,
}

impl SimTransport {
    /// Opens (or creates and boots) the simulated host `host_name` of `model`, with the options
    /// of its `sim:` address (`reboot_secs`, `clock`, faults, and the model's tools' own).
    pub fn new(
        host_name: &str,
        state_dir: impl Into<PathBuf>,
        model: Arc<SimModel>,
        options: BTreeMap<String, String>,
    ) -> Result<Self, SimError> {
        Ok(Self {
            host: SimHost::open(host_name, state_dir, model, options)?,
        })
    }

    /// The simulated host behind this transport.
    pub fn host(&self) -> &SimHost {
        &self.host
    }
}

impl Transport for SimTransport {
    fn exec(&mut self, request: &ExecRequest) -> Result<ExecOutput, TransportError> {
        self.host.exec(request)
    }

    fn fence_record(&self, step: &str) -> Result<Option<crate::fence::StepRecord>, TransportError> {
        self.host
            .fence_record(step)
            .map_err(|e| TransportError::Io {
                context: format!("cannot read the fence of `{}`", self.host.name()),
                source: std::io::Error::other(e.to_string()),
            })
    }

    fn fence_claim(&mut self, epoch: u64, owner: &str) -> Result<(), TransportError> {
        match self.host.fence_claim(epoch, owner) {
            Ok(Ok(())) => Ok(()),
            Ok(Err(said)) => Err(crate::fence::claim_refused(self.host.name(), said)),
            Err(e) => Err(TransportError::Io {
                context: format!("cannot claim the fence of `{}`", self.host.name()),
                source: std::io::Error::other(e.to_string()),
            }),
        }
    }

    fn fence_prune(&mut self, epoch: u64, owner: &str, run: &str) -> Result<u64, TransportError> {
        match self.host.fence_prune(epoch, owner, run) {
            Ok(Ok(pruned)) => Ok(pruned),
            Ok(Err(said)) => Err(crate::fence::prune_refused(self.host.name(), said)),
            Err(e) => Err(TransportError::Io {
                context: format!("cannot prune the fence of `{}`", self.host.name()),
                source: std::io::Error::other(e.to_string()),
            }),
        }
    }

    fn clock(&self) -> Clock {
        self.host.clock()
    }

    fn describe(&self) -> String {
        format!("sim:{}", self.host.model().name)
    }

    /// A simulated host is its state folder: the same name in two working folders is two hosts.
    fn identity(&self) -> Option<String> {
        let dir = self.host.dir();
        let dir = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_owned());
        Some(format!("sim:{}", dir.display()))
    }
}
