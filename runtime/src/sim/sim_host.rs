//! One simulated host, whose state lives in a directory so that it outlives the process that
//! drives it, as a real host does.
//!
//! Every command locks the directory, loads `state.json`, performs a pending boot, appends the
//! command to `commands.log`, runs it, and saves the state atomically before answering. Nothing
//! is kept in memory between commands except the virtual clock, which the runtime advances by
//! sleeping.

use std::collections::{BTreeMap, BTreeSet};
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::Ordering;

use super::generic_commands::GenericCommands;
use super::json_log::{self, COMMAND_LOG};
use super::log_mark;
use super::sim_context::SimContextParts;
use super::sim_error::transport_error;
use super::sim_fence::{admit_in, finish_in};
use super::sim_model::base_name;
use super::sim_options::SimOptions;
use super::sim_state::{SimState, clock_name};
use super::sim_time::{VIRTUAL_EPOCH_MILLIS, esxi_timestamp};
use super::{BootMarker, SimBoot, SimContext, SimError, SimModel, SimTool};
use crate::{Clock, ExecOutput, ExecRequest, TransportError};

/// The state file in a host's directory.
pub const STATE_FILE: &str = "state.json";
/// The lock file that serialises commands on one host across threads and processes.
pub const LOCK_FILE: &str = "state.lock";

/// A simulated host: its name, model, options and state directory.
#[derive(Debug)]
pub struct SimHost {
    clock: Clock,
    dir: PathBuf,
    model: Arc<SimModel>,
    name: String,
    options: SimOptions,
}

impl SimHost {
    /// Opens the host whose state is in `dir`, creating the directory and booting the host for
    /// the first time when it does not exist yet.
    ///
    /// `options` are the options of the `sim:` address: the simulator's own (`reboot_secs`,
    /// `clock`, faults) and those the model's tools declare.
    pub fn open(
        name: &str,
        dir: impl Into<PathBuf>,
        model: Arc<SimModel>,
        options: BTreeMap<String, String>,
    ) -> Result<Self, SimError> {
        let options = model.options(&options)?;
        let dir = dir.into();
        let clock = if options.virtual_clock {
            Clock::virtual_at(VIRTUAL_EPOCH_MILLIS)
        } else if options.time_scale > 1 {
            Clock::Scaled(options.time_scale)
        } else {
            Clock::Real
        };
        let host = Self {
            clock,
            dir,
            model,
            name: name.to_owned(),
            options,
        };
        let _lock = host.lock()?;
        host.load_or_create()?;
        Ok(host)
    }

    /// The host's clock: virtual (persisted in the state) with `clock=virtual`, else real.
    pub fn clock(&self) -> Clock {
        self.clock.clone()
    }

    /// The host's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The host's model.
    pub fn model(&self) -> &SimModel {
        &self.model
    }

    /// The state directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Runs one command, as a transport does: `Err(Unreachable)` while the host is down.
    pub fn exec(&self, request: &ExecRequest) -> Result<ExecOutput, TransportError> {
        let Some(program) = request.argv.first() else {
            return Err(TransportError::Io {
                context: format!("cannot run a command on `{}`", self.name),
                source: std::io::Error::other("empty argument list"),
            });
        };
        let _lock = self.lock().map_err(transport_error)?;
        let mut state = self.load_or_create().map_err(transport_error)?;
        let parts = self.context_parts(Some(request));
        self.check_answers(&mut state, &parts)?;
        if let Some(answer) = self.fence_admits(request)? {
            return Ok(answer);
        }
        let logged = self.append_to_log(&request.argv).map_err(transport_error)?;
        let ran = self.run_program(&mut state, &parts, request, program);
        let dropped = self.save_after(&mut state, program, ran.reboot, logged)?;
        // Done only once its effect is saved, as fence.sh records it after the command.
        if !(ran.timed_out || ran.interrupted) {
            self.fence_finishes(request, &ran.output)?;
        }
        self.answer(request, ran, dropped)
    }

    /// `Err(Unreachable)` while the host does not answer (a fault, a hung reboot, a reboot
    /// under way, a tool's reason, a boot after a power-on); a boot that is due happens here.
    fn check_answers(
        &self,
        state: &mut SimState,
        parts: &SimContextParts<'_>,
    ) -> Result<(), TransportError> {
        let now = self.clock.now_millis();
        if self.options.fault_unreachable {
            return Err(self.unreachable("it does not answer (`fault_unreachable`)"));
        }
        if state.hung {
            return Err(
                self.unreachable("it did not come back from its reboot (`fault_reboot_hang`)")
            );
        }
        if let Some(up) = state.down_until_millis {
            if now < up {
                return Err(self.unreachable("it is rebooting"));
            }
            self.boot(state, up);
        }
        if let Some(reason) = self.model.tools.iter().find_map(|tool| {
            let context = SimContext::new(parts, state, tool.name());
            tool.unreachable(&context)
        }) {
            return Err(self.unreachable(&reason));
        }
        if self.power_cycle_boots(state, now)? {
            return Err(self.unreachable("it is booting after its power-on"));
        }
        Ok(())
    }

