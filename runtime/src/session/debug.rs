//! One host's instance of a runbook under the debugger, on its own thread, driven by a prompt:
//! `cairn debug` and the REPL's `:load`. It journals to a file of its own, so a debugging
//! session never touches a real run's journal.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use crate::ending::failure::HostFailure;
use crate::executor::{Prepare, Start, join, spawn_instance};
use crate::journal::{
    HostJournal, HostStatus, JOURNAL_VERSION, JournalEvent, JournalWriter, RunHeader, now_millis,
};
use crate::{
    Breakpoint, Cancel, CompiledRunbook, Debugger, EventSink, HostContext, HostInfo, HostReport,
    Installer, Mode, Outline, Pause, Resume, Role, RunOptions, RunParams, RunShared, Runbook,
    RunbookError, Transport, error_in,
};

/// What a debugging session runs.
pub struct DebugRequest {
    /// Progress: log lines and finished actions.
    pub events: EventSink,
    /// The host.
    pub info: HostInfo,
    /// The session's journal (a new file).
    pub journal: PathBuf,
    /// Builtin libraries.
    pub libraries: Vec<Installer>,
    /// `key=value` params; the others keep their defaults.
    pub params: BTreeMap<String, String>,
    /// The runbook.
    pub runbook: Runbook,
    /// The host's transport, shared with the prompt's own session on that host.
    pub transport: Arc<Mutex<Box<dyn Transport>>>,
    /// The hosts its vars name (`inventory::helpers`: its management host), by name, with
    /// their transports: reached for what the host asks of them, never debugged themselves.
    pub helpers: Vec<Helper>,
}

/// A helper host's name and its transport.
pub type Helper = (String, Arc<Mutex<Box<dyn Transport>>>);

/// What the runbook did after the prompt let it go.
#[derive(Debug)]
pub enum DebugEvent {
    /// It stopped again: [`DebugRun::paused`] says where.
    Paused,
    /// It ended.
    Finished(Box<HostReport>),
}

/// A runbook instance under the debugger. Nothing runs until the first [`DebugRun::go`].
pub struct DebugRun {
    /// The runbook compiled once, when it was loaded.
    ast: Arc<rhai::AST>,
    cancel: Cancel,
    debugger: Arc<Debugger>,
    journal: PathBuf,
    outline: Outline,
    /// The params, checked when the runbook was loaded.
    params: RunParams,
    pauses: Receiver<Pause>,
    paused: Option<Pause>,
    request: Option<DebugRequest>,
    runbook: Runbook,
    thread: Option<JoinHandle<HostReport>>,
}

impl DebugRun {
    /// Compiles the runbook and checks the params; runs nothing yet.
    pub fn load(request: DebugRequest) -> Result<Self, RunbookError> {
        let runbook = request.runbook.clone();
        let max_operations = RunOptions::default().max_operations;
        let compiled =
            CompiledRunbook::compile(runbook.clone(), &request.libraries, max_operations)?;
        let outline = compiled.outline.clone();
        let ast = compiled.ast.clone();
        // The run's own `--param` check, its message shown at the runbook as this returns one.
        let params = compiled
            .with_params(request.params.clone())
            .map_err(|error| {
                error_in(
                    &runbook.name(),
                    &runbook.text,
                    error.message,
                    rhai::Position::NONE,
                    error.help,
                )
            })?;
        let (sender, pauses) = channel();
        Ok(Self {
            ast,
            cancel: Cancel::default(),
            debugger: Arc::new(Debugger::stepping(sender)),
            journal: request.journal.clone(),
            outline,
            params: params.params,
            pauses,
            paused: None,
            request: Some(request),
            runbook,
            thread: None,
        })
    }

    /// Sets a breakpoint from `:break` text (a line or a stage name).
    pub fn break_at(&self, text: &str) -> Result<Breakpoint, RunbookError> {
        let breakpoint = Breakpoint::parse(text, &self.runbook, &self.outline)?;
        self.debugger.add_breakpoint(breakpoint.clone());
        Ok(breakpoint)
    }

    /// Removes the breakpoint `text` names (read as `:break` reads it); whether it was set.
    pub fn unbreak(&self, text: &str) -> Result<(Breakpoint, bool), RunbookError> {
        let breakpoint = Breakpoint::parse(text, &self.runbook, &self.outline)?;
        let removed = self.debugger.remove_breakpoint(&breakpoint);
        Ok((breakpoint, removed))
    }

    /// Removes every breakpoint; how many there were.
    pub fn clear_breakpoints(&self) -> usize {
        self.debugger.clear_breakpoints()
    }

    /// The breakpoints set.
    pub fn breakpoints(&self) -> Vec<Breakpoint> {
        self.debugger.breakpoints()
    }

    /// Where the runbook waits, if it does.
    pub fn paused(&self) -> Option<&Pause> {
        self.paused.as_ref()
    }

    /// Whether the runbook's thread was started.
    pub fn started(&self) -> bool {
        self.request.is_none()
    }

    /// The runbook.
    pub fn runbook(&self) -> &Runbook {
        &self.runbook
    }

    /// The session's journal.
    pub fn journal(&self) -> &std::path::Path {
        &self.journal
    }

