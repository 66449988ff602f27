//! `DebugRun` driven as the prompt drives it, on this machine.

use std::path::Path;

use serde_json::json;

use super::*;
use crate::journal::DebugChoice;
use crate::{LocalTransport, PauseReason};

/// The request for `text` on this machine as host `local`, journaled in `dir`.
fn request(dir: &Path, text: &str) -> DebugRequest {
    let path = dir.join("book.rhai");
    std::fs::write(&path, text).expect("write runbook");
    DebugRequest {
        events: EventSink::none(),
        info: HostInfo {
            groups: vec!["all".into()],
            name: "local".into(),
            vars: BTreeMap::new(),
        },
        journal: dir.join("debug.jsonl"),
        libraries: Vec::new(),
        params: BTreeMap::new(),
        runbook: Runbook::load(&path).expect("runbook"),
        transport: Arc::new(Mutex::new(Box::new(LocalTransport))),
        helpers: Vec::new(),
    }
}

fn load(dir: &Path, text: &str) -> DebugRun {
    DebugRun::load(request(dir, text)).expect("loads")
}

fn paused_line(run: &DebugRun) -> u32 {
    run.paused().map_or(0, |p| p.point.site.line)
}

fn intents(dir: &Path) -> Vec<(u64, String)> {
    let journal = HostJournal::load(&dir.join("debug.jsonl"), false).expect("journal");
    journal
        .events
        .into_iter()
        .filter_map(|(_, event)| match event {
            JournalEvent::Intent(i) => Some((i.seq, i.builtin)),
            _ => None,
        })
        .collect()
}

#[test]
fn step_next_and_breakpoints_stop_where_they_say() {
    let dir = tempfile::tempdir().expect("dir");
    let mut run = load(
        dir.path(),
        "let greeting = \"hi\";\nstage \"one\" on all {\n    run([\"echo\", greeting]);\n    run([\"true\"]);\n}\nstage \"two\" on all {\n    let n = 2;\n    run([\"echo\", `${n}`]);\n}\n",
    );
    assert!(matches!(run.go(Resume::Step), DebugEvent::Paused));
    assert_eq!(paused_line(&run), 3);
    let vars = run
        .paused()
        .and_then(|p| p.vars.clone())
        .unwrap_or_default();
    assert!(
        vars.iter()
            .any(|(name, value)| name == "greeting" && value.to_string() == "hi"),
        "{vars:?}"
    );
    assert!(matches!(run.go(Resume::Step), DebugEvent::Paused));
    assert_eq!(paused_line(&run), 4);
    assert!(matches!(run.go(Resume::Next), DebugEvent::Paused));
    let pause = run.paused().expect("paused");
    assert_eq!(
        (pause.point.stage.as_str(), pause.reason.clone()),
        ("two", PauseReason::Stage)
    );
    run.break_at("8").expect("line 8 holds code");
    assert!(matches!(run.go(Resume::Continue), DebugEvent::Paused));
    let pause = run.paused().expect("paused at the breakpoint");
    assert_eq!(pause.reason, PauseReason::Breakpoint(Breakpoint::Line(8)));
    assert!(
        pause.vars.iter().flatten().any(|(name, _)| name == "n"),
        "{:?}",
        pause.vars
    );
    match run.go(Resume::Continue) {
        DebugEvent::Finished(report) => assert_eq!(report.status, HostStatus::Done),
        DebugEvent::Paused => panic!("stopped again at {:?}", run.paused()),
    }
    assert_eq!(intents(dir.path()).len(), 3);
}

#[test]
fn retry_runs_the_stage_again_but_touches_the_host_only_for_the_failed_action() {
    let dir = tempfile::tempdir().expect("dir");
    let marker = dir.path().join("fixed");
    let text = format!(
        "let seen = [];\nstage \"one\" on all {{\n    seen.push(1);\n    run([\"echo\", \"before\"]);\n    run([\"test\", \"-e\", \"{}\"]);\n    log(`seen ${{seen.len()}}`);\n}}\n",
        marker.display()
    );
    let mut run = load(dir.path(), &text);
    assert!(matches!(run.go(Resume::Continue), DebugEvent::Paused));
    assert!(run.paused().is_some_and(Pause::failed));
    assert_eq!(paused_line(&run), 5);
    std::fs::write(&marker, "").expect("fix the host");
    match run.go(Resume::Retry) {
        DebugEvent::Finished(report) => assert_eq!(report.status, HostStatus::Done),
        DebugEvent::Paused => panic!("stopped again at {:?}", run.paused()),
    }
    let journal = HostJournal::load(&dir.path().join("debug.jsonl"), false).expect("journal");
    let choices: Vec<DebugChoice> = journal
        .events
        .iter()
        .filter_map(|(_, e)| match e {
            JournalEvent::Debug(d) => Some(d.choice),
            _ => None,
        })
        .collect();
    assert_eq!(choices, [DebugChoice::Retry]);
    assert_eq!(
        intents(dir.path()),
        [(1, "run".into()), (2, "run".into()), (2, "run".into())],
        "`echo before` ran once"
    );
    let logs: Vec<String> = journal
        .events
        .iter()
        .filter_map(|(_, e)| match e {
            JournalEvent::Log(l) => Some(l.message.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(
        logs,
        ["seen 1"],
        "the stage ran again from its starting scope"
    );
}

#[test]
fn skip_records_the_value_given_and_abort_fails_the_host() {
    let dir = tempfile::tempdir().expect("dir");
    let mut run = load(
        dir.path(),
        "stage \"one\" on all {\n    let r = run([\"false\"]);\n    log(`code ${r.code}`);\n    run([\"false\"]);\n}\n",
    );
    assert!(matches!(run.go(Resume::Continue), DebugEvent::Paused));
    let assumed = run.paused().map(|p| p.assumed.clone());
    assert_eq!(
        assumed,
        Some(json!({"code": 0, "stdout": "", "stderr": ""}))
    );
    let value = json!({"code": 7, "stdout": "", "stderr": ""});
    assert!(matches!(
        run.go(Resume::Skip(value.clone())),
        DebugEvent::Paused
    ));
    assert_eq!(paused_line(&run), 4);
    match run.go(Resume::Abort) {
        DebugEvent::Finished(report) => {
            assert_eq!(report.status, HostStatus::Failed);
            let failure = report.failure.map(|f| f.one_line()).unwrap_or_default();
            assert!(failure.contains("`false` exited with 1"), "{failure}");
        }
        DebugEvent::Paused => panic!("stopped again"),
    }
    let journal = HostJournal::load(&dir.path().join("debug.jsonl"), false).expect("journal");
    let skipped = journal.actions.get(&1).and_then(|a| a.outcome.clone());
    assert!(
        skipped.is_some_and(|o| o.ok && o.how.as_deref() == Some("skipped") && o.result == value),
        "the skip is the action's outcome"
    );
    assert!(
        journal
            .events
            .iter()
            .any(|(_, e)| matches!(e, JournalEvent::Log(l) if l.message == "code 7"))
    );
}

#[test]
fn unknown_params_are_refused_on_load() {
    let dir = tempfile::tempdir().expect("dir");
    let request = DebugRequest {
        params: BTreeMap::from([("mut".to_owned(), "1".to_owned())]),
        ..request(dir.path(), "param mtu = 9000;\n")
    };
    let error = DebugRun::load(request).err().expect("refused");
    assert!(
        error.message.contains("no param `mut`"),
        "{}",
        error.message
    );
    // The run's check and wording: a did-you-mean, then the declared params.
    assert_eq!(
        error.help.as_deref(),
        Some("did you mean `mtu`? its params: mtu")
    );
}
