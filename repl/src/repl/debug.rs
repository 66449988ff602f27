//! The debugger's commands at the prompt: `:load`, `:break`, `:step`, `:next`, `:continue`,
//! `:retry`, `:skip`, `:abort`, and how a pause is shown.

use std::collections::BTreeMap;
use std::path::Path;

use cairn_runtime::journal::HostStatus;
use cairn_runtime::{DebugEvent, DebugRequest, DebugRun, Pause, PauseReason, Resume, Runbook};

use super::{DebugStart, Flow, Repl, install_interrupt};

impl Repl {
    /// `cairn debug`: load, set the breakpoints, and run to the first stop (the first action,
    /// or the first breakpoint when there are some).
    pub(super) fn start_debugging(&mut self, start: DebugStart) -> miette::Result<()> {
        self.load_runbook(&start.runbook, start.params)?;
        for text in &start.breakpoints {
            if let Some(run) = &self.loaded {
                let breakpoint = run.break_at(text)?;
                println!("breakpoint at {breakpoint}");
            }
        }
        let first = if start.breakpoints.is_empty() {
            Resume::Step
        } else {
            Resume::Continue
        };
        self.go(first);
        Ok(())
    }

    /// `:load RUNBOOK [NAME=VALUE...]`.
    pub(super) fn load(&mut self, argument: &str) {
        let mut words = argument.split_whitespace();
        let Some(path) = words.next() else {
            eprintln!("`:load RUNBOOK [NAME=VALUE...]`: which runbook?");
            return;
        };
        let mut params = BTreeMap::new();
        for pair in words {
            match pair.split_once('=') {
                Some((name, value)) if !name.is_empty() => {
                    params.insert(name.to_owned(), value.to_owned());
                }
                _ => {
                    eprintln!("`{pair}` is not NAME=VALUE");
                    return;
                }
            }
        }
        if let Err(error) = self.load_runbook(Path::new(path), params) {
            eprintln!("{error:?}");
        }
    }

    fn load_runbook(
        &mut self,
        path: &Path,
        params: BTreeMap<String, String>,
    ) -> miette::Result<()> {
        if self.failed.is_some() {
            return Err(miette::miette!(
                "a failed action of the run waits on this host: :retry, :skip or :abort first"
            ));
        }
        let runbook = Runbook::load(path)?.with_lib_path(&crate::assembly::lib_path());
        let request = DebugRequest {
            events: cairn_runtime::EventSink::none(),
            info: self.session.host().clone(),
            journal: self.sessions.journal(&self.session.host().name, Some(path)),
            libraries: self.sessions.libraries().to_vec(),
            params,
            runbook,
            transport: self.session.transport(),
            helpers: self.sessions.helpers(&self.session.host().name),
        };
        // Loading again replaces (and stops) the runbook loaded before.
        self.loaded = None;
        let run = DebugRun::load(request)?;
        println!(
            "loaded {} on `{}`; journal {}",
            run.runbook().name(),
            self.session.host().name,
            run.journal().display()
        );
        println!(":break LINE|STAGE, then :step, :next or :continue");
        self.runbook_journal = Some(run.journal().to_owned());
        self.loaded = Some(run);
        Ok(())
    }

    /// `:break LINE|STAGE`, or alone the list.
    pub(super) fn set_break(&mut self, argument: &str) {
        let Some(run) = &self.loaded else {
            eprintln!("no runbook loaded: `:load RUNBOOK` first");
            return;
        };
        if argument.is_empty() {
            for breakpoint in run.breakpoints() {
                println!("breakpoint at {breakpoint}");
            }
            return;
        }
        match run.break_at(argument) {
            Ok(breakpoint) => println!("breakpoint at {breakpoint}"),
            Err(error) => eprintln!("{:?}", miette::Report::new(error)),
        }
    }

    /// `:unbreak LINE|STAGE`, or alone every breakpoint.
    pub(super) fn remove_break(&mut self, argument: &str) {
        let Some(run) = &self.loaded else {
            eprintln!("no runbook loaded: `:load RUNBOOK` first");
            return;
        };
        if argument.is_empty() {
            println!("{} breakpoint(s) removed", run.clear_breakpoints());
            return;
        }
        match run.unbreak(argument) {
            Ok((breakpoint, true)) => println!("no breakpoint at {breakpoint} any more"),
            Ok((breakpoint, false)) => eprintln!("there was no breakpoint at {breakpoint}"),
            Err(error) => eprintln!("{:?}", miette::Report::new(error)),
        }
    }

    /// `:step`, `:next`, `:continue`: let the loaded runbook go and show where it stops.
    pub(super) fn go(&mut self, answer: Resume) {
        if self.failed.is_some() {
            eprintln!("this prompt answers a failed action: :retry, :skip [VALUE] or :abort");
            return;
        }
        let Some(run) = self.loaded.as_mut() else {
            eprintln!("no runbook loaded: `:load RUNBOOK` first");
            return;
        };
        if let Some(Err(refused)) = run.paused().map(|pause| pause.check(&answer)) {
            eprintln!("{refused}");
            return;
        }
        self.resume_loaded(answer);
    }