    /// Stops a running action (Ctrl-C), as in a run.
    pub fn interrupter(&self) -> Cancel {
        self.cancel.clone()
    }

    /// Lets the runbook go on as `answer` says (starting it the first time), and waits until
    /// it stops again or ends.
    pub fn go(&mut self, answer: Resume) -> DebugEvent {
        self.cancel.reset();
        if let Some(pause) = self.paused.take() {
            pause.resume(answer);
        } else if let Some(request) = self.request.take() {
            self.debugger.start_as(&answer);
            self.thread = Some(self.spawn(request));
        }
        self.wait()
    }

    fn wait(&mut self) -> DebugEvent {
        loop {
            match self.pauses.recv_timeout(Duration::from_millis(50)) {
                Ok(pause) => {
                    self.paused = Some(pause);
                    return DebugEvent::Paused;
                }
                Err(RecvTimeoutError::Timeout)
                    if self.thread.as_ref().is_some_and(|t| !t.is_finished()) => {}
                Err(_) => return DebugEvent::Finished(Box::new(self.join())),
            }
        }
    }

    fn join(&mut self) -> HostReport {
        let name = self.host_name();
        match self.thread.take() {
            Some(thread) => join(name, thread, "the runbook's thread panicked"),
            None => HostReport {
                changes: Vec::new(),
                failure: None,
                name,
                prediction_stopped: None,
                left_behind: Vec::new(),
                reboot_pending: None,
                status: HostStatus::Cancelled,
            },
        }
    }

    fn host_name(&self) -> String {
        self.paused
            .as_ref()
            .map(|p| p.host.name.clone())
            .or_else(|| self.request.as_ref().map(|r| r.info.name.clone()))
            .unwrap_or_default()
    }

    fn spawn(&self, request: DebugRequest) -> JoinHandle<HostReport> {
        let name = request.info.name.clone();
        let compiled = (self.ast.clone(), self.params.clone());
        match start(
            request,
            compiled,
            self.debugger.clone(),
            self.cancel.clone(),
        ) {
            Ok(start) => spawn_instance(format!("debug {name}"), start),
            Err(message) => {
                let report = HostReport {
                    changes: Vec::new(),
                    failure: Some(HostFailure::message(&name, message)),
                    name,
                    prediction_stopped: None,
                    left_behind: Vec::new(),
                    reboot_pending: None,
                    status: HostStatus::Failed,
                };
                std::thread::spawn(move || report)
            }
        }
    }
}

impl Drop for DebugRun {
    /// A session that ends with the runbook paused or running stops it, as Ctrl-C would.
    fn drop(&mut self) {
        self.cancel.cancel();
        if let Some(pause) = self.paused.take() {
            pause.resume(Resume::Abort);
        }
    }
}

/// The debugger's one instance, its journal begun (a file of its own) and its variables
/// watched; why it cannot start, if it cannot.
fn start(
    request: DebugRequest,
    (ast, params): (Arc<rhai::AST>, RunParams),
    debugger: Arc<Debugger>,
    cancel: Cancel,
) -> Result<Start, String> {
    let DebugRequest {
        events,
        info,
        journal,
        libraries,
        params: _,
        runbook,
        transport,
        helpers,
    } = request;
    let name = info.name.clone();
    let writer = journal
        .parent()
        .map_or(Ok(()), std::fs::create_dir_all)
        .map_err(|e| e.to_string())
        .and_then(|()| JournalWriter::open(&journal).map_err(|e| e.to_string()));
    let mut writer = match writer {
        Ok(writer) => writer,
        Err(error) => return Err(format!("journal {}: {error}", journal.display())),
    };
    let header = RunHeader {
        at: now_millis(),
        host: name.clone(),
        hosts: vec![name.clone()],
        inventory: String::new(),
        params: params.shown(),
        run_id: journal
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("debug")
            .to_owned(),
        runbook: runbook.name(),
        runbook_hash: runbook.hash.clone(),
        version: JOURNAL_VERSION,
    };
    if let Err(error) = writer.append(&JournalEvent::Header(header), true) {
        return Err(error.to_string());
    }
    let mut shared = RunShared::new(
        1,
        vec![info.clone()],
        RunOptions::default(),
        params,
        cancel,
        events,
    );
    shared.transports.extend(helpers);
    let host = HostContext::new(
        info,
        Role::Host,
        Mode::Live,
        Arc::new(shared),
        transport,
        HostJournal::default(),
        Some(writer),
        runbook.name(),
    )
    .with_debugger(Some(debugger.clone()));
    // Every variable read refreshes what `:vars` shows: actions read their arguments just
    // before they run, so at a pause the last look is the scope the action sees.
    let watch: Prepare = Box::new(move |engine: &mut rhai::Engine| {
        #[allow(deprecated)] // rhai marks the hook volatile this way; it is not deprecated
        engine.on_var(move |_, _, context| {
            debugger.observe(context.scope());
            Ok(None)
        });
    });
    Ok(Start {
        host,
        runbook,
        ast,
        libraries,
        prepare: Some(watch),
        hold: None,
    })
}

#[cfg(test)]
mod tests;
