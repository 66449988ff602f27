//! The fence script run for real, as it is sent (`fence_script`), under dash and under BusyBox
//! ash, in temporary folders.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use super::*;

/// The shells the fence must work under: Debian's `sh` and BusyBox's (ESXi's shell is
/// BusyBox ash).
const SHELLS: [&[&str]; 2] = [&["dash"], &["busybox", "sh"]];

/// Each shell with a fresh temporary folder (kept while it is used) and the fence folder in it.
fn each_shell() -> impl Iterator<Item = (&'static [&'static str], tempfile::TempDir, PathBuf)> {
    SHELLS.into_iter().map(|which| {
        let temp = tempfile::tempdir().unwrap();
        let dir = temp.path().join("fence");
        (which, temp, dir)
    })
}

fn shell(which: &[&str]) -> Command {
    let mut command = Command::new(which[0]);
    command.args(&which[1..]);
    command
}

/// The fence script under `which` with `args` (`run DIR EPOCH OWNER STEP COMMAND`, ...).
fn fence_command(which: &[&str], args: &[&str]) -> Command {
    let mut command = shell(which);
    command
        .arg("-c")
        .arg(fence_script())
        .arg("cairn-fence")
        .args(args);
    command
}

fn fence(which: &[&str], args: &[&str]) -> Output {
    fence_command(which, args).output().expect("the shell runs")
}

fn run(which: &[&str], dir: &Path, epoch: u64, owner: &str, step: &str, command: &str) -> Output {
    let epoch = epoch.to_string();
    fence(
        which,
        &["run", dir.to_str().unwrap(), &epoch, owner, step, command],
    )
}

fn verdict(output: &Output) -> FenceVerdict {
    FenceVerdict::judge(
        output.status.code().unwrap_or(-1),
        &String::from_utf8_lossy(&output.stderr),
    )
}

fn query(which: &[&str], dir: &Path, step: &str) -> StepRecord {
    let output = fence(which, &["query", dir.to_str().unwrap(), step]);
    StepRecord::parse(&String::from_utf8_lossy(&output.stdout)).expect("a query's answer")
}

#[test]
fn a_higher_epoch_is_kept_and_a_lower_one_is_fenced() {
    for (which, _temp, dir) in each_shell() {
        assert_eq!(
            verdict(&run(which, &dir, 3, "s1", "a", "true")),
            FenceVerdict::Ran(0)
        );
        let epoch_file = std::fs::read_to_string(dir.join("epoch")).unwrap();
        assert_eq!(epoch_file, "3 s1\n", "{which:?}");

        let lower = run(which, &dir, 2, "s0", "b", "touch ran");
        match verdict(&lower) {
            FenceVerdict::Fenced(said) => {
                assert_eq!(
                    said, "fenced: epoch 2 is below 3, which s1 holds",
                    "{which:?}"
                )
            }
            other => panic!("{which:?}: a lower epoch got {other:?}"),
        }
        assert_eq!(lower.status.code(), Some(FENCED_EXIT));
        assert_eq!(
            query(which, &dir, "b"),
            StepRecord::None,
            "{which:?}: a fenced step never starts"
        );

        // The same epoch from another owner is a duplicate epoch: refused too.
        assert!(matches!(
            verdict(&run(which, &dir, 3, "s9", "c", "true")),
            FenceVerdict::Fenced(_)
        ));
        assert_eq!(
            verdict(&run(which, &dir, 4, "s2", "d", "true")),
            FenceVerdict::Ran(0)
        );
        assert_eq!(
            std::fs::read_to_string(dir.join("epoch")).unwrap(),
            "4 s2\n"
        );
        assert!(matches!(
            verdict(&run(which, &dir, 3, "s1", "e", "true")),
            FenceVerdict::Fenced(_)
        ));
        assert!(
            !dir.join("lock").exists(),
            "{which:?}: a refusal gives the lock back"
        );
    }
}

