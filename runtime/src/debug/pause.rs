//! What passes between a runbook paused by the debugger and the prompt that drives it: the
//! runbook's thread sends a [`Pause`] and blocks until the prompt answers with a [`Resume`].

use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex};

use rhai::Dynamic;
use serde_json::Value;

use crate::{Breakpoint, CallSite, HostInfo, Transport};

/// The host a runbook stops on, as the debugger needs it: who it is, how the prompt reaches
/// it, and the runbook file its breakpoints' lines are in. The host context lends it, so the
/// debugger knows no host context.
#[derive(Clone, Copy)]
pub(crate) struct StopHost<'a> {
    /// The host.
    pub(crate) info: &'a HostInfo,
    /// The runbook file, as call sites name it.
    pub(crate) runbook_file: &'a str,
    /// The host's transport.
    pub(crate) transport: &'a Arc<Mutex<Box<dyn Transport>>>,
}

/// Where a paused runbook stands.
#[derive(Debug, Clone, PartialEq)]
pub struct PausePoint {
    /// The action about to run (or that failed), as a one-line summary; `None` at a stage's start.
    pub action: Option<String>,
    /// The action's number in this host's run.
    pub seq: Option<u64>,
    /// Where in the runbook.
    pub site: CallSite,
    /// The stage.
    pub stage: String,
}

/// Why the runbook paused.
#[derive(Debug, Clone, PartialEq)]
pub enum PauseReason {
    /// A breakpoint was reached.
    Breakpoint(Breakpoint),
    /// The action failed with this error.
    Failed(String),
    /// `:next`: a stage begins.
    Stage,
    /// `:step`: an action is next.
    Step,
}

/// The prompt's answer to a pause.
#[derive(Debug, Clone, PartialEq)]
pub enum Resume {
    /// Stop: a failed action fails the host as it would have; elsewhere the host stops.
    Abort,
    /// Run to the next breakpoint or the end.
    Continue,
    /// Run to the start of the next stage.
    Next,
    /// Run the failed action again.
    Retry,
    /// Record the failed action as done, returning this value.
    Skip(Value),
    /// Run up to the next action.
    Step,
}

/// A runbook waiting for the prompt.
pub struct Pause {
    /// What `:skip` records when given no value: what `--assume done` records for the builtin.
    pub assumed: Value,
    /// The host.
    pub host: HostInfo,
    /// Where.
    pub point: PausePoint,
    /// Why.
    pub reason: PauseReason,
    /// The host's transport, so the prompt can act on the same host while the runbook waits.
    pub transport: Arc<Mutex<Box<dyn Transport>>>,
    /// The runbook's variables in scope, as last seen; `None` where they are not tracked (a
    /// run's failure: tracking would cost every host on every variable read).
    pub vars: Option<Vec<(String, Dynamic)>>,
    pub(crate) reply: Sender<Resume>,
}

impl Pause {
    /// Whether an action failed here (so `:retry`, `:skip` and `:abort` apply).
    pub fn failed(&self) -> bool {
        matches!(self.reason, PauseReason::Failed(_))
    }

    /// Whether `answer` applies here: retry and skip answer a failed action, and a failed action
    /// takes nothing else; abort applies anywhere.
    pub fn check(&self, answer: &Resume) -> Result<(), &'static str> {
        match (self.failed(), answer) {
            (_, Resume::Abort) | (true, Resume::Retry | Resume::Skip(_)) => Ok(()),
            (true, _) => Err("the action failed: :retry, :skip [VALUE] or :abort"),
            (false, Resume::Retry | Resume::Skip(_)) => {
                Err("no action failed here: :retry and :skip answer a failed action")
            }
            (false, _) => Ok(()),
        }
    }

    /// Lets the runbook go on as `answer` says.
    pub fn resume(self, answer: Resume) {
        // The runbook's thread may have gone (a stopped run); then there is nobody to tell.
        let _ = self.reply.send(answer);
    }
}

impl std::fmt::Debug for Pause {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pause")
            .field("host", &self.host.name)
            .field("point", &self.point)
            .field("reason", &self.reason)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use serde_json::json;

    use super::*;

    fn pause(reason: PauseReason) -> Pause {
        let (reply, _) = std::sync::mpsc::channel();
        Pause {
            assumed: Value::Null,
            host: HostInfo {
                groups: Vec::new(),
                name: "h".into(),
                vars: BTreeMap::new(),
            },
            point: PausePoint {
                action: None,
                seq: None,
                site: CallSite {
                    column: 1,
                    file: "book.rhai".into(),
                    line: 1,
                    callers: Vec::new(),
                },
                stage: "s".into(),
            },
            reason,
            transport: Arc::new(Mutex::new(Box::new(crate::LocalTransport))),
            vars: None,
            reply,
        }
    }

    #[test]
    fn a_failed_action_takes_only_retry_skip_or_abort() {
        let failed = pause(PauseReason::Failed("boom".into()));
        assert!(failed.check(&Resume::Retry).is_ok());
        assert!(failed.check(&Resume::Skip(json!(1))).is_ok());
        assert!(failed.check(&Resume::Abort).is_ok());
        assert!(failed.check(&Resume::Step).is_err());
        let step = pause(PauseReason::Step);
        assert!(step.check(&Resume::Continue).is_ok());
        assert!(step.check(&Resume::Abort).is_ok());
        assert!(step.check(&Resume::Retry).is_err());
    }
}