    fn resume_loaded(&mut self, answer: Resume) {
        let Some(run) = self.loaded.as_mut() else {
            return;
        };
        install_interrupt(run.interrupter());
        let event = run.go(answer);
        install_interrupt(self.session.interrupter());
        match event {
            DebugEvent::Paused => {
                if let Some(pause) = run.paused() {
                    show_pause(pause, Some(run.runbook()));
                }
            }
            DebugEvent::Finished(report) => {
                let report = *report;
                match (report.status, report.failure) {
                    (HostStatus::Done, _) => println!("the runbook finished on `{}`", report.name),
                    (status, Some(failure)) => {
                        println!("the runbook ended ({status:?}) on `{}`", report.name);
                        eprintln!("{:?}", miette::Report::new(failure));
                    }
                    (status, None) => println!("the runbook ended ({status:?})"),
                }
                println!("its journal: {}", run.journal().display());
                self.loaded = None;
            }
        }
    }

    /// `:retry`, `:skip [VALUE]`, `:abort`. At a run's failed action the answer ends the prompt.
    pub(super) fn decide(&mut self, name: &str, argument: &str) -> Flow {
        let paused = self
            .failed
            .as_ref()
            .or_else(|| self.loaded.as_ref().and_then(DebugRun::paused));
        let Some(pause) = paused else {
            eprintln!("nothing waits here: `:{name}` answers a paused runbook");
            return Flow::Continue;
        };
        let answer = match name {
            "retry" => Resume::Retry,
            "abort" => Resume::Abort,
            // Checked before the value is evaluated: evaluating it may act on the host.
            _ => Resume::Skip(pause.assumed.clone()),
        };
        if let Err(refused) = pause.check(&answer) {
            eprintln!("{refused}");
            return Flow::Continue;
        }
        let answer = match answer {
            Resume::Skip(_) if !argument.is_empty() => match self.session.eval_json(argument) {
                Ok(value) => Resume::Skip(value),
                Err(error) => {
                    eprintln!("{:?}", miette::Report::new(error));
                    return Flow::Continue;
                }
            },
            answer => answer,
        };
        if let Some(pause) = self.failed.take() {
            println!("{}", decided(&answer));
            pause.resume(answer);
            return Flow::Quit;
        }
        println!("{}", decided(&answer));
        self.resume_loaded(answer);
        Flow::Continue
    }

    /// At a run's failed action, leaving the prompt without an answer is `:abort`.
    pub(super) fn quit_failed(&mut self) {
        if let Some(pause) = self.failed.take() {
            println!("{}", decided(&Resume::Abort));
            pause.resume(Resume::Abort);
        }
    }

    /// `:where`: the host and journal, and where the runbook stands.
    pub(super) fn print_where(&self) {
        println!(
            "host `{}`, journal {}",
            self.session.host().name,
            self.journal_path.display()
        );
        let Some(run) = &self.loaded else {
            if let Some(pause) = &self.failed {
                show_pause(pause, None);
            }
            return;
        };
        println!(
            "runbook {}, its journal {}",
            run.runbook().name(),
            run.journal().display()
        );
        match run.paused() {
            Some(pause) => show_pause(pause, Some(run.runbook())),
            None if run.started() => println!("running"),
            None => println!("not started: :step, :next or :continue"),
        }
    }
}

fn decided(answer: &Resume) -> String {
    match answer {
        Resume::Retry => "retrying the action".into(),
        Resume::Skip(value) => format!("skipping the action: it returns {value}"),
        _ => "aborting".into(),
    }
}

/// Shows where a runbook stopped: why, the runbook line, and the action.
pub(super) fn show_pause(pause: &Pause, runbook: Option<&Runbook>) {
    let site = &pause.point.site;
    let place = format!("{}:{}:{}", site.file, site.line, site.column);
    let stage = &pause.point.stage;
    let at = match (&pause.point.action, pause.point.seq) {
        (Some(action), Some(seq)) => {
            format!("before action #{seq} `{action}` at {place} (stage `{stage}`)")
        }
        _ => format!("stage `{stage}` begins at {place}"),
    };
    match &pause.reason {
        PauseReason::Failed(error) => {
            let action = pause.point.action.as_deref().unwrap_or_default();
            let seq = pause.point.seq.unwrap_or_default();
            println!(
                "✗ action #{seq} `{action}` failed on `{}` at {place} (stage `{stage}`)",
                pause.host.name
            );
            println!("  {error}");
        }
        PauseReason::Breakpoint(breakpoint) => println!("● breakpoint at {breakpoint}: {at}"),
        PauseReason::Stage | PauseReason::Step => println!("→ {at}"),
    }
    if let Some(text) = source_line(site.file.as_str(), site.line, runbook) {
        println!("{:>5} │ {text}", site.line);
    }
    for caller in &site.callers {
        println!(
            "  `{}` called from {}:{}:{}",
            caller.function, caller.file, caller.line, caller.column
        );
    }
    if pause.failed() {
        println!(
            ":retry, :skip [VALUE] (default {}), :abort; any rhai runs on the host",
            pause.assumed
        );
    }
}

/// A line of the runbook (or module) a pause points at.
fn source_line(file: &str, line: u32, runbook: Option<&Runbook>) -> Option<String> {
    let index = usize::try_from(line).ok()?.checked_sub(1)?;
    let text = match runbook {
        Some(runbook) if runbook.name() == file => runbook.text.clone(),
        _ => std::fs::read_to_string(file).ok()?,
    };
    text.lines().nth(index).map(|l| l.trim_end().to_owned())
}
