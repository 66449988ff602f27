//! The host fence over SSH, on the loopback lab's real host (no `ForceCommand`: commands run
//! for real on this machine, as root): every changing command runs under `fence.sh`, sent
//! inline as `sh -c SCRIPT ...` (`sh` is dash on Debian), in the folder the host vars name
//! (docs/ssh.md, "The host fence").

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use cairn_tests::records;
use serde_json::Value;

use crate::ssh_lab::{SshLab, available};

/// A lab with one real host, `real01`, whose fence is kept in the lab's `fence` folder, and a
/// runbook whose first change appends a line to `mark` and prints `changed`.
fn lab(first_change: &str, env: &str) -> (SshLab, PathBuf, PathBuf) {
    let mut lab = SshLab::start(0, "");
    lab.add_real_host_with_env("real01", env);
    let fence = lab.lab.path().join("fence");
    let mark = lab.lab.path().join("mark");
    let book = format!(
        "stage \"s\" on compute {{\n    run([\"sh\", \"-c\", \"{first_change}echo x >> {mark}; echo changed\"]);\n    run([\"echo\", \"after\"]);\n}}\n",
        mark = mark.display()
    );
    lab.lab.write("book.rhai", &book);
    write_inventory(&lab, &format!("fence_dir = \"{}\"", fence.display()));
    (lab, fence, mark)
}

fn write_inventory(lab: &SshLab, vars: &str) {
    lab.lab.write(
        "inv.toml",
        &format!("[hosts.real01]\ngroups = [\"compute\"]\nvars = {{ {vars} }}\n"),
    );
}

fn run(lab: &SshLab) -> cairn_tests::Run {
    lab.cairn(&[
        "run",
        "book.rhai",
        "-i",
        "inv.toml",
        "--accept-new-host-keys",
    ])
}

/// Text without the line breaks and borders a diagnostic wraps it in.
fn flat(text: &str) -> String {
    text.chars()
        .filter(|c| !c.is_whitespace() && *c != '│')
        .collect()
}

fn lines(path: &Path) -> usize {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .count()
}

/// The steps the fence in `dir` recorded with `suffix` (`done`, `started`).
fn steps(dir: &Path, suffix: &str) -> Vec<String> {
    let mut found: Vec<String> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let name = entry.file_name().to_string_lossy().into_owned();
            name.strip_suffix(&format!(".{suffix}")).map(str::to_owned)
        })
        .collect();
    found.sort();
    found
}

/// `fence.sh query DIR STEP`, under dash.
fn query(dir: &Path, step: &str) -> String {
    let output = std::process::Command::new("dash")
        .arg("-c")
        .arg(cairn_runtime::fence::fence_script())
        .args(["cairn-fence", "query"])
        .arg(dir)
        .arg(step)
        .output()
        .unwrap_or_else(|e| panic!("dash: {e}"));
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn a_fenced_change_over_ssh_runs_once_the_fence_records_it_done_and_a_done_host_prunes_it() {
    if !available("a_fenced_change_over_ssh_runs_once_the_fence_records_it_done") {
        return;
    }
    let (lab, fence, mark) = lab("", "");
    // A last command that fails until `gate` exists: the failed host keeps its records.
    let gate = lab.lab.path().join("gate");
    let book = std::fs::read_to_string(lab.lab.path().join("book.rhai")).unwrap_or_default();
    let gated = book.replace(
        "    run([\"echo\", \"after\"]);\n",
        &format!(
            "    run([\"echo\", \"after\"]);\n    run([\"test\", \"-e\", \"{}\"]);\n",
            gate.display()
        ),
    );
    assert_ne!(gated, book, "the lab's runbook changed");
    lab.lab.write("book.rhai", &gated);
    run(&lab).fails(1);
    assert_eq!(lines(&mark), 1);
    let done = steps(&fence, "done");
    assert_eq!(done.len(), 3, "one step per changing command: {done:?}");
    let id = lab.lab.runs().pop().unwrap_or_default();
    let Some(step) = done.iter().find(|s| s.starts_with(&format!("{id}.1."))) else {
        panic!("no step of action 1 in {done:?}");
    };
    let answer = query(&fence, step);
    assert!(answer.starts_with("done 0 "), "{answer}");
    assert!(
        answer.contains(&format!(" {id}@")),
        "the run is the owner: {answer}"
    );
    assert!(answer.ends_with("changed\n"), "{answer}");
    let epoch = std::fs::read_to_string(fence.join("epoch")).unwrap_or_default();
    assert!(epoch.contains(&format!(" {id}@")), "{epoch}");

    // Once the host's part of the run ends done, its every outcome is journaled: the fence
    // forgets the run's steps and keeps the epoch.
    std::fs::write(&gate, "").unwrap_or_else(|e| panic!("{e}"));
    lab.cairn(&["resume"]).succeeds();
    assert_eq!(lines(&mark), 1, "the change ran once");
    let left: Vec<String> = std::fs::read_dir(&fence)
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with(&format!("{id}.")))
        .collect();
    assert!(
        left.is_empty(),
        "the run's step records are pruned: {left:?}"
    );
    assert_eq!(query(&fence, step), "none\n");
    // The epoch stays, the resume's own (a resume takes the lease again, higher).
    let kept = std::fs::read_to_string(fence.join("epoch")).unwrap_or_default();
    let number = |text: &str| text.split(' ').next().and_then(|n| n.parse::<u64>().ok());
    assert!(number(&kept) >= number(&epoch), "{kept} after {epoch}");
    assert!(kept.contains(&format!(" {id}@")), "{kept}");
}