#[test]
fn a_step_records_started_then_done_with_its_exit_code_and_output_and_runs_once() {
    for (which, temp, dir) in each_shell() {
        let count = temp.path().join("count");
        let command = format!(
            "echo ran >> {}; echo out; echo err >&2; exit 7",
            count.display()
        );
        let first = run(which, &dir, 1, "s1", "42", &command);
        assert_eq!(verdict(&first), FenceVerdict::Ran(7), "{which:?}");
        assert_eq!(String::from_utf8_lossy(&first.stdout), "out\nerr\n");
        assert_eq!(
            query(which, &dir, "42"),
            StepRecord::Done {
                code: 7,
                epoch: 1,
                owner: "s1".into(),
                output: "out\nerr\n".into()
            }
        );
        // Asked again (a resume), the step is replayed from its record, not run.
        let again = run(which, &dir, 2, "s2", "42", &command);
        assert_eq!(verdict(&again), FenceVerdict::Ran(7));
        assert_eq!(String::from_utf8_lossy(&again.stdout), "out\nerr\n");
        assert_eq!(
            std::fs::read_to_string(&count).unwrap(),
            "ran\n",
            "{which:?}: ran once"
        );

        // Started and never done: unknown, and not run again.
        std::fs::write(dir.join("43.started"), "2 s2\n").unwrap();
        let open = run(
            which,
            &dir,
            2,
            "s2",
            "43",
            &format!("echo ran >> {}", count.display()),
        );
        match verdict(&open) {
            FenceVerdict::Unfinished(said) => {
                assert!(said.contains("step 43 started before (2 s2)"), "{said}")
            }
            other => panic!("{which:?}: {other:?}"),
        }
        assert_eq!(std::fs::read_to_string(&count).unwrap(), "ran\n");
        assert_eq!(
            query(which, &dir, "43"),
            StepRecord::Started {
                epoch: 2,
                owner: "s2".into()
            }
        );
    }
}

#[test]
fn two_callers_at_once_are_serialised() {
    for (which, temp, dir) in each_shell() {
        let log = temp.path().join("log");
        let command = |name: &str| {
            format!(
                "echo {name} start >> {0}; sleep 1; echo {name} end >> {0}",
                log.display()
            )
        };
        let started = Instant::now();
        let callers: Vec<_> = ["a", "b"]
            .into_iter()
            .map(|name| {
                let epoch = "1".to_owned();
                fence_command(which, &["run", dir.to_str().unwrap(), &epoch, "s1", name])
                    .arg(command(name))
                    .spawn()
                    .unwrap()
            })
            .collect();
        for mut caller in callers {
            assert!(caller.wait().unwrap().success());
        }
        assert!(
            started.elapsed() >= Duration::from_secs(2),
            "{which:?}: they overlapped"
        );
        let log = std::fs::read_to_string(&log).unwrap();
        let lines: Vec<&str> = log.lines().collect();
        assert_eq!(lines.len(), 4, "{log}");
        assert!(
            lines[0].ends_with("start")
                && lines[1].ends_with("end")
                && lines[0][..1] == lines[1][..1],
            "{which:?}: interleaved:\n{log}"
        );
    }
}

#[test]
fn the_lock_of_a_killed_caller_is_recovered_once_its_command_has_ended() {
    for (which, _temp, dir) in each_shell() {
        let mut killed = fence_command(
            which,
            &["run", dir.to_str().unwrap(), "1", "s1", "1", "sleep 2"],
        )
        .spawn()
        .unwrap();
        // The lock names the command's pid once it has started: "PID CHILD BOOT".
        let has_child = || {
            std::fs::read_to_string(dir.join("lock"))
                .is_ok_and(|lock| lock.split(' ').nth(1).is_some_and(|child| child != "-"))
        };
        let deadline = Instant::now() + Duration::from_secs(5);
        while !has_child() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        let started = Instant::now();
        killed.kill().unwrap(); // SIGKILL: no trap runs, the lock stays behind
        killed.wait().unwrap();
        assert!(
            dir.join("lock").exists(),
            "{which:?}: the killed caller left its lock"
        );

        let next = run(which, &dir, 1, "s1", "2", "echo next");
        assert_eq!(verdict(&next), FenceVerdict::Ran(0), "{which:?}: {next:?}");
        let stderr = String::from_utf8_lossy(&next.stderr);
        assert!(stderr.contains("recovered the lock of process"), "{stderr}");
        // Its command (sleep 2) outlived it and still held the host: the next waited for it.
        assert!(
            started.elapsed() >= Duration::from_millis(1500),
            "{which:?}"
        );
        assert_eq!(
            query(which, &dir, "1"),
            StepRecord::Started {
                epoch: 1,
                owner: "s1".into()
            }
        );
    }
}

