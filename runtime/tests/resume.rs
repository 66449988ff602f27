//! Resume on local hosts: replay answers from the journal, unknown outcomes ask, edits that
//! contradict the journal are refused before anything runs, torn and corrupt lines.

mod support;

use cairn_runtime::RunError;
use cairn_runtime::journal::HostJournal;
use support::Lab;

/// A runbook that appends to `counter` in the lab, so tests can count what really ran.
fn book(lab: &Lab) -> String {
    let counter = lab.path().join("counter").display().to_string();
    format!(
        r#"
stage "count" on all {{
    run(["sh", "-c", "echo x >> {counter}"]);
    let r = run(["sh", "-c", "wc -l < {counter}"]);
    log(r.stdout);
}}
"#
    )
}

fn lines(lab: &Lab) -> usize {
    std::fs::read_to_string(lab.path().join("counter")).map_or(0, |t| t.lines().count())
}

#[test]
fn a_finished_run_replays_without_touching_the_host() {
    let lab = Lab::new();
    {
        assert!(
            lab.run(&book(&lab), &[("h", &[])], &[], false)
                .expect("runs")
                .succeeded()
        );
        assert!(
            lab.run(&book(&lab), &[("h", &[])], &[], true)
                .expect("resumes")
                .succeeded()
        );
    }
    assert_eq!(lines(&lab), 1, "the append ran once");
    assert_eq!(lab.journal("h").actions.len(), 2);
}

/// Cuts the journal back to just after its first intent: the action started, its outcome lost.
fn crash_after_first_intent(lab: &Lab) {
    let path = lab.run_dir().join("h.jsonl");
    let text = std::fs::read_to_string(&path).expect("journal");
    let kept: Vec<&str> = text
        .lines()
        .take_while(|l| !l.contains("\"type\":\"outcome\""))
        .collect();
    std::fs::write(&path, kept.join("\n") + "\n").expect("cut");
}

#[test]
fn an_unknown_outcome_stops_the_resume_until_the_operator_decides() {
    let lab = Lab::new();
    {
        lab.run(&book(&lab), &[("h", &[])], &[], false)
            .expect("runs");
        crash_after_first_intent(&lab);
        let error = lab.run(&book(&lab), &[("h", &[])], &[], true).unwrap_err();
        assert!(
            matches!(error, RunError::NeedsDecision(ref hosts) if hosts.len() == 1),
            "{error:?}"
        );
    }
    assert_eq!(lines(&lab), 1, "nothing ran while waiting for a decision");
}

#[test]
fn an_edited_stage_is_refused_before_anything_runs() {
    let lab = Lab::new();
    {
        lab.run(&book(&lab), &[("h", &[])], &[], false)
            .expect("runs");
        let path = lab.run_dir().join("h.jsonl");
        let text = std::fs::read_to_string(&path).expect("journal");
        let cut: Vec<&str> = text.lines().filter(|l| !l.contains("host_end")).collect();
        std::fs::write(&path, cut.join("\n") + "\n").expect("cut");
        let edited = book(&lab).replace("echo x", "echo y")
            + "\nstage \"more\" on all { run([\"true\"]); }\n";
        let error = lab.run(&edited, &[("h", &[])], &[], true).unwrap_err();
        let RunError::Diverged(failures) = &error else {
            panic!("{error:?}")
        };
        let rendered = format!("{:?}", miette::Report::new(error_clone(&failures[0])));
        assert!(rendered.contains("stage `count`"), "{rendered}");
        assert!(
            rendered.contains("echo y"),
            "runbook span shown: {rendered}"
        );
        assert!(
            rendered.contains("recorded here") && rendered.contains("h.jsonl"),
            "journal span shown: {rendered}"
        );
    }
    assert_eq!(lines(&lab), 1, "the new stage did not run");
}

fn error_clone(failure: &cairn_runtime::HostFailure) -> miette::MietteDiagnostic {
    let mut rendered = String::new();
    let _ = miette::GraphicalReportHandler::new_themed(miette::GraphicalTheme::unicode_nocolor())
        .render_report(&mut rendered, failure);
    miette::MietteDiagnostic::new(rendered)
}

#[test]
fn a_torn_last_line_is_dropped_and_a_corrupt_middle_line_is_an_error() {
    let lab = Lab::new();
    lab.run(&book(&lab), &[("h", &[])], &[], false)
        .expect("runs");
    let path = lab.run_dir().join("h.jsonl");
    let text = std::fs::read_to_string(&path).expect("journal");
    std::fs::write(&path, format!("{text}{{\"type\":\"intent\",\"da")).expect("tear");
    let torn = HostJournal::load(&path, true).expect("a torn line is not an error");
    assert_eq!(torn.torn_line, Some(text.lines().count() + 1));
    assert_eq!(
        std::fs::read_to_string(&path).expect("repaired"),
        text,
        "cut back to whole lines"
    );

    let mut lines: Vec<&str> = text.lines().collect();
    lines[2] = "{not json";
    std::fs::write(&path, lines.join("\n") + "\n").expect("corrupt");
    let error = HostJournal::load(&path, true).unwrap_err();
    assert!(error.to_string().contains("line 3"), "{error}");
}