#[test]
fn a_controller_below_the_hosts_epoch_is_fenced_over_ssh_and_runs_nothing() {
    if !available("a_controller_below_the_hosts_epoch_is_fenced_over_ssh_and_runs_nothing") {
        return;
    }
    let (lab, fence, mark) = lab("", "");
    run(&lab).succeeds();
    // A newer owner took the host over at a far higher epoch.
    std::fs::write(fence.join("epoch"), "9999999999999999 other@jump02:77\n")
        .unwrap_or_else(|e| panic!("{e}"));
    let stale = run(&lab).fails(1);
    stale.stderr_has("fenced: epoch ");
    stale.stderr_has("which other@jump02:77 holds");
    assert_eq!(lines(&mark), 1, "the stale run's command never ran");
    let journal = lab.lab.journal("real01");
    assert_eq!(
        records(&journal, "intent").len(),
        1,
        "stopped at once, never retried"
    );
    assert!(
        records(&journal, "outcome")
            .iter()
            .all(|r| r["data"]["ok"] == false),
        "{journal:?}"
    );
}

#[test]
fn a_controller_killed_mid_action_is_settled_on_resume_from_the_ssh_hosts_fence() {
    if !available("a_controller_killed_mid_action_is_settled_on_resume_from_the_ssh_hosts_fence") {
        return;
    }
    let (lab, fence, mark) = lab("sleep 2; ", "");
    let mut controller = lab
        .command(&[
            "run",
            "book.rhai",
            "-i",
            "inv.toml",
            "--accept-new-host-keys",
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("spawn: {e}"));
    let waited = Instant::now();
    while steps(&fence, "started").is_empty() {
        assert!(waited.elapsed() < Duration::from_secs(30), "never started");
        std::thread::sleep(Duration::from_millis(20));
    }
    // SIGKILL while the change runs on the host: no outcome can be journaled.
    let _ = controller.kill();
    let _ = controller.wait();
    while steps(&fence, "done").is_empty() {
        assert!(
            waited.elapsed() < Duration::from_secs(30),
            "the fenced command did not finish after its controller died"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let journal = lab.lab.journal("real01");
    assert_eq!(
        records(&journal, "outcome").len(),
        0,
        "killed before its outcome"
    );
    lab.cairn(&["resume"]).succeeds();
    assert_eq!(lines(&mark), 1, "answered from the fence, not run again");
    let journal = lab.lab.journal("real01");
    let first: Vec<&Value> = records(&journal, "outcome")
        .into_iter()
        .filter(|r| r["data"]["seq"] == 1)
        .collect();
    assert_eq!(first.len(), 1);
    assert_eq!(
        first[0]["data"]["result"]["stdout"], "changed\n",
        "the recorded output, not an assumed empty one"
    );
}

#[test]
fn an_esxi_host_without_a_fence_datastore_is_refused_before_its_first_action() {
    if !available("an_esxi_host_without_a_fence_datastore_is_refused_before_its_first_action") {
        return;
    }
    let (lab, _, mark) = lab("", "CAIRN_FENCE_SYSTEM=VMkernel");
    write_inventory(&lab, "become = false");
    let refused = run(&lab).fails(1);
    let said = flat(&refused.stderr);
    assert!(said.contains("refusedbeforeitsfirstaction"), "{said}");
    assert!(said.contains("cairn::runtime::host_refused"), "{said}");
    assert!(said.contains("namesnodatastore"), "{said}");
    assert!(
        said.contains("sethostvar`fence_datastore`")
            || said.contains("thehostvar`fence_datastore`"),
        "the help says what to set: {said}"
    );
    assert_eq!(lines(&mark), 0, "nothing ran");
    let journal = lab.lab.journal("real01");
    assert!(records(&journal, "intent").is_empty(), "no action began");
}

#[test]
fn a_fence_dir_in_memory_is_refused_before_the_first_action() {
    if !available("a_fence_dir_in_memory_is_refused_before_the_first_action")
        || !Path::new("/dev/shm").is_dir()
    {
        return;
    }
    let (lab, _, mark) = lab("", "");
    write_inventory(&lab, "fence_dir = \"/dev/shm/cairn-test-no-such/fence\"");
    let refused = run(&lab).fails(1);
    let said = flat(&refused.stderr);
    assert!(said.contains("refusedbeforeitsfirstaction"), "{said}");
    assert!(said.contains("tmpfs"), "{said}");
    assert_eq!(lines(&mark), 0, "nothing ran");
}

#[test]
fn fence_false_runs_an_ssh_hosts_changes_unfenced() {
    if !available("fence_false_runs_an_ssh_hosts_changes_unfenced") {
        return;
    }
    let (lab, fence, mark) = lab("", "");
    write_inventory(
        &lab,
        &format!("fence = false, fence_dir = \"{}\"", fence.display()),
    );
    run(&lab).succeeds();
    assert_eq!(lines(&mark), 1);
    assert!(!fence.exists(), "no fence was kept");
}

#[test]
fn two_hosts_whose_fence_folder_is_one_are_refused_together_before_either_acts() {
    if !available("two_hosts_whose_fence_folder_is_one_are_refused_together_before_either_acts") {
        return;
    }
    let (mut lab, fence, mark) = lab("", "");
    // Two inventory names, two sshd, one machine: the default folder would be one too.
    lab.add_real_host("real02");
    let inventory = |second_dir: &Path| {
        format!(
            "[hosts.real01]\ngroups = [\"compute\"]\nvars = {{ fence_dir = \"{}\" }}\n\
             [hosts.real02]\ngroups = [\"compute\"]\nvars = {{ fence_dir = \"{}\" }}\n",
            fence.display(),
            second_dir.display()
        )
    };
    lab.lab.write("inv.toml", &inventory(&fence));
    let refused = run(&lab).fails(1);
    let said = flat(&refused.stderr);
    assert!(said.contains("cairn::runtime::host_refused"), "{said}");
    let folder = flat(&fence.display().to_string());
    for (host, other) in [("real01", "real02"), ("real02", "real01")] {
        assert!(
            said.contains(&format!("`{host}`:refusedbeforeitsfirstaction")),
            "{host} refused: {said}"
        );
        assert!(
            said.contains(&format!("{folder}isalsotheoneof{other}")),
            "{host} names {other} and the folder: {said}"
        );
    }
    assert!(said.contains("`fence_dir`"), "the way out: {said}");
    assert_eq!(lines(&mark), 0, "neither host ran anything");
    for host in ["real01", "real02"] {
        let journal = lab.lab.journal(host);
        assert!(
            records(&journal, "intent").is_empty(),
            "{host} began no action"
        );
    }
    // A folder each: both run.
    lab.lab
        .write("inv.toml", &inventory(&lab.lab.path().join("fence2")));
    run(&lab).succeeds();
    assert_eq!(lines(&mark), 2);
}
