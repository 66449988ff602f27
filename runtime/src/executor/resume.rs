//! A resume's steps before any host starts: every journal read and opened for writing,
//! `--from-stage`'s rewind, the answers to unknown outcomes, and (when the runbook or the params
//! changed) a replay of every journal against the runbook that touches no host.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use super::{Participant, Plan, RunError, Unreachable};
use crate::CONTROLLER;
use crate::ending::failure::HostFailure;
use crate::fence::StepRecord;
use crate::journal::{
    Assume, DecisionRecord, HostJournal, JournalEvent, JournalSet, RewindRecord, now_millis,
};
use crate::{
    Assumptions, Cancel, EventSink, HostContext, Installer, Mode, RunEvent, RunOptions, RunShared,
    Transport, bind_host, build_engine,
};

/// What a resume is given besides the plan.
pub(super) struct Resuming<'a> {
    /// `--assume`, for all or some hosts.
    pub(super) assume: Assumptions,
    /// The runbook, compiled.
    pub(super) ast: &'a rhai::AST,
    /// The engine it was compiled with (the checks of a result's use read its syntax).
    pub(super) engine: &'a rhai::Engine,
    /// `--from-stage`.
    pub(super) from_stage: Option<&'a str>,
    /// Builtin libraries, for the verifying replay.
    pub(super) libraries: &'a [Installer],
    /// The run's options.
    pub(super) options: &'a RunOptions,
}

impl Resuming<'_> {
    /// Reads every journal the run left and opens each for writing before any is written (a
    /// resume that cannot write one of them has changed none, docs/journal.md), settles
    /// `--from-stage` and `--assume`, and verifies the journals against the runbook when it
    /// or the params changed. The journals as the hosts replay them, and their writers.
    pub(super) fn open(
        &self,
        plan: &Plan,
        participants: &[Participant],
        events: &EventSink,
    ) -> Result<(BTreeMap<String, HostJournal>, JournalSet), RunError> {
        let mut recorded = read_journals(plan, participants, events)?;
        let writable = participants
            .iter()
            .filter(|(info, ..)| !self.options.check || recorded.contains_key(&info.name))
            .map(|(info, ..)| (info.name.clone(), plan.journal_path(&info.name)));
        let mut journals = JournalSet::open_all(writable)?;
        let answered = settle_before_start(
            self.engine,
            &mut recorded,
            &mut journals,
            self.from_stage,
            &self.assume,
            plan,
            participants,
        )?;
        // The hosts' instances replay the answers just journaled, and only those.
        for (host, seq, assume) in answered {
            let action = recorded
                .get_mut(&host)
                .and_then(|journal| journal.actions.get_mut(&seq));
            if let Some(action) = action {
                action.decision = Some(assume);
            }
        }
        // A resume with other `--param` values can diverge as an edit can: both are verified
        // before anything runs, rather than failing host by host mid-run.
        let shown_params = plan.params.shown();
        if recorded.values().any(|j| {
            j.header
                .as_ref()
                .is_none_or(|h| h.runbook_hash != plan.runbook.hash || h.params != shown_params)
        }) {
            verify(self, plan, participants, &recorded)?;
        }
        Ok((recorded, journals))
    }
}

/// The journals of the participants that have one, warning about a line a crash tore.
fn read_journals(
    plan: &Plan,
    participants: &[Participant],
    events: &EventSink,
) -> Result<BTreeMap<String, HostJournal>, RunError> {
    let mut recorded = BTreeMap::new();
    for (info, ..) in participants {
        let path = plan.journal_path(&info.name);
        if !path.exists() {
            continue;
        }
        let journal = HostJournal::load_for_resume(&path)?;
        if let Some(line) = journal.torn_line {
            events.send(RunEvent::Warning {
                host: info.name.clone(),
                message: format!(
                    "line {line} of {} was torn by a crash during a write and was dropped",
                    path.display()
                ),
            });
        }
        recorded.insert(info.name.clone(), journal);
    }
    Ok(recorded)
}

/// What a resume settles in the journals before any host starts: `--from-stage`'s rewind and
/// the answers to unknown outcomes, which it returns (host, action, answer).
fn settle_before_start(
    engine: &rhai::Engine,
    recorded: &mut BTreeMap<String, HostJournal>,
    journals: &mut JournalSet,
    from_stage: Option<&str>,
    assume: &Assumptions,
    plan: &Plan,
    participants: &[Participant],
) -> Result<Vec<(String, u64, Assume)>, RunError> {
    if let Some(stage) = from_stage {
        rewind(recorded, journals, stage)?;
    }
    settle_unknown_outcomes(engine, recorded, journals, assume, plan, participants)
}

/// What `host`'s fence recorded of the interrupted `action`'s first command; `None` when the
/// host keeps no fence or cannot say. Never started or done, the host's instance settles the
/// action without asking (`host_context/fence_settle.rs`); a command started and never
/// finished is still asked there.
fn first_step_record(
    participants: &[Participant],
    plan: &Plan,
    host: &str,
    action: &crate::journal::RecordedAction,
) -> Option<StepRecord> {
    let (_, _, transport) = participants.iter().find(|(info, ..)| info.name == host)?;
    let first = crate::fence::step_id(&plan.run_id, action.intent.seq, action.intent.at, 1);
    transport.fence_record(&first).ok().flatten()
}

/// A resume starts by saying what the run it continues left down.
pub(super) fn announce_left_behind(
    recorded: &BTreeMap<String, HostJournal>,
    events: &crate::EventSink,
) {
    let left: Vec<String> = recorded
        .iter()
        .flat_map(|(host, journal)| crate::left_behind::left_behind(host, journal))
        .map(|left| left.to_string())
        .collect();
    if !left.is_empty() {
        events.send(RunEvent::Warning {
            host: CONTROLLER.into(),
            message: format!(
                "the run was left with {}: the resume continues from there",
                left.join(", ")
            ),
        });
    }
}

