//! One simulated host, whose state lives in a directory so that it outlives the process that
//! drives it, as a real host does.
//!
//! Every command locks the directory, loads `state.json`, performs a pending boot, appends the
//! command to `commands.log`, runs it, and saves the state atomically before answering. Nothing
//! is kept in memory between commands except the virtual clock, which the runtime advances by
//! sleeping.

use std::collections::{BTreeMap, BTreeSet};
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::Ordering;

use super::generic_commands::GenericCommands;
use super::sim_context::SimContextParts;
use super::sim_fence::{Admission, SimFence, log_fenced};
use super::sim_model::base_name;
use super::sim_options::SimOptions;
use super::sim_state::{SimState, clock_name};
use super::sim_time::{VIRTUAL_EPOCH_MILLIS, esxi_timestamp};
use super::{BootMarker, SimBoot, SimContext, SimError, SimModel, SimTool};
use crate::{Clock, ExecOutput, ExecRequest, TransportError};

/// The state file in a host's directory.
pub const STATE_FILE: &str = "state.json";
/// The log of executed commands in a host's directory: one JSON array (argv) per line.
pub const COMMAND_LOG: &str = "commands.log";
/// The variable naming the folder of simulated hosts' states, shared by every working folder.
pub const SIM_DIR_VAR: &str = "CAIRN_SIM_DIR";
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

    /// Refuses a state directory made for another model than `model` (`esxi7` where the state
    /// says `linux`) before anything opens it; a missing state is fine (it will be created).
    pub fn check_model(dir: &Path, model: &str) -> Result<(), SimError> {
        match SimState::load(&dir.join(STATE_FILE))? {
            Some(state) if state.model != model => Err(SimError::StateMismatch {
                field: "model",
                found: state.model,
                path: dir.to_owned(),
                wanted: model.to_owned(),
            }),
            _ => Ok(()),
        }
    }

    /// Refuses a [`SIM_DIR_VAR`] that names no folder, before any run starts.
    pub fn check_sim_dir() -> Result<(), SimError> {
        match std::env::var_os(SIM_DIR_VAR).filter(|dir| !dir.is_empty()) {
            Some(dir) if !Path::new(&dir).is_dir() => Err(SimError::SimDirMissing {
                var: SIM_DIR_VAR,
                path: PathBuf::from(dir),
            }),
            _ => Ok(()),
        }
    }

    /// The state directory of `host`: `$CAIRN_SIM_DIR/<host>` when [`SIM_DIR_VAR`] names a
    /// folder (so that controllers in two working folders reach one simulated fleet), else
    /// `<state_dir>/sim/<host>`, so `.cairn/sim/<host>` with the default state folder `.cairn`.
    pub fn default_dir(state_dir: &Path, host: &str) -> PathBuf {
        match std::env::var_os(SIM_DIR_VAR).filter(|dir| !dir.is_empty()) {
            Some(dir) => PathBuf::from(dir).join(host),
            None => state_dir.join("sim").join(host),
        }
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
        let command = request.argv.join(" ");
        let _lock = self.lock().map_err(transport_error)?;
        let mut state = self.load_or_create().map_err(transport_error)?;
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
            self.boot(&mut state, up);
        }
        let parts = self.context_parts(Some(request));
        if let Some(reason) = self.model.tools.iter().find_map(|tool| {
            let context = SimContext::new(&parts, &mut state, tool.name());
            tool.unreachable(&context)
        }) {
            return Err(self.unreachable(&reason));
        }
        if self.power_cycle_boots(&mut state, now)? {
            return Err(self.unreachable("it is booting after its power-on"));
        }
        if let Some(answer) = self.fence_admits(request)? {
            return Ok(answer);
        }
        self.append_to_log(&request.argv).map_err(transport_error)?;
        let (output, reboot, timed_out, interrupted) =
            if fault_fires(&mut state, &self.options.fail_once, "fail_once", program) {
                let failure = "injected failure\n".to_owned();
                (
                    ExecOutput {
                        code: 1,
                        stderr: failure,
                        stdout: String::new(),
                    },
                    false,
                    false,
                    false,
                )
            } else {
                let tool: &dyn SimTool = self
                    .model
                    .tool_for(program)
                    .map_or(&GenericCommands, |tool| tool.as_ref());
                let mut context = SimContext::new(&parts, &mut state, tool.name());
                let output = tool.run(&mut context, &request.argv);
                (
                    output,
                    context.reboot_requested,
                    context.timed_out,
                    context.interrupted,
                )
            };
        let after = self.clock.now_millis();
        state.clock_millis = after;
        if let Some(boot) = state.boots.last_mut() {
            boot.last_seen_millis = boot.last_seen_millis.max(after);
        }
        if reboot {
            self.start_reboot(&mut state, after);
        }
        let dropped = fault_fires(&mut state, &self.options.drop_once, "drop_once", program);
        state
            .save(&self.dir.join(STATE_FILE))
            .map_err(transport_error)?;
        // Done only once its effect is saved, as fence.sh records it after the command.
        if !(timed_out || interrupted) {
            self.fence_finishes(request, &output)?;
        }
        if interrupted {
            return Err(TransportError::Stopped {
                command,
                host: self.name.clone(),
            });
        }
        if timed_out {
            let seconds = request.timeout.map_or(0, |limit| limit.as_secs());
            return Err(TransportError::TimedOut {
                command,
                host: self.name.clone(),
                seconds,
            });
        }
        if dropped {
            return Err(TransportError::Interrupted {
                command,
                host: self.name.clone(),
            });
        }
        Ok(output)
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
        std::fs::read_to_string(dir.join(COMMAND_LOG))
            .unwrap_or_default()
            .lines()
            .filter_map(|line| serde_json::from_str(line).ok())
            .collect()
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
        let (mut state, mut changed) = match SimState::load(&path)? {
            Some(state) => (state, false),
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
                tool.init(&mut SimContext::new(&parts, &mut state, tool.name()));
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
            state.save(&path)?;
        }
        Ok(state)
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
            state
                .save(&self.dir.join(STATE_FILE))
                .map_err(transport_error)?;
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
    /// (a refusal, or a done step's recorded result) instead of running it; `None` to run it,
    /// recorded started and logged to `fenced.log`. The fence is saved either way (the epoch
    /// it raised).
    fn fence_admits(&self, request: &ExecRequest) -> Result<Option<ExecOutput>, TransportError> {
        let Some(step) = request.fence.as_ref().filter(|_| self.options.fence) else {
            return Ok(None);
        };
        let mut fence = SimFence::load(&self.dir).map_err(transport_error)?;
        let admission = fence.admit(step);
        fence.save(&self.dir).map_err(transport_error)?;
        match admission {
            Admission::Answer(answer) => Ok(Some(answer)),
            Admission::Run => {
                log_fenced(&self.dir, step, &request.argv).map_err(transport_error)?;
                Ok(None)
            }
        }
    }

    /// Records a fenced command done with its output, after its effect was saved.
    fn fence_finishes(
        &self,
        request: &ExecRequest,
        output: &ExecOutput,
    ) -> Result<(), TransportError> {
        let Some(step) = request.fence.as_ref().filter(|_| self.options.fence) else {
            return Ok(());
        };
        let mut fence = SimFence::load(&self.dir).map_err(transport_error)?;
        fence.finish(step, output);
        fence.save(&self.dir).map_err(transport_error)
    }

    fn append_to_log(&self, argv: &[String]) -> Result<(), SimError> {
        let path = self.dir.join(COMMAND_LOG);
        let io = |action, source| SimError::Io {
            action,
            path: path.clone(),
            source,
        };
        // The log is the operator's record of the host, kept in the state folder: no secrets.
        let argv: Vec<String> = argv.iter().map(|a| crate::secrets::redact(a)).collect();
        let mut line = serde_json::to_string(&argv).map_err(|e| io("log to", e.into()))?;
        line.push('\n');
        let mut log = crate::private_files::options()
            .create(true)
            .append(true)
            .open(&path)
            .map_err(|e| io("open", e))?;
        log.write_all(line.as_bytes())
            .map_err(|e| io("append to", e))
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

fn transport_error(error: SimError) -> TransportError {
    match error {
        SimError::Io {
            action,
            path,
            source,
        } => TransportError::HostState {
            // The reason goes in the message too: a host's failure keeps only its one line, and
            // "No space left on device" is the point.
            context: format!("cannot {action} `{}`: {source}", path.display()),
            source,
        },
        other => {
            let context = other.to_string();
            TransportError::Io {
                source: std::io::Error::other(context.clone()),
                context,
            }
        }
    }
}