    /// Runs `program` with its tool (the generic commands when no tool has it), or fails it
    /// with a `fail_once` fault that fires now.
    fn run_program(
        &self,
        state: &mut SimState,
        parts: &SimContextParts<'_>,
        request: &ExecRequest,
        program: &str,
    ) -> Ran {
        if fault_fires(state, &self.options.fail_once, "fail_once", program) {
            return Ran {
                interrupted: false,
                output: ExecOutput {
                    code: 1,
                    stderr: "injected failure\n".to_owned(),
                    stdout: String::new(),
                },
                reboot: false,
                timed_out: false,
            };
        }
        let tool: &dyn SimTool = self
            .model
            .tool_for(program)
            .map_or(&GenericCommands, |tool| tool.as_ref());
        let mut context = SimContext::new(parts, state, tool.name());
        let output = tool.run(&mut context, &request.argv);
        Ran {
            interrupted: context.interrupted,
            output,
            reboot: context.reboot_requested,
            timed_out: context.timed_out,
        }
    }

    /// Saves the state after a command: the clock, the boot last seen, a reboot it asked for;
    /// whether a `drop_once` fault fires, so the answer is lost though the effect is saved.
    fn save_after(
        &self,
        state: &mut SimState,
        program: &str,
        reboot: bool,
        log: (u64, u64),
    ) -> Result<bool, TransportError> {
        let after = self.clock.now_millis();
        state.clock_millis = after;
        if let Some(boot) = state.boots.last_mut() {
            boot.last_seen_millis = boot.last_seen_millis.max(after);
        }
        if reboot {
            self.start_reboot(state, after);
        }
        let dropped = fault_fires(state, &self.options.drop_once, "drop_once", program);
        self.save(state, Some(log)).map_err(transport_error)?;
        Ok(dropped)
    }

    /// What the caller hears of a command that ran: stopped, timed out, lost, or its output.
    fn answer(
        &self,
        request: &ExecRequest,
        ran: Ran,
        dropped: bool,
    ) -> Result<ExecOutput, TransportError> {
        let command = request.argv.join(" ");
        let host = self.name.clone();
        if ran.interrupted {
            return Err(TransportError::Stopped { command, host });
        }
        if ran.timed_out {
            let seconds = request.timeout.map_or(0, |limit| limit.as_secs());
            return Err(TransportError::TimedOut {
                command,
                host,
                seconds,
            });
        }
        if dropped {
            return Err(TransportError::Interrupted { command, host });
        }
        Ok(ran.output)
    }

    /// Every boot so far, oldest first.
    pub fn boots(&self) -> Result<Vec<SimBoot>, SimError> {
        Ok(self.read_state()?.boots)
    }

    /// A file of the host's virtual file system.
    pub fn file(&self, path: &str) -> Result<Option<String>, SimError> {
        Ok(self.read_state()?.files.remove(path))
    }

    /// Raises the host fence's epoch to `epoch` for `owner` (a takeover, before the host's
    /// first action); `Ok(Err(said))` when the fence refuses it; nothing with `fence=false`.
    pub fn fence_claim(&self, epoch: u64, owner: &str) -> Result<Result<(), String>, SimError> {
        if !self.options.fence {
            return Ok(Ok(()));
        }
        let _lock = self.lock()?;
        let mut fence = super::sim_fence::SimFence::load(&self.dir)?;
        let claimed = fence.claim(epoch, owner);
        if claimed.is_ok() {
            fence.save(&self.dir)?;
        }
        Ok(claimed)
    }

    /// Removes run `run`'s step records from the host's fence; `Ok(Err(said))` when the fence
    /// refuses the caller; nothing with `fence=false`.
    pub fn fence_prune(
        &self,
        epoch: u64,
        owner: &str,
        run: &str,
    ) -> Result<Result<u64, String>, SimError> {
        if !self.options.fence {
            return Ok(Ok(0));
        }
        let _lock = self.lock()?;
        let mut fence = super::sim_fence::SimFence::load(&self.dir)?;
        let pruned = fence.prune(epoch, owner, run);
        if pruned.is_ok() {
            fence.save(&self.dir)?;
        }
        Ok(pruned)
    }

