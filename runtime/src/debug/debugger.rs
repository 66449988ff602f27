//! The debugger's hook in a host's instance: the host context asks it before each live action,
//! at each stage it runs, and after an action fails. When it decides to stop, it sends a
//! [`Pause`] to the prompt and blocks the runbook's thread until the answer comes back.
//!
//! It needs no statement-level hook from rhai: actions and stages are the places a runbook
//! touches a host, so they are the places worth stopping at.

use std::sync::mpsc::{Sender, channel};
use std::sync::{Mutex, MutexGuard};

use rhai::{Dynamic, Scope};
use serde_json::Value;

use crate::debug::pause::StopHost;
use crate::{ActionError, Breakpoint, Pause, PausePoint, PauseReason, Resume};

/// How far the runbook runs before it stops again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// To the next breakpoint or the end.
    Continue,
    /// To the start of the next stage the host runs.
    NextStage,
    /// To the next action.
    Step,
}

#[derive(Debug)]
struct DebugState {
    breakpoints: Vec<Breakpoint>,
    mode: Mode,
    vars: Vec<(String, Dynamic)>,
}

/// Decides where a runbook stops and hands each stop to the prompt.
pub struct Debugger {
    pauses: Sender<Pause>,
    state: Mutex<DebugState>,
    /// Whether it stops at actions and stages, not only at failures.
    stepping: bool,
}

impl Debugger {
    /// A debugger that steps and stops at breakpoints (`cairn debug`, `:load`).
    pub fn stepping(pauses: Sender<Pause>) -> Self {
        Self {
            pauses,
            state: Mutex::new(DebugState {
                breakpoints: Vec::new(),
                mode: Mode::Continue,
                vars: Vec::new(),
            }),
            stepping: true,
        }
    }

    /// How the runbook starts: `Step` stops before its first action, `Next` at its first stage,
    /// `Continue` at the first breakpoint.
    pub(crate) fn start_as(&self, first: &Resume) {
        if let Some(mode) = mode_after(first) {
            self.state().mode = mode;
        }
    }

    /// A debugger that stops only when an action fails (`cairn run --debug-on-failure`).
    pub fn on_failure(pauses: Sender<Pause>) -> Self {
        Self {
            pauses,
            state: Mutex::new(DebugState {
                breakpoints: Vec::new(),
                mode: Mode::Continue,
                vars: Vec::new(),
            }),
            stepping: false,
        }
    }

    fn state(&self) -> MutexGuard<'_, DebugState> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Adds a breakpoint (once).
    pub fn add_breakpoint(&self, breakpoint: Breakpoint) {
        let mut state = self.state();
        if !state.breakpoints.contains(&breakpoint) {
            state.breakpoints.push(breakpoint);
        }
    }

    /// Removes a breakpoint; whether it was set.
    pub fn remove_breakpoint(&self, breakpoint: &Breakpoint) -> bool {
        let mut state = self.state();
        let before = state.breakpoints.len();
        state.breakpoints.retain(|b| b != breakpoint);
        state.breakpoints.len() < before
    }

    /// Removes every breakpoint; how many there were.
    pub fn clear_breakpoints(&self) -> usize {
        std::mem::take(&mut self.state().breakpoints).len()
    }

    /// The breakpoints, in the order they were set.
    pub fn breakpoints(&self) -> Vec<Breakpoint> {
        self.state().breakpoints.clone()
    }

    /// Keeps the variables in `scope` as the ones a pause shows.
    pub(crate) fn observe(&self, scope: &Scope) {
        let vars = variables(scope);
        self.state().vars = vars;
    }

    /// Before a live action: stops on `:step` or at a line breakpoint.
    pub(crate) fn before_action(
        &self,
        host: StopHost<'_>,
        point: PausePoint,
    ) -> Result<(), ActionError> {
        if !self.stepping {
            return Ok(());
        }
        let reason = {
            let state = self.state();
            let breakpoint = state
                .breakpoints
                .iter()
                .find(|b| b.hits_action(&point.site.file, point.site.line, host.runbook_file));
            match (state.mode, breakpoint) {
                (Mode::Step, _) => PauseReason::Step,
                (_, Some(breakpoint)) => PauseReason::Breakpoint(breakpoint.clone()),
                _ => return Ok(()),
            }
        };
        let vars = self.state().vars.clone();
        self.stopped(host, point, reason, Some(vars), Value::Null)
    }

