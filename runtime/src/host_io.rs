//! What a builtin's effect gets: the host's transport and clock, and a way to record progress.
//!
//! That is: the transport, the clock, progress records (`ACTING`), check mode, and
//! `exec_on`/`clock_of` another host of the run (a test's server); the instance is reached through
//! the `ActionHost` trait, so this layer imports nothing above it.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use serde_json::Value;

use crate::{ActionError, Cancel, Clock, ExecOutput, ExecRequest, RunShared, Transport};

/// The key of the progress record [`HostIo::acting`] writes.
pub const ACTING: &str = "acting";

/// The key of the progress record a failed `after_reboot` writes before its failure: the
/// change the host did not apply (`what`) and the sequence number of the action that staged
/// it (`seq`), so the report marks that change as not applied.
pub const NOT_APPLIED: &str = "not_applied";

/// What a running action's [`HostIo`] needs of its host's instance. The host context implements
/// it (`host_context/io.rs`): the trait keeps this module below the host context, which makes a
/// `HostIo` for each action it runs.
pub(crate) trait ActionHost {
    /// What every instance of the run shares: options, events, the fork limit, the stop.
    fn shared(&self) -> &RunShared;
    /// The host's name.
    fn name(&self) -> &str;
    /// What stops a running command, if anything does (the REPL's Ctrl-C).
    fn interrupt(&self) -> Option<Cancel>;
    /// `text` with the host's secrets, and the run's, replaced.
    fn redact_text(&self, text: &str) -> String;
    /// Journals a progress record of action `seq`, fsynced.
    fn record_progress(&self, seq: u64, data: Value) -> Result<(), ActionError>;
    /// Journals progress records of action `seq`, fsynced once after the last.
    fn record_progress_all(&self, seq: u64, data: Vec<Value>) -> Result<(), ActionError>;
    /// The host's transport.
    fn transport(&self) -> &Arc<Mutex<Box<dyn Transport>>>;
    /// The epoch and owner of the host's lease, which its fence is told (none: not fenced).
    fn fence_lease(&self) -> Option<(u64, String)>;
    /// The run's id, the first part of a fenced step's id.
    fn run_id(&self) -> String;
}

/// A changing action's calls through the host's fence: its attempt, and how many commands it
/// has run.
struct Fencing {
    epoch: u64,
    owner: String,
    /// When the attempt's intent was journaled, which tells it from other attempts.
    intent_at: u64,
    commands: u64,
}

/// The host, as one running action sees it.
///
/// The host's transport is locked for each command, not for the action's span: an action may
/// also reach other hosts of the run (a test between two hosts), and when each of two hosts' own
/// actions held its host while it needed the other's (or its own again, through the run's
/// transports), both waited forever.
pub struct HostIo<'a> {
    ctx: &'a dyn ActionHost,
    fencing: Option<Fencing>,
    seq: u64,
    transport: &'a Mutex<Box<dyn Transport>>,
}

impl<'a> HostIo<'a> {
    /// The host for action `seq`'s queries (a probe): its commands are not fenced.
    pub(crate) fn new(ctx: &'a dyn ActionHost, seq: u64) -> Result<Self, ActionError> {
        Ok(Self {
            ctx,
            fencing: None,
            seq,
            transport: ctx.transport(),
        })
    }

    /// The host for the attempt of changing action `seq` whose intent was journaled at
    /// `intent_at`: each command goes through the host's fence, when the lease has an epoch.
    pub(crate) fn fenced(
        ctx: &'a dyn ActionHost,
        seq: u64,
        intent_at: u64,
    ) -> Result<Self, ActionError> {
        let mut io = Self::new(ctx, seq)?;
        io.fencing = ctx.fence_lease().map(|(epoch, owner)| Fencing {
            epoch,
            owner,
            intent_at,
            commands: 0,
        });
        Ok(io)
    }

    /// `request` as the fence runs it: with the next step of this attempt.
    fn fence_step(&mut self, request: &mut ExecRequest) {
        let Some(fencing) = self.fencing.as_mut() else {
            return;
        };
        fencing.commands += 1;
        request.fence = Some(crate::fence::FenceStep {
            epoch: fencing.epoch,
            owner: fencing.owner.clone(),
            step: crate::fence::step_id(
                &self.ctx.run_id(),
                self.seq,
                fencing.intent_at,
                fencing.commands,
            ),
        });
    }

    /// The transport, for one command. A command that panicked leaves it usable: the transport
    /// reconnects when its session is broken.
    fn transport(&self) -> MutexGuard<'a, Box<dyn Transport>> {
        self.transport
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Check mode (`cairn run --check`): a builtin may query the host but must change nothing,
    /// and returns the outcome it *would* have (`changed`, `reboot_required`).
    pub fn checking(&self) -> bool {
        self.ctx.shared().options.check
    }

    /// Check mode: a predicted change leaves `key` at `value` for the calls after it
    /// ([`RunShared::predict`]).
    pub fn predict(&self, key: &str, value: Value) {
        self.ctx.shared().predict(key, value);
    }

    /// Check mode: what a predicted change left `key` at.
    pub fn predicted(&self, key: &str) -> Option<Value> {
        self.ctx.shared().predicted(key)
    }

    /// The host's name.
    pub fn host(&self) -> &str {
        self.ctx.name()
    }