/// Forgets, in every journal, the actions from the first time the runbook entered `stage` on:
/// a `rewind` record is appended, and the resume runs them again.
fn rewind(
    recorded: &mut BTreeMap<String, HostJournal>,
    journals: &mut JournalSet,
    stage: &str,
) -> Result<(), RunError> {
    let mut found = false;
    for (host, journal) in recorded.iter_mut() {
        let index = journal.events.iter().find_map(|(_, event)| match event {
            JournalEvent::Stage(record) if record.name == stage => Some(record.index),
            _ => None,
        });
        let Some(index) = index else { continue };
        found = true;
        let from = journal
            .actions
            .values()
            .find(|action| action.intent.stage_index >= index)
            .map(|action| action.intent.seq);
        let Some(seq) = from else { continue };
        let record = RewindRecord {
            at: now_millis(),
            seq,
        };
        if let Some(writer) = journals.get(host) {
            writer.append(&JournalEvent::Rewind(record), true)?;
        }
        journal.actions.retain(|s, _| *s < seq);
        journal.end = None;
    }
    if found {
        Ok(())
    } else {
        Err(RunError::Param {
            message: format!("no host of this run has entered a stage named `{stage}`"),
            help: Some("`cairn journal HOST` shows the stages a host went through".into()),
        })
    }
}

/// Actions recorded without an outcome that only the operator can settle: record the answers
/// and return them, or refuse to start.
fn settle_unknown_outcomes(
    engine: &rhai::Engine,
    recorded: &BTreeMap<String, HostJournal>,
    journals: &mut JournalSet,
    assume: &Assumptions,
    plan: &Plan,
    participants: &[Participant],
) -> Result<Vec<(String, u64, Assume)>, RunError> {
    let mut waiting = Vec::new();
    let mut unknown_results = Vec::new();
    let mut answered = Vec::new();
    for (host, journal) in recorded {
        for action in journal
            .unfinished()
            .filter(|action| action.intent.reconcile == "ask" && action.decision.is_none())
        {
            let intent = &action.intent;
            // A bare answer covers the hosts not named, but not an action whose first command
            // the fence never saw start: it never ran, and a bare `done` would skip it.
            let answer = match assume.named(host) {
                Some(answer) => Some(answer),
                None => match (
                    first_step_record(participants, plan, host, action),
                    assume.for_host(host),
                ) {
                    (Some(StepRecord::None), _) | (Some(StepRecord::Done { .. }), None) => {
                        continue;
                    }
                    (_, bare) => bare,
                },
            };
            match answer {
                Some(Assume::Done)
                    if crate::check::result_is_read(
                        engine,
                        &intent.file,
                        intent.line,
                        intent.column,
                    ) =>
                {
                    unknown_results.push(HostFailure::unknown_result(
                        host,
                        &plan.journal_path(host),
                        action,
                    ));
                }
                Some(assume) => answered.push((host.clone(), intent.seq, assume)),
                None => waiting.push(HostFailure::needs_decision(
                    host,
                    &plan.journal_path(host),
                    action,
                )),
            }
        }
    }
    // A host left without an answer, or with one that would invent a result, stops the resume
    // before any answer is recorded.
    if !waiting.is_empty() {
        return Err(RunError::NeedsDecision(crate::output::group_failures(
            waiting,
        )));
    }
    if !unknown_results.is_empty() {
        return Err(RunError::UnknownResult(crate::output::group_failures(
            unknown_results,
        )));
    }
    for (host, seq, assume) in &answered {
        let record = DecisionRecord {
            assume: *assume,
            at: now_millis(),
            seq: *seq,
        };
        if let Some(writer) = journals.get(host) {
            writer.append(&JournalEvent::Decision(record), true)?;
        }
    }
    Ok(answered)
}

/// Replays every host's journal against the edited runbook, touching no host, and refuses to
/// start if any recorded action no longer matches.
fn verify(
    resuming: &Resuming<'_>,
    plan: &Plan,
    participants: &[Participant],
    recorded: &BTreeMap<String, HostJournal>,
) -> Result<(), RunError> {
    let shared = Arc::new(RunShared::new(
        participants.len(),
        plan.host_infos.clone(),
        resuming.options.clone(),
        plan.params.clone(),
        Cancel::default(),
        EventSink::none(),
    ));
    if let Ok(mut published) = shared.published.lock() {
        for (host, journal) in recorded {
            published.insert(host.clone(), journal.published());
        }
    }
    let mut diverged = Vec::new();
    for (info, role, _) in participants {
        let Some(journal) = recorded.get(&info.name) else {
            continue;
        };
        let transport: Arc<Mutex<Box<dyn Transport>>> =
            Arc::new(Mutex::new(Box::new(Unreachable {
                host: info.name.clone(),
                reason: "verifying".into(),
            })));
        let host = Arc::new(HostContext::new(
            info.clone(),
            *role,
            Mode::Verify,
            shared.clone(),
            transport,
            journal.clone(),
            None,
            plan.runbook.name(),
        ));
        let mut engine = build_engine(
            &plan.runbook.imports(),
            resuming.libraries,
            resuming.options.max_operations,
        );
        bind_host(&mut engine, &host);
        if let Err(error) = engine.run_ast(resuming.ast) {
            let failure = HostFailure::from_rhai(&host, &plan.runbook, &error);
            if failure.diverged() {
                diverged.push(failure);
            }
        }
    }
    if diverged.is_empty() {
        Ok(())
    } else {
        Err(RunError::Diverged(crate::output::group_failures(diverged)))
    }
}