    /// At the start of a stage the host runs: stops on `:next` or at a stage breakpoint.
    pub(crate) fn at_stage(
        &self,
        host: StopHost<'_>,
        point: PausePoint,
        scope: &Scope,
    ) -> Result<(), ActionError> {
        if !self.stepping {
            return Ok(());
        }
        self.observe(scope);
        let reason = {
            let state = self.state();
            let breakpoint = state
                .breakpoints
                .iter()
                .find(|b| b.hits_stage(&point.stage, point.site.line));
            match (state.mode, breakpoint) {
                (_, Some(breakpoint)) => PauseReason::Breakpoint(breakpoint.clone()),
                (Mode::NextStage, None) => PauseReason::Stage,
                _ => return Ok(()),
            }
        };
        self.stopped(host, point, reason, Some(variables(scope)), Value::Null)
    }

    /// After an action failed: the operator's choice (`Retry`, `Skip` or `Abort`).
    pub(crate) fn after_failure(
        &self,
        host: StopHost<'_>,
        point: PausePoint,
        error: &ActionError,
        assumed: Value,
    ) -> Resume {
        let vars = self.stepping.then(|| self.state().vars.clone());
        let reason = PauseReason::Failed(error.to_string());
        match self.pause(host, point, reason, vars, assumed) {
            answer @ (Resume::Retry | Resume::Skip(_)) => answer,
            _ => Resume::Abort,
        }
    }

    /// Stops at a step or breakpoint; `:abort` stops the host there.
    fn stopped(
        &self,
        host: StopHost<'_>,
        point: PausePoint,
        reason: PauseReason,
        vars: Option<Vec<(String, Dynamic)>>,
        assumed: Value,
    ) -> Result<(), ActionError> {
        match self.pause(host, point, reason, vars, assumed) {
            Resume::Abort => Err(ActionError::Failed("stopped in the debugger".into())),
            _ => Ok(()),
        }
    }

    /// Hands the pause to the prompt and waits. A prompt that went away counts as `Abort`.
    fn pause(
        &self,
        host: StopHost<'_>,
        point: PausePoint,
        reason: PauseReason,
        vars: Option<Vec<(String, Dynamic)>>,
        assumed: Value,
    ) -> Resume {
        let (reply, answer) = channel();
        let pause = Pause {
            assumed,
            host: host.info.clone(),
            point,
            reason,
            transport: host.transport.clone(),
            vars,
            reply,
        };
        if self.pauses.send(pause).is_err() {
            return Resume::Abort;
        }
        let answer = answer.recv().unwrap_or(Resume::Abort);
        if let Some(mode) = mode_after(&answer) {
            self.state().mode = mode;
        }
        answer
    }
}

impl std::fmt::Debug for Debugger {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Debugger")
            .field("stepping", &self.stepping)
            .finish_non_exhaustive()
    }
}

/// The mode an answer sets; decisions on a failure keep the current one.
fn mode_after(answer: &Resume) -> Option<Mode> {
    match answer {
        Resume::Step => Some(Mode::Step),
        Resume::Next => Some(Mode::NextStage),
        Resume::Continue => Some(Mode::Continue),
        Resume::Abort | Resume::Retry | Resume::Skip(_) => None,
    }
}