#[test]
fn an_esxi_folder_off_a_datastore_is_refused() {
    for which in SHELLS {
        let output = fence_command(
            which,
            &["run", "/var/lib/cairn/fence", "1", "s1", "1", "true"],
        )
        .env("CAIRN_FENCE_SYSTEM", "VMkernel")
        .output()
        .unwrap();
        match verdict(&output) {
            FenceVerdict::Volatile(said) => assert!(said.contains("in-memory"), "{said}"),
            other => panic!("{which:?}: {other:?}"),
        }
    }
    assert!(FencePlace::esxi_dir("/scratch/cairn").is_err());
    assert!(FencePlace::esxi_dir("/vmfs/volumes/ds1").is_err());
    assert!(FencePlace::esxi_dir("/vmfs/volumes/ds1/../../tmp").is_err());
    assert!(FencePlace::esxi("a/b").is_err());
    assert_eq!(
        FencePlace::esxi("datastore1").unwrap().dir(),
        "/vmfs/volumes/datastore1/cairn-fence"
    );
}

#[test]
fn the_wrapped_command_line_runs_through_a_shell_with_odd_characters_intact() {
    let temp = tempfile::tempdir().unwrap();
    let dir = temp.path().join("fence dir");
    let fence = Fence::new(
        FencePlace::at(dir.to_str().unwrap()).unwrap(),
        5,
        "session-12",
    )
    .unwrap();
    let line = fence
        .wrap("7", r#"printf '%s\n' "it's \"quoted\" $HOME"; exit 3"#)
        .unwrap();
    let output = Command::new("dash").arg("-c").arg(&line).output().unwrap();
    assert_eq!(verdict(&output), FenceVerdict::Ran(3));
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        format!(
            "it's \"quoted\" {}\n",
            std::env::var("HOME").unwrap_or_default()
        )
    );
    let asked = Command::new("dash")
        .arg("-c")
        .arg(fence.query("7").unwrap())
        .output()
        .unwrap();
    assert!(matches!(
        StepRecord::parse(&String::from_utf8_lossy(&asked.stdout)),
        Some(StepRecord::Done {
            code: 3,
            epoch: 5,
            ..
        })
    ));
    assert!(Fence::new(FencePlace::linux(), 1, "has space").is_err());
    assert!(fence.wrap("../x", "true").is_err());
    assert!(FencePlace::at("relative").is_err());
}

#[test]
fn a_fence_exit_code_without_its_line_is_the_command_own() {
    assert_eq!(
        FenceVerdict::judge(241, "tool: failed\n"),
        FenceVerdict::Ran(241)
    );
    assert_eq!(
        FenceVerdict::judge(
            241,
            "cairn-fence: fenced: epoch 1 is below 2, which s2 holds\n"
        ),
        FenceVerdict::Fenced("fenced: epoch 1 is below 2, which s2 holds".into())
    );
}

#[test]
fn a_fenced_command_reads_the_callers_standard_input() {
    for (which, _temp, dir) in each_shell() {
        let mut child = fence_command(which, &["run", dir.to_str().unwrap(), "1", "s1", "a"])
            .arg("tr a-z A-Z")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        std::io::Write::write_all(&mut child.stdin.take().unwrap(), b"given\n").unwrap();
        let output = child.wait_with_output().unwrap();
        // Without the redirection, an asynchronous command's input is /dev/null: no output.
        assert_eq!(
            String::from_utf8_lossy(&output.stdout),
            "GIVEN\n",
            "{which:?}"
        );
    }
}

