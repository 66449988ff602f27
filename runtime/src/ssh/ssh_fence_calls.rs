//! The SSH transport's calls through the host fence: a changing command's command line
//! wrapped in `fence.sh` (`ssh_fence.rs`), after the fence folder's check, once per host.

use std::time::Duration;

use super::SshTransport;
use super::command_line::command_line;
use super::ssh_transport::refused;
use crate::{ExecRequest, TransportError};

impl SshTransport {
    /// The command line `request` runs as: under the host's fence when it carries a step and
    /// the host is fenced (the folder checked first, once), else as it is.
    pub(super) fn line_for(&mut self, request: &ExecRequest) -> Result<String, TransportError> {
        let become_root = self.options.become_root;
        let plain = |become_root| {
            command_line(&request.argv, become_root).map_err(super::SshError::into_transport)
        };
        let Some(step) = &request.fence else {
            return plain(become_root);
        };
        let wrapped = self
            .options
            .fence
            .wrap(step, &plain(false)?, become_root)
            .map_err(super::SshError::into_transport)?;
        match wrapped {
            Some(line) => {
                self.check_fence()?;
                Ok(line)
            }
            None => plain(become_root),
        }
    }

    /// Checks once that the host's fence folder can keep the fence; a host that cannot is
    /// refused ([`TransportError::Refused`]) before anything runs under it.
    pub(super) fn check_fence(&mut self) -> Result<(), TransportError> {
        if self.fence_checked {
            return Ok(());
        }
        let Some(line) = self
            .options
            .fence
            .check_line(self.options.become_root)
            .map_err(super::SshError::into_transport)?
        else {
            return Ok(());
        };
        let request = ExecRequest {
            timeout: Some(Duration::from_secs(60)),
            ..ExecRequest::new(["cairn-fence", "check"])
        };
        let output = self.exec_line(&line, &request)?;
        self.options
            .fence
            .judge_check(&self.name, &output)
            .map_err(|error| refused(&self.name, &error))?;
        self.fence_checked = true;
        Ok(())
    }
}