/// The variables of a scope, innermost last, without the shadowed ones.
fn variables(scope: &Scope) -> Vec<(String, Dynamic)> {
    let mut vars: Vec<(String, Dynamic)> = Vec::new();
    for (name, _, value) in scope.iter_raw() {
        vars.retain(|(seen, _)| seen != name);
        vars.push((name.to_owned(), value.clone()));
    }
    vars
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::path::Path;
    use std::sync::Arc;

    use serde_json::json;

    use crate::journal::HostStatus;
    use crate::{
        Cancel, EventSink, HostInfo, LocalTransport, PreparedRun, RunHost, RunOptions, RunReport,
        RunRequest, Runbook, execute,
    };

    use super::*;

    /// A folder holding `text` as `book.rhai`, and the run folder beside it.
    fn runbook_dir(text: &str) -> tempfile::TempDir {
        let dir = tempfile::tempdir().expect("dir");
        std::fs::create_dir_all(dir.path().join("run")).expect("run dir");
        std::fs::write(dir.path().join("book.rhai"), text).expect("write");
        dir
    }

    fn run(dir: &Path, debugger: Option<Arc<Debugger>>, resume: bool) -> RunReport {
        let request = RunRequest {
            assume: None,
            from_stage: None,
            helpers: Vec::new(),
            hosts: ["a", "b"]
                .into_iter()
                .map(|name| RunHost {
                    info: HostInfo {
                        groups: vec!["all".into()],
                        name: name.into(),
                        vars: BTreeMap::new(),
                    },
                    transport: Ok(Box::new(LocalTransport)),
                })
                .collect(),
            inventory: String::new(),
            libraries: Vec::new(),
            options: RunOptions {
                debugger,
                // Each test its own lease folder: the tests run at once, all on `local`.
                lease_dir: Some(dir.join("leases")),
                ..RunOptions::default()
            },
            prepared: PreparedRun::new(
                Runbook::load(&dir.join("book.rhai")).expect("runbook"),
                &[],
                u64::MAX,
                BTreeMap::new(),
            )
            .expect("compiles"),
            resume,
            run_dir: dir.join("run"),
            run_id: "r1".into(),
        };
        execute(request, Cancel::default(), EventSink::none()).expect("runs")
    }

    #[test]
    fn a_skipped_action_replays_with_the_given_value_on_resume() {
        // Host `b` fails; its `run` is skipped with code 7, which the next action's arguments
        // carry: a resume that replayed anything else would diverge.
        let dir = runbook_dir(
            "stage \"one\" on all {\n    let r = run([\"test\", host().name, \"=\", \"a\"]);\n    run([\"echo\", `${r.code}`]);\n}\n",
        );
        let (sender, pauses) = channel();
        let debugger = Arc::new(Debugger::on_failure(sender));
        let prompt = std::thread::spawn(move || {
            let mut seen = Vec::new();
            while let Ok(pause) = pauses.recv() {
                seen.push((pause.host.name.clone(), pause.point.site.line));
                pause.resume(Resume::Skip(json!({"code": 7, "stdout": "", "stderr": ""})));
            }
            seen
        });
        let report = run(dir.path(), Some(debugger), false);
        assert!(report.succeeded(), "{report:?}");
        assert_eq!(prompt.join().ok(), Some(vec![("b".to_owned(), 2)]));

        let report = run(dir.path(), None, true);
        assert!(report.succeeded(), "{report:?}");
        let journal = crate::journal::HostJournal::load(&dir.path().join("run/b.jsonl"), false)
            .expect("journal");
        let echo = journal.actions.get(&2).expect("the echo");
        assert_eq!(echo.intent.args, json!({"argv": ["echo", "7"]}));
        assert_eq!(
            journal.end.map(|e| e.status),
            Some(HostStatus::Done),
            "resumed without running anything again"
        );
        let intents = journal
            .events
            .iter()
            .filter(|(_, e)| matches!(e, crate::journal::JournalEvent::Intent(_)))
            .count();
        assert_eq!(intents, 2);
    }

    #[test]
    fn breakpoints_are_removed_one_by_one_or_all_at_once() {
        let (sender, _pauses) = channel();
        let debugger = Debugger::stepping(sender);
        let stage = Breakpoint::Stage("one".into());
        let line = Breakpoint::Line(3);
        debugger.add_breakpoint(stage.clone());
        debugger.add_breakpoint(line.clone());
        debugger.add_breakpoint(line.clone());
        assert_eq!(debugger.breakpoints(), vec![stage.clone(), line.clone()]);
        assert!(debugger.remove_breakpoint(&stage));
        assert!(!debugger.remove_breakpoint(&stage), "already removed");
        assert_eq!(debugger.breakpoints(), vec![line]);
        assert_eq!(debugger.clear_breakpoints(), 1);
        assert!(debugger.breakpoints().is_empty());
    }

    #[test]
    fn without_a_prompt_a_failure_aborts() {
        let dir = runbook_dir("stage \"one\" on all {\n    run([\"false\"]);\n}\n");
        let (sender, pauses) = channel();
        drop(pauses);
        let report = run(
            dir.path(),
            Some(Arc::new(Debugger::on_failure(sender))),
            false,
        );
        assert!(report.hosts.iter().all(|h| h.status == HostStatus::Failed));
    }
}