    /// What the host's fence recorded of `step`; `None` with `fence=false`.
    pub fn fence_record(&self, step: &str) -> Result<Option<crate::fence::StepRecord>, SimError> {
        if !self.options.fence {
            return Ok(None);
        }
        let fence = super::sim_fence::SimFence::load(&self.dir)?;
        Ok(Some(super::sim_fence::record_of(Some(&fence), step)))
    }

    /// A tool's state slot.
    pub fn tool_state(&self, tool: &str) -> Result<Option<serde_json::Value>, SimError> {
        Ok(self.read_state()?.tools.remove(tool))
    }

    /// The commands run on the host whose state is in `dir`, oldest first; lines that do not
    /// parse (a torn last line) are left out.
    pub fn command_log(dir: &Path) -> Vec<Vec<String>> {
        json_log::read(&dir.join(COMMAND_LOG))
    }

    fn read_state(&self) -> Result<SimState, SimError> {
        let _lock = self.lock()?;
        self.load_or_create()
    }

    fn lock(&self) -> Result<File, SimError> {
        let io = |action, path: &Path, source| SimError::Io {
            action,
            path: path.into(),
            source,
        };
        crate::private_files::create_dir_all(&self.dir).map_err(|e| io("create", &self.dir, e))?;
        let path = self.dir.join(LOCK_FILE);
        let file = crate::private_files::options()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(|e| io("open", &path, e))?;
        file.lock().map_err(|e| io("lock", &path, e))?;
        Ok(file)
    }

    /// Loads the state (checking it belongs to this host), creating and booting the host when
    /// there is none, and initialising tools the model gained since. Call with the lock held.
    fn load_or_create(&self) -> Result<SimState, SimError> {
        let path = self.dir.join(STATE_FILE);
        let (mut state, mut changed) = match SimState::load_text(&path)? {
            Some((state, text)) => {
                if let Some(len) = log_mark::settled_len(&self.dir, &text) {
                    json_log::truncate(&self.dir.join(COMMAND_LOG), len)?;
                }
                (state, false)
            }
            None => {
                let now = self.clock.now_millis();
                (
                    SimState::new(&self.name, &self.model.name, &self.clock, now),
                    true,
                )
            }
        };
        if let Clock::Virtual(millis) = &self.clock {
            // Virtual time never runs backwards, whoever advanced it last.
            millis.fetch_max(state.clock_millis, Ordering::SeqCst);
        }
        let mismatch = |field, found: &str, wanted: &str| SimError::StateMismatch {
            field,
            found: found.into(),
            path: self.dir.clone(),
            wanted: wanted.into(),
        };
        if state.host != self.name {
            return Err(mismatch("host", &state.host, &self.name));
        }
        if state.model != self.model.name {
            return Err(mismatch("model", &state.model, &self.model.name));
        }
        let clock = clock_name(&self.clock);
        if state.clock != clock {
            return Err(mismatch("clock", &state.clock, &clock));
        }
        let parts = self.context_parts(None);
        for tool in &self.model.tools {
            if !state.tools.contains_key(tool.name()) {
                SimContext::initialise(&parts, &mut state, tool.name(), |c| tool.init(c));
                state
                    .tools
                    .entry(tool.name().to_owned())
                    .or_insert(serde_json::Value::Null);
                changed = true;
            }
        }
        if state.boots.is_empty() {
            let now = state.clock_millis;
            self.boot(&mut state, now);
        }
        if changed {
            self.save(&state, None)?;
        }
        Ok(state)
    }

    /// Saves the state, the command log's mark first ([`log_mark`]): `log` is the log's length
    /// before and after the command whose effect this save holds, `None` for a save of no
    /// command (the log as it is).
    fn save(&self, state: &SimState, log: Option<(u64, u64)>) -> Result<(), SimError> {
        let path = self.dir.join(STATE_FILE);
        let text = state.to_text(&path)?;
        let (before, after) = match log {
            Some(log) => log,
            None => {
                let len = self.log_len()?;
                (len, len)
            }
        };
        log_mark::write(&self.dir, before, after, &text)?;
        SimState::save_text(&path, &text)
    }

    /// The command log's length now.
    fn log_len(&self) -> Result<u64, SimError> {
        let path = self.dir.join(COMMAND_LOG);
        match std::fs::metadata(&path) {
            Ok(meta) => Ok(meta.len()),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(0),
            Err(source) => Err(SimError::Io {
                action: "read",
                path,
                source,
            }),
        }
    }