#[test]
fn check_refuses_a_folder_in_memory_and_creates_one_on_disk() {
    for which in SHELLS {
        let temp = tempfile::tempdir().unwrap();
        let dir = temp.path().join("a/b/fence");
        let fine = fence(which, &["check", dir.to_str().unwrap()]);
        assert_eq!(fine.status.code(), Some(0), "{which:?}");
        assert!(String::from_utf8_lossy(&fine.stdout).starts_with("ok "));
        assert!(dir.is_dir(), "{which:?}: check makes the folder");
        // /dev/shm is a tmpfs on Linux; the folder need not exist: its parent is looked at.
        if Path::new("/dev/shm").is_dir() {
            let memory = fence(which, &["check", "/dev/shm/cairn-no-such/fence"]);
            match verdict(&memory) {
                FenceVerdict::Volatile(said) => assert!(said.contains("tmpfs"), "{said}"),
                other => panic!("{which:?}: a tmpfs folder got {other:?}"),
            }
            assert!(!Path::new("/dev/shm/cairn-no-such").exists());
        }
    }
}

#[test]
fn check_keeps_the_first_id_a_folder_is_offered_and_answers_it() {
    for (which, _temp, dir) in each_shell() {
        let d = dir.to_str().unwrap();
        let first = fence(which, &["check", d, "aaa1"]);
        assert_eq!(first.status.code(), Some(0), "{which:?}");
        let said = String::from_utf8_lossy(&first.stdout).into_owned();
        assert!(
            said.starts_with("ok ") && said.ends_with(" aaa1\n"),
            "{which:?}: {said}"
        );
        // Another name for the folder offers another id: it is told the folder's.
        let second = fence(which, &["check", d, "bbb2"]);
        let said = String::from_utf8_lossy(&second.stdout).into_owned();
        assert!(said.ends_with(" aaa1\n"), "{which:?}: {said}");
        let bad = fence(which, &["check", d, "a b"]);
        assert_eq!(bad.status.code(), Some(USAGE_EXIT), "{which:?}");
    }
}

#[test]
fn prune_removes_its_runs_steps_only_and_only_for_the_fences_owner() {
    for (which, _temp, dir) in each_shell() {
        let d = dir.to_str().unwrap();
        for step in ["r1.1.100.1", "r1.2.200.1", "r1-2.1.300.1", "r2.1.400.1"] {
            assert_eq!(
                verdict(&run(which, &dir, 5, "s1", step, "true")),
                FenceVerdict::Ran(0)
            );
        }
        // A step started and never finished (its caller was killed) is pruned with its run.
        std::fs::write(dir.join("r1.3.500.1.started"), "5 s1\n").unwrap();
        // A takeover's claim is no action of any run: pruned too, uncounted.
        assert_eq!(
            verdict(&run(which, &dir, 5, "s1", "claim.5", "true")),
            FenceVerdict::Ran(0)
        );

        // Another owner at the epoch, or a lower epoch, removes nothing.
        for (epoch, owner) in [("5", "s0"), ("4", "s1")] {
            let refused = fence(which, &["prune", d, epoch, owner, "r1"]);
            assert!(
                matches!(verdict(&refused), FenceVerdict::Fenced(_)),
                "{which:?}"
            );
        }
        assert!(matches!(
            query(which, &dir, "r1.1.100.1"),
            StepRecord::Done { .. }
        ));

        let pruned = fence(which, &["prune", d, "5", "s1", "r1"]);
        assert_eq!(
            verdict(&pruned),
            FenceVerdict::Ran(0),
            "{which:?}: {pruned:?}"
        );
        assert_eq!(
            String::from_utf8_lossy(&pruned.stdout),
            "pruned 3\n",
            "{which:?}"
        );
        for gone in ["r1.1.100.1", "r1.2.200.1", "r1.3.500.1", "claim.5"] {
            assert_eq!(
                query(which, &dir, gone),
                StepRecord::None,
                "{which:?}: {gone}"
            );
        }
        // `r1-2` is another run, not a step of `r1`.
        for kept in ["r1-2.1.300.1", "r2.1.400.1"] {
            assert!(
                matches!(query(which, &dir, kept), StepRecord::Done { .. }),
                "{which:?}: {kept}"
            );
        }
        assert!(
            !dir.join("lock").exists(),
            "{which:?}: the lock is given back"
        );

        // A dot would reach into other runs' steps; a folder never used has nothing to prune.
        let dotted = fence(which, &["prune", d, "5", "s1", "r1.2"]);
        assert_eq!(dotted.status.code(), Some(USAGE_EXIT), "{which:?}");
        let empty = dir.with_file_name("never-used");
        let none = fence(which, &["prune", empty.to_str().unwrap(), "5", "s1", "r1"]);
        assert_eq!(String::from_utf8_lossy(&none.stdout), "pruned 0\n");
        assert!(!empty.exists(), "{which:?}: prune creates no folder");
    }
}

