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
            .check_line(self.options.become_root, &self.offered_fence_id())
            .map_err(super::SshError::into_transport)?
        else {
            return Ok(());
        };
        let request = ExecRequest {
            timeout: Some(Duration::from_secs(60)),
            ..ExecRequest::new(["cairn-fence", "check"])
        };
        let output = self.exec_line(&line, &request)?;
        self.fence_id = self
            .options
            .fence
            .judge_check(&self.name, &output)
            .map_err(|error| refused(&self.name, &error))?;
        self.fence_checked = true;
        Ok(())
    }

    /// The id this transport offers a fence folder that has none: unique to the host's name,
    /// this process and this moment, so two folders never get the same one.
    fn offered_fence_id(&self) -> String {
        use sha2::Digest;
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let seed = format!("{}\0{}\0{nanos}", self.name, std::process::id());
        let digest = sha2::Sha256::digest(seed.as_bytes());
        digest[..12].iter().map(|b| format!("{b:02x}")).collect()
    }
}