    /// The next boot, at `at` on the host's clock: a new boot id, the boot marker, then every
    /// tool's `on_boot`.
    fn boot(&self, state: &mut SimState, at: u64) {
        let number = state.boots.last().map_or(1, |boot| boot.number + 1);
        let boot = SimBoot::new(&self.name, number, at);
        match self.model.boot_marker {
            BootMarker::ProcBootId => {
                state
                    .files
                    .insert(BootMarker::BOOT_ID_PATH.into(), format!("{}\n", boot.id));
            }
            BootMarker::VmkSummary => {
                let line = format!("{} Host has booted\n", esxi_timestamp(at));
                state
                    .files
                    .entry(BootMarker::VMKSUMMARY_PATH.into())
                    .or_default()
                    .push_str(&line);
            }
        }
        state.boots.push(boot);
        state.down_until_millis = None;
        let parts = self.context_parts(None);
        for tool in &self.model.tools {
            tool.on_boot(&mut SimContext::new(&parts, state, tool.name()));
        }
    }

    /// Whether a tool starts a boot before this command ([`SimTool::boots_now`]: a guest whose
    /// VM was powered on again): the host is then down for its reboot time, as after `reboot`,
    /// and the state is saved so the next command sees the boot under way.
    fn power_cycle_boots(&self, state: &mut SimState, now: u64) -> Result<bool, TransportError> {
        let parts = self.context_parts(None);
        let boots = self
            .model
            .tools
            .iter()
            .any(|tool| tool.boots_now(&mut SimContext::new(&parts, state, tool.name())));
        if boots {
            self.start_reboot(state, now);
            state.clock_millis = now;
            self.save(state, None).map_err(transport_error)?;
        }
        Ok(boots)
    }

    fn start_reboot(&self, state: &mut SimState, at: u64) {
        if self.model.boot_marker == BootMarker::VmkSummary {
            let pid = 2_099_000 + state.boots.last().map_or(0, |boot| boot.number);
            let line = format!(
                "{} bootstop[{pid}]: Host is rebooting\n",
                esxi_timestamp(at)
            );
            state
                .files
                .entry(BootMarker::VMKSUMMARY_PATH.into())
                .or_default()
                .push_str(&line);
        }
        if self.options.fault_reboot_hang {
            state.hung = true;
        } else {
            state.down_until_millis = Some(at.saturating_add(self.options.reboot_millis));
        }
    }

    /// Passes a changing command through the host's fence (`sim_fence.rs`): `Some` answer
    /// instead of running it, `None` to run it; nothing with `fence=false`.
    fn fence_admits(&self, request: &ExecRequest) -> Result<Option<ExecOutput>, TransportError> {
        match request.fence.as_ref().filter(|_| self.options.fence) {
            Some(step) => admit_in(&self.dir, step, &request.argv).map_err(transport_error),
            None => Ok(None),
        }
    }

    /// Records a fenced command done with its output, after its effect was saved.
    fn fence_finishes(
        &self,
        request: &ExecRequest,
        output: &ExecOutput,
    ) -> Result<(), TransportError> {
        match request.fence.as_ref().filter(|_| self.options.fence) {
            Some(step) => finish_in(&self.dir, step, output).map_err(transport_error),
            None => Ok(()),
        }
    }

    fn append_to_log(&self, argv: &[String]) -> Result<(u64, u64), SimError> {
        // The log is the operator's record of the host, kept in the state folder: no secrets.
        let argv: Vec<String> = argv.iter().map(|a| crate::secrets::redact(a)).collect();
        json_log::append(&self.dir.join(COMMAND_LOG), &argv)
    }

    fn context_parts<'a>(&'a self, request: Option<&'a ExecRequest>) -> SimContextParts<'a> {
        SimContextParts {
            boot_marker: self.model.boot_marker,
            clock: &self.clock,
            dir: &self.dir,
            host: &self.name,
            interrupt: request.and_then(|request| request.interrupt.as_ref()),
            options: &self.options.raw,
            stdin: request.and_then(|request| request.stdin.as_deref()),
            timeout: request.and_then(|request| request.timeout),
        }
    }

    fn unreachable(&self, reason: &str) -> TransportError {
        TransportError::Unreachable {
            host: self.name.clone(),
            reason: reason.into(),
        }
    }
}

/// A command's run: its output, and what its tool's context said of it.
struct Ran {
    interrupted: bool,
    output: ExecOutput,
    reboot: bool,
    timed_out: bool,
}

/// Whether a one-shot fault for `program` fires now; records that it fired.
fn fault_fires(state: &mut SimState, names: &BTreeSet<String>, kind: &str, program: &str) -> bool {
    let Some(name) = names
        .iter()
        .find(|name| *name == program || *name == base_name(program))
    else {
        return false;
    };
    state.faults_fired.insert(format!("{kind}:{name}"))
}