#[test]
fn an_epoch_past_the_shells_arithmetic_is_refused_not_admitted() {
    for (which, _temp, dir) in each_shell() {
        assert_eq!(
            verdict(&run(which, &dir, 5, "s1", "a", "true")),
            FenceVerdict::Ran(0)
        );
        // 2^63 and more: `[ 9223372036854775808 -lt 5 ]` is an error, not an answer, and the
        // call was admitted unrecorded before.
        let huge = fence(
            which,
            &[
                "run",
                dir.to_str().unwrap(),
                "9223372036854775808",
                "s2",
                "b",
                "touch ran",
            ],
        );
        assert_eq!(huge.status.code(), Some(USAGE_EXIT), "{which:?}: {huge:?}");
        assert!(String::from_utf8_lossy(&huge.stderr).contains("below 10^18"));
        assert_eq!(query(which, &dir, "b"), StepRecord::None, "{which:?}");
        // A damaged epoch file stops the fence instead of admitting every epoch.
        std::fs::write(dir.join("epoch"), "x s1\n").unwrap();
        assert!(matches!(
            verdict(&run(which, &dir, 9, "s1", "c", "true")),
            FenceVerdict::Broken(said) if said.contains("damaged")
        ));
    }
}

/// A `PATH` whose `sync` logs its arguments (and answers `--help` as `usage` says) before the
/// real one flushes, so that a test sees every flush the fence asks for.
fn logging_sync(temp: &Path, usage: &str) -> (String, PathBuf) {
    let bin = temp.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let log = temp.join("sync.log");
    let fake = bin.join("sync");
    std::fs::write(
        &fake,
        format!(
            "#!/bin/sh\nif [ \"$1\" = --help ]; then echo '{usage}'; exit 0; fi\necho \"sync $*\" >> {log}\nexec /bin/sync \"$@\"\n",
            log = log.display()
        ),
    )
    .unwrap();
    let mut permissions = std::fs::metadata(&fake).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut permissions, 0o755);
    std::fs::set_permissions(&fake, permissions).unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    (path, log)
}

#[test]
fn a_record_is_flushed_by_naming_the_fences_own_files_never_the_whole_system() {
    for (which, temp, dir) in each_shell() {
        // A `sync` that takes files (GNU coreutils 8.24+, BusyBox with FEATURE_SYNC_FANCY).
        let (path, log) = logging_sync(temp.path(), "Usage: sync [OPTION] [FILE]...");
        let d = dir.to_str().unwrap();
        let check = fence_command(which, &["check", d])
            .env("PATH", &path)
            .output()
            .unwrap();
        assert_eq!(check.status.code(), Some(0), "{which:?}: {check:?}");
        for step in ["r.1.1.1", "r.1.1.2"] {
            let ran = fence_command(which, &["run", d, "1", "s1", step, "echo hi"])
                .env("PATH", &path)
                .output()
                .unwrap();
            assert_eq!(verdict(&ran), FenceVerdict::Ran(0));
        }
        let pruned = fence_command(which, &["prune", d, "1", "s1", "r"])
            .env("PATH", &path)
            .output()
            .unwrap();
        assert_eq!(String::from_utf8_lossy(&pruned.stdout), "pruned 2\n");
        let calls = std::fs::read_to_string(&log).unwrap_or_default();
        let calls: Vec<&str> = calls.lines().collect();
        // check (its host file), each step's started record (the second's with the first's
        // outcome), prune (the folder): one flush a command.
        assert_eq!(calls.len(), 4, "{which:?}: {calls:?}");
        for call in &calls {
            let files: Vec<&str> = call.split(' ').skip(1).collect();
            assert!(!files.is_empty(), "{which:?}: a whole-system sync: {call}");
            assert!(
                files.iter().all(|file| file.starts_with(d)),
                "{which:?}: flushed beyond the fence: {call}"
            );
        }
        assert!(calls[1].contains("r.1.1.1.started"), "{calls:?}");
        assert!(
            calls[2].contains("r.1.1.2.started") && calls[2].contains("r.1.1.1.done"),
            "{which:?}: {calls:?}"
        );

        // A `sync` that ignores its files (older BusyBox, coreutils before 8.24) is never
        // called: each record is flushed by `dd conv=fsync` instead.
        let old = temp.path().join("old");
        std::fs::create_dir_all(&old).unwrap();
        let (path, log) = logging_sync(&old, "Usage: sync");
        let other = temp.path().join("fence-old");
        let o = other.to_str().unwrap();
        let check = fence_command(which, &["check", o])
            .env("PATH", &path)
            .output()
            .unwrap();
        assert_eq!(check.status.code(), Some(0), "{which:?}: {check:?}");
        assert_eq!(
            std::fs::read_to_string(other.join("host")).unwrap(),
            "Linux dd\n",
            "{which:?}"
        );
        let ran = fence_command(which, &["run", o, "1", "s1", "r.1.1.1", "echo hi"])
            .env("PATH", &path)
            .output()
            .unwrap();
        assert_eq!(verdict(&ran), FenceVerdict::Ran(0), "{which:?}: {ran:?}");
        assert_eq!(
            std::fs::read_to_string(&log).unwrap_or_default(),
            "",
            "{which:?}: the old sync was called"
        );
    }
}