    /// Runs a command; a non-zero exit is an `Ok` here.
    pub fn exec(&mut self, request: &ExecRequest) -> Result<ExecOutput, ActionError> {
        let started = std::time::Instant::now();
        let mut fenced = request.clone();
        if fenced.interrupt.is_none() {
            fenced.interrupt = self.ctx.interrupt();
        }
        self.fence_step(&mut fenced);
        let output = self.transport().exec(&fenced);
        let output = output.inspect_err(|error| self.stop_run_if_state_lost(error))?;
        let output = judge_fenced(output, &fenced, self.ctx.name())?;
        let events = &self.ctx.shared().events;
        if events.is_open() {
            events.send(crate::RunEvent::Command {
                argv: request
                    .argv
                    .iter()
                    .map(|a| self.ctx.redact_text(a))
                    .collect(),
                code: output.code,
                elapsed_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
                host: self.ctx.name().to_owned(),
                seq: self.seq,
                stderr: self.ctx.redact_text(&output.stderr),
                stdout: self.ctx.redact_text(&output.stdout),
            });
        }
        Ok(output)
    }

    /// Runs a command on `peer`: this host when it is this host's name, else another host of
    /// the run (a test's server, a management host) through the run's transport of it, locked
    /// for the command only (`RunShared::exec_on`). A non-zero exit is an `Ok` here. A peer's
    /// commands are not reported as this host's.
    pub fn exec_on(
        &mut self,
        peer: &str,
        request: &ExecRequest,
    ) -> Result<ExecOutput, ActionError> {
        if peer == self.host() {
            self.exec(request)
        } else {
            self.ctx.shared().exec_on(peer, request)
        }
    }

    /// The clock of `peer`: this host's, or another host's of the run.
    pub fn clock_of(&self, peer: &str) -> Result<Clock, ActionError> {
        if peer == self.host() {
            Ok(self.clock())
        } else {
            self.ctx.shared().clock_of(peer)
        }
    }

    /// A simulated host whose state this machine cannot keep stops the whole run, as a journal
    /// that cannot be written does: the other hosts must not pass the next barrier without it.
    fn stop_run_if_state_lost(&self, error: &crate::TransportError) {
        let shared = self.ctx.shared();
        if matches!(error, crate::TransportError::HostState { .. }) && !shared.cancel.is_cancelled()
        {
            shared.events.send(crate::RunEvent::Warning {
                host: self.ctx.name().to_owned(),
                message: format!("{error}: stopping the run"),
            });
            shared.cancel.cancel();
        }
    }

    /// Runs `argv` and fails on a non-zero exit, keeping the command and its stderr.
    pub fn run(&mut self, argv: &[&str]) -> Result<ExecOutput, ActionError> {
        let output = self.exec(&ExecRequest::new(argv.iter().copied()))?;
        if output.code == 0 {
            Ok(output)
        } else {
            Err(ActionError::CommandFailed {
                code: output.code,
                command: argv.join(" "),
                stderr: output.stderr,
            })
        }
    }

    /// Records a step, fsynced, so a resume can continue a long action from it.
    pub fn record_progress(&mut self, data: Value) -> Result<(), ActionError> {
        self.ctx.record_progress(self.seq, data)
    }

    /// Records several steps that are ready at once, with one fsync after the last: each is
    /// durable before this returns, as with [`record_progress`](Self::record_progress), at the
    /// cost of one sync instead of one each (a round's pairs that finished together).
    pub fn record_progress_all(&mut self, data: Vec<Value>) -> Result<(), ActionError> {
        self.ctx.record_progress_all(self.seq, data)
    }

    /// Records, fsynced, that the action is about to change the host and what it saw there
    /// before (for [`Reconcile::Marked`](crate::Reconcile::Marked)). Call it after the query,
    /// right before the first command that changes anything, and not in check mode.
    pub fn acting(&mut self, before: Value) -> Result<(), ActionError> {
        self.record_progress(serde_json::json!({ ACTING: before }))
    }

    /// The host's clock.
    pub fn clock(&self) -> Clock {
        self.transport().clock()
    }

    /// Waits on the host's clock, giving the fork slot up meanwhile.
    pub fn wait(&mut self, duration: Duration) -> Result<(), ActionError> {
        let clock = self.clock();
        let shared = self.ctx.shared();
        shared.forks.release();
        let slept = clock.sleep(duration, &shared.cancel);
        shared.forks.acquire(&shared.cancel)?;
        Ok(slept?)
    }

    /// Drops the connection so the next command reconnects.
    pub fn disconnect(&mut self) {
        self.transport().disconnect();
    }

    /// How long to wait for a rebooting host.
    pub fn reboot_timeout(&self) -> Duration {
        self.ctx.shared().options.reboot_timeout
    }

    /// Reports an event of this host.
    pub fn report(&self, event: crate::RunEvent) {
        self.ctx.shared().events.send(event);
    }
}

/// A fenced command's output read through the fence's verdict: the command's own when it ran
/// (or its recorded run was replayed), else why the fence did not run it. A step started before
/// and never finished has an unknown outcome: the intent stays open for a decision.
fn judge_fenced(
    output: ExecOutput,
    request: &ExecRequest,
    host: &str,
) -> Result<ExecOutput, ActionError> {
    use crate::fence::FenceVerdict;
    if request.fence.is_none() {
        return Ok(output);
    }
    let code = i32::try_from(output.code).unwrap_or(i32::MAX);
    let host = host.to_owned();
    match FenceVerdict::judge(code, &output.stderr) {
        FenceVerdict::Ran(_) => Ok(output),
        FenceVerdict::Fenced(said) => Err(ActionError::Fenced { host, said }),
        FenceVerdict::Unfinished(_) => {
            Err(ActionError::Transport(crate::TransportError::Interrupted {
                command: request.argv.join(" "),
                host,
            }))
        }
        FenceVerdict::Volatile(said) | FenceVerdict::Broken(said) => {
            Err(ActionError::FenceBroken { host, said })
        }
    }
}
