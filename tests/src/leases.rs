//! Host leases: a host is acted on by one run at a time, across runs and working folders; a
//! second run refuses (or waits, `--wait-for-hosts`), and a dead holder's lease is taken over.

use std::path::Path;
use std::process::Child;
use std::time::Duration;

use cairn_tests::{Lab, records, spawn_piped, wait_until};

/// How long a test waits for a run to get somewhere.
const LIMIT: Duration = Duration::from_secs(20);

/// A run that reboots its hosts (3 s each): it holds them for a while.
const REBOOTS: &str = "stage \"r\" on all {\n    run([\"echo\", \"A-before\"]);\n    reboot();\n    run([\"echo\", \"A-after\"]);\n}\n";
/// Another runbook on the same hosts.
const ECHOES: &str = "stage \"c\" on all { run([\"echo\", \"B\"]); }\n";

fn lab() -> Lab {
    let lab = Lab::new();
    lab.write("a.rhai", REBOOTS);
    lab.write("b.rhai", ECHOES);
    lab.write(
        "inv.toml",
        "[hosts.\"n[1-2]\"]\naddress = \"sim:linux?reboot_secs=3\"\n",
    );
    lab
}

/// Waits until `host`'s simulated log has `echo WORD`.
fn until_logged(lab: &Lab, host: &str, word: &str) {
    wait_until(&format!("{host} never ran {word}"), LIMIT, || {
        lab.sim_count(host, &["echo", word]) > 0
    });
}

/// The words `host` echoed, in order.
fn echoed(lab: &Lab, host: &str) -> Vec<String> {
    lab.sim_commands(host)
        .into_iter()
        .filter(|c| c.first().map(String::as_str) == Some("echo"))
        .filter_map(|c| c.get(1).cloned())
        .collect()
}

fn finish(child: Child) -> cairn_tests::Run {
    cairn_tests::Run::from(
        child
            .wait_with_output()
            .unwrap_or_else(|e| panic!("wait: {e}")),
    )
}

#[test]
fn a_second_run_on_held_hosts_refuses_before_acting_naming_the_holder() {
    let lab = lab();
    let first = spawn_piped(lab.command(&["run", "a.rhai", "-i", "inv.toml"]));
    until_logged(&lab, "n1", "A-before");
    let second = lab.cairn(&["run", "b.rhai", "-i", "inv.toml"]);
    finish(first).succeeds();
    let second = second.fails(2);
    let id = lab.runs().pop().unwrap_or_default();
    for host in ["n1", "n2"] {
        let line = format!("{host} is held by run {id} (controller ");
        assert!(second.stderr.contains(&line), "{line}\n{}", second.stderr);
        assert_eq!(
            echoed(&lab, host),
            ["A-before", "A-after"],
            "{host}: only the first run acted"
        );
    }
    second.stderr_has("wait, or resume that run");
    assert_eq!(
        lab.runs().len(),
        1,
        "the refused run left no run folder to resume"
    );
}

#[test]
fn wait_for_hosts_waits_for_the_holder_then_runs() {
    let lab = lab();
    let first = spawn_piped(lab.command(&["run", "a.rhai", "-i", "inv.toml"]));
    until_logged(&lab, "n1", "A-before");
    let second = lab.cairn(&["run", "b.rhai", "-i", "inv.toml", "--wait-for-hosts"]);
    finish(first).succeeds();
    let second = second.succeeds();
    assert!(
        second.stdout.contains("waiting: n1 is held by run"),
        "the wait is shown\n{}",
        second.stdout
    );
    for host in ["n1", "n2"] {
        assert_eq!(
            echoed(&lab, host),
            ["A-before", "A-after", "B"],
            "{host}: one after the other"
        );
    }
}

#[test]
fn the_lease_of_a_killed_run_is_taken_over_shown_and_journaled() {
    let lab = lab();
    let mut first = spawn_piped(lab.command(&["run", "a.rhai", "-i", "inv.toml"]));
    until_logged(&lab, "n1", "A-before");
    first.kill().unwrap_or_else(|e| panic!("kill: {e}"));
    let _ = first.wait();
    let killed = lab.runs().pop().unwrap_or_default();
    // The killed run may have left its hosts rebooting.
    lab.write(
        "b.rhai",
        "stage \"c\" on all { wait_reachable(30); run([\"echo\", \"B\"]); }\n",
    );
    let second = lab.cairn(&["run", "b.rhai", "-i", "inv.toml"]).succeeds();
    second.stdout_has(&format!("took the host over from run {killed}"));
    let journal = lab.journal("n1");
    let leases = records(&journal, "lease");
    assert_eq!(leases.len(), 1, "journaled");
    assert_eq!(
        leases[0]["data"]["taken_over_from"]["run_id"],
        killed.as_str()
    );
}

#[test]
fn two_working_folders_on_one_local_host_meet_on_one_lease() {
    let (a, b) = (Lab::new(), Lab::new());
    let leases = a.path().join("shared-leases");
    for (lab, word) in [(&a, "A"), (&b, "B")] {
        lab.write("inv.toml", "[hosts.h1]\naddress = \"local\"\n");
        lab.write(
            "rb.rhai",
            &format!("stage \"s\" on all {{ run([\"sh\", \"-c\", \"echo {word}; sleep 2\"]); }}\n"),
        );
    }
    let with_leases = |lab: &Lab| {
        let mut command = lab.command(&["run", "rb.rhai", "-i", "inv.toml"]);
        command.env("CAIRN_LEASE_DIR", &leases);
        command
    };
    let first = spawn_piped(with_leases(&a));
    wait_until("the first run never took h1", LIMIT, || held(&leases));
    let second = cairn_tests::Run::from(with_leases(&b).output().unwrap_or_else(|e| panic!("{e}")));
    finish(first).succeeds();
    let second = second.fails(2);
    second.stderr_has("h1 is held by run");
}

/// Whether some lease file in `dir` names a holder.
fn held(dir: &Path) -> bool {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .any(|e| std::fs::metadata(e.path()).is_ok_and(|m| m.len() > 0))
}