#[test]
fn a_lock_left_by_another_boot_is_taken_at_once() {
    let Ok(boot) = std::fs::read_to_string("/proc/sys/kernel/random/boot_id") else {
        eprintln!("SKIPPED: no /proc/sys/kernel/random/boot_id here");
        return;
    };
    for (which, _temp, dir) in each_shell() {
        assert_eq!(
            verdict(&run(which, &dir, 1, "s1", "a", "true")),
            FenceVerdict::Ran(0)
        );
        // Our own shell's pid, alive, but written in another boot: a pid is reused after a
        // reboot, so a lock the host's last boot left must not be taken for a live one.
        let other = if boot.starts_with('0') { "1" } else { "0" };
        std::fs::write(
            dir.join("lock"),
            format!("{} - {other}{}", std::process::id(), &boot[1..]),
        )
        .unwrap();
        let started = Instant::now();
        let next = run(which, &dir, 1, "s1", "b", "echo next");
        assert_eq!(verdict(&next), FenceVerdict::Ran(0), "{which:?}: {next:?}");
        assert!(
            started.elapsed() < Duration::from_millis(900),
            "{which:?}: it waited"
        );
        assert!(String::from_utf8_lossy(&next.stderr).contains("recovered the lock"));
    }
}

/// A command that printed nothing has nothing replayed: no `cat` is started for it, live or
/// replayed; one that printed has its output printed by `cat`, as recorded.
#[test]
fn a_command_that_printed_nothing_starts_no_cat() {
    for (which, temp, dir) in each_shell() {
        let bin = temp.path().join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        let calls = temp.path().join("cat-calls");
        let cat = bin.join("cat");
        std::fs::write(
            &cat,
            format!(
                "#!/bin/sh\necho cat >>'{}'\nexec /bin/cat \"$@\"\n",
                calls.display()
            ),
        )
        .unwrap();
        std::fs::set_permissions(&cat, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap();
        let path = format!("{}:/usr/bin:/bin", bin.display());
        let dir_arg = dir.to_str().unwrap();
        let fenced = |step: &str, command: &str| {
            fence_command(which, &["run", dir_arg, "1", "s1", step, command])
                .env("PATH", &path)
                .output()
                .unwrap()
        };
        let counted = || {
            std::fs::read_to_string(&calls)
                .unwrap_or_default()
                .lines()
                .count()
        };
        for _ in 0..2 {
            let silent = fenced("quiet", "true");
            assert_eq!(
                (verdict(&silent), silent.stdout.len()),
                (FenceVerdict::Ran(0), 0)
            );
            assert_eq!(counted(), 0, "{which:?}: a cat for nothing");
        }
        for expected_calls in [1, 2] {
            let loud = fenced("loud", "echo said");
            assert_eq!(String::from_utf8_lossy(&loud.stdout), "said\n", "{which:?}");
            assert_eq!(counted(), expected_calls, "{which:?}");
        }
    }
}
