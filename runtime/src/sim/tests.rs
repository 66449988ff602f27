//! The simulated host, driven through its transport.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use super::*;
use crate::{Cancel, ExecOutput, ExecRequest, Transport, TransportError};

fn options(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

fn linux() -> Arc<SimModel> {
    SimRegistry::with_builtin_models()
        .model("linux")
        .map_err(|e| e.to_string())
        .unwrap()
}

fn open(dir: &std::path::Path, model: Arc<SimModel>, pairs: &[(&str, &str)]) -> SimTransport {
    SimTransport::new("node01", dir, model, options(pairs))
        .map_err(|e| e.to_string())
        .unwrap()
}

fn run(transport: &mut SimTransport, argv: &[&str]) -> Result<ExecOutput, TransportError> {
    transport.exec(&ExecRequest::new(argv.iter().copied()))
}

fn stdout(transport: &mut SimTransport, argv: &[&str]) -> String {
    match run(transport, argv) {
        Ok(output) if output.code == 0 => output.stdout,
        other => panic!("{argv:?}: {other:?}"),
    }
}

fn advance(transport: &SimTransport, millis: u64) {
    let slept = transport
        .clock()
        .sleep(Duration::from_millis(millis), &Cancel::default());
    assert!(slept.is_ok());
}

fn boot_id(transport: &mut SimTransport) -> String {
    stdout(transport, &["cat", BootMarker::BOOT_ID_PATH])
}

fn is_unreachable(result: Result<ExecOutput, TransportError>) -> bool {
    matches!(result, Err(TransportError::Unreachable { .. }))
}

#[test]
fn boot_id_changes_exactly_at_reboot_and_only_after_reboot_secs() {
    let dir = tempfile::tempdir().unwrap();
    let mut host = open(
        dir.path(),
        linux(),
        &[("reboot_secs", "2"), ("clock", "virtual")],
    );
    assert!(host.clock().is_virtual());
    let first = boot_id(&mut host);
    assert_eq!(first.len(), 37, "a UUID and a newline: {first:?}");
    assert_eq!(boot_id(&mut host), first, "stable between commands");
    advance(&host, 60_000);
    assert_eq!(boot_id(&mut host), first, "stable over time");

    assert_eq!(run(&mut host, &["reboot"]).map(|o| o.code).ok(), Some(0));
    assert!(is_unreachable(run(&mut host, &["true"])));
    advance(&host, 1_999);
    assert!(is_unreachable(run(
        &mut host,
        &["cat", BootMarker::BOOT_ID_PATH]
    )));
    advance(&host, 1);
    let second = boot_id(&mut host);
    assert_ne!(second, first);
    assert_eq!(boot_id(&mut host), second);
    let boots = host.host().boots().unwrap();
    assert_eq!(boots.iter().map(|b| b.number).collect::<Vec<_>>(), [1, 2]);
    assert_eq!(boots[1].started_millis - boots[0].started_millis, 62_000);
}

#[test]
fn journalctl_lists_one_line_per_boot() {
    let dir = tempfile::tempdir().unwrap();
    let mut host = open(
        dir.path(),
        linux(),
        &[("reboot_secs", "2"), ("clock", "virtual")],
    );
    assert_eq!(
        stdout(&mut host, &["journalctl", "--list-boots"])
            .lines()
            .count(),
        1
    );
    for _ in 0..10 {
        advance(&host, 179_000);
        stdout(&mut host, &["reboot"]);
        advance(&host, 2_000);
    }
    let listing = stdout(&mut host, &["journalctl", "--list-boots"]);
    let lines: Vec<&str> = listing.lines().collect();
    assert_eq!(lines.len(), 11);
    let first_id = host.host().boots().unwrap()[0].id_hex();
    assert_eq!(
        lines[0],
        format!("-10 {first_id} Mon 2026-11-30 05:00:00 UTC—Mon 2026-11-30 05:02:59 UTC")
    );
    assert!(lines[9].starts_with(" -1 "), "{}", lines[9]);
    assert!(lines[10].starts_with("  0 "), "{}", lines[10]);
    let current = boot_id(&mut host).trim().replace('-', "");
    assert!(lines[10].contains(&current));
}

#[test]
fn hang_fault_keeps_the_host_down_forever() {
    let dir = tempfile::tempdir().unwrap();
    let pairs = [("clock", "virtual"), ("fault_reboot_hang", "true")];
    let mut host = open(dir.path(), linux(), &pairs);
    stdout(&mut host, &["reboot"]);
    advance(&host, 86_400_000);
    assert!(is_unreachable(run(&mut host, &["hostname"])));
    let mut again = open(dir.path(), linux(), &pairs);
    advance(&again, 86_400_000);
    assert!(is_unreachable(run(&mut again, &["hostname"])));
    assert_eq!(again.host().boots().unwrap().len(), 1);
}

#[test]
fn unreachable_fault_never_answers() {
    let dir = tempfile::tempdir().unwrap();
    let mut host = open(dir.path(), linux(), &[("fault_unreachable", "true")]);
    assert!(is_unreachable(run(&mut host, &["true"])));
    assert!(SimHost::command_log(dir.path()).is_empty());
}

#[test]
fn fail_once_fails_the_first_run_only_for_the_host_lifetime() {
    let dir = tempfile::tempdir().unwrap();
    let pairs = [("fail_once", "hostname")];
    let mut host = open(dir.path(), linux(), &pairs);
    let failed = run(&mut host, &["/bin/hostname"]).unwrap();
    assert_eq!(
        (failed.code, failed.stderr.as_str()),
        (1, "injected failure\n")
    );
    assert_eq!(stdout(&mut host, &["hostname"]), "node01\n");
    let mut again = open(dir.path(), linux(), &pairs);
    assert_eq!(stdout(&mut again, &["hostname"]), "node01\n");
    assert_eq!(
        SimHost::command_log(dir.path()).len(),
        3,
        "the failed run is logged too"
    );
}

#[test]
fn drop_once_runs_the_command_then_drops_the_connection() {
    let dir = tempfile::tempdir().unwrap();
    let mut host = open(
        dir.path(),
        linux(),
        &[("drop_once", "reboot"), ("clock", "virtual")],
    );
    assert!(matches!(
        run(&mut host, &["reboot"]),
        Err(TransportError::Interrupted { .. })
    ));
    assert!(
        is_unreachable(run(&mut host, &["true"])),
        "the reboot did happen"
    );
    advance(&host, 1_000);
    stdout(&mut host, &["reboot"]);
    assert_eq!(host.host().boots().unwrap().len(), 2);
}

#[test]
fn state_and_virtual_time_survive_a_new_transport() {
    let dir = tempfile::tempdir().unwrap();
    let pairs = [("clock", "virtual"), ("reboot_secs", "30")];
    let mut host = open(dir.path(), linux(), &pairs);
    stdout(&mut host, &["sleep", "5"]);
    stdout(&mut host, &["reboot"]);
    let rebooted_at = host.clock().now_millis();
    drop(host);

    let mut again = open(dir.path(), linux(), &pairs);
    assert_eq!(
        again.clock().now_millis(),
        rebooted_at,
        "virtual time resumes"
    );
    assert!(
        is_unreachable(run(&mut again, &["true"])),
        "still rebooting"
    );
    advance(&again, 30_000);
    stdout(&mut again, &["true"]);
    assert_eq!(again.host().boots().unwrap().len(), 2);
    let log = SimHost::command_log(dir.path());
    assert_eq!(log, [vec!["sleep", "5"], vec!["reboot"], vec!["true"]]);

    let other_name = SimTransport::new("node02", dir.path(), linux(), options(&pairs));
    assert!(matches!(
        other_name,
        Err(SimError::StateMismatch { field: "host", .. })
    ));
    let other_clock = SimTransport::new("node01", dir.path(), linux(), BTreeMap::new());
    assert!(matches!(
        other_clock,
        Err(SimError::StateMismatch { field: "clock", .. })
    ));
}

#[test]
fn hostile_arguments_arrive_literally() {
    let dir = tempfile::tempdir().unwrap();
    let mut host = open(dir.path(), linux(), &[]);
    let hostile = [
        "; rm -rf /",
        "$(reboot)",
        "`id`",
        "'quoted' \"double\"",
        "a\nb",
        "&& false",
        "",
    ];
    let mut argv = vec!["echo"];
    argv.extend(hostile);
    assert_eq!(stdout(&mut host, &argv), format!("{}\n", hostile.join(" ")));
    for word in hostile {
        assert_eq!(stdout(&mut host, &["echo", "-n", word]), word);
    }
    assert_eq!(
        host.host().boots().unwrap().len(),
        1,
        "`$(reboot)` did not reboot"
    );
    assert_eq!(SimHost::command_log(dir.path())[0][1], "; rm -rf /");
}

#[test]
fn generic_commands_answer_like_a_shell() {
    let dir = tempfile::tempdir().unwrap();
    let mut host = open(dir.path(), linux(), &[("clock", "virtual")]);
    assert_eq!(stdout(&mut host, &["hostname"]), "node01\n");
    assert_eq!(run(&mut host, &["false"]).unwrap().code, 1);
    let missing = run(&mut host, &["cat", "/etc/motd"]).unwrap();
    assert_eq!(missing.code, 1);
    assert_eq!(
        missing.stderr,
        "cat: /etc/motd: No such file or directory\n"
    );
    let unknown = run(&mut host, &["mlxconfig", "-d", "mt4119_pciconf0", "q"]).unwrap();
    assert_eq!(unknown.code, 127);
    assert!(
        unknown.stderr.starts_with(
            "bash: mlxconfig: command not found (cairn sim: `mlxconfig` is not simulated"
        ),
        "{}",
        unknown.stderr
    );
    let before = host.clock().now_millis();
    stdout(&mut host, &["sleep", "1.5"]);
    assert_eq!(host.clock().now_millis() - before, 1_500);
    let mut request = ExecRequest::new(["sleep", "60"]);
    request.timeout = Some(Duration::from_secs(5));
    assert!(matches!(
        host.exec(&request),
        Err(TransportError::TimedOut { seconds: 5, .. })
    ));
    assert!(run(&mut host, &[]).is_err());
}

#[test]
fn real_clock_reboot_comes_back_after_reboot_secs() {
    let dir = tempfile::tempdir().unwrap();
    let mut host = open(dir.path(), linux(), &[("reboot_secs", "0.05")]);
    assert!(!host.clock().is_virtual());
    let first = boot_id(&mut host);
    stdout(&mut host, &["reboot"]);
    assert!(is_unreachable(run(&mut host, &["true"])));
    std::thread::sleep(Duration::from_millis(80));
    assert_ne!(boot_id(&mut host), first);
}

#[test]
fn a_scaled_clock_reboots_in_its_simulated_seconds_and_keeps_its_factor() {
    let dir = tempfile::tempdir().unwrap();
    // A ten-minute reboot at 3000 times the wall clock: a fifth of a wall second.
    let scaled = [("reboot_secs", "600"), ("time_scale", "3000")];
    let mut host = open(dir.path(), linux(), &scaled);
    assert!(matches!(host.clock(), crate::Clock::Scaled(3000)));
    let first = boot_id(&mut host);
    let before = host.clock().now_millis();
    stdout(&mut host, &["reboot"]);
    assert!(is_unreachable(run(&mut host, &["true"])));
    std::thread::sleep(Duration::from_millis(300));
    assert_ne!(boot_id(&mut host), first, "back after 0.2 wall seconds");
    assert!(host.clock().now_millis() - before >= 600_000);
    drop(host);
    for other in [&[][..], &[("time_scale", "600")][..]] {
        let reopened = SimTransport::new("node01", dir.path(), linux(), options(other));
        assert!(
            matches!(
                &reopened,
                Err(SimError::StateMismatch { field: "clock", found, .. }) if found == "real x3000"
            ),
            "{other:?}: {:?}",
            reopened.err()
        );
    }
}

/// A tool that stages a value for the next boot, as `mlxconfig` does.
struct Staged;

impl SimTool for Staged {
    fn commands(&self) -> &[&'static str] {
        &["/opt/tool/bin/stage", "echo"]
    }

    fn name(&self) -> &'static str {
        "staged"
    }

    fn options(&self) -> &[&'static str] {
        &["initial"]
    }

    fn run(&self, host: &mut SimContext<'_>, argv: &[String]) -> ExecOutput {
        let stdout = match argv.get(1).map(String::as_str) {
            Some("set") => {
                host.state_mut()["next"] = argv.get(2).cloned().unwrap_or_default().into();
                host.mark("reboot_pending");
                String::new()
            }
            _ => format!(
                "current={}\n",
                host.state()["current"].as_str().unwrap_or("?")
            ),
        };
        ExecOutput {
            code: 0,
            stderr: String::new(),
            stdout,
        }
    }

    fn init(&self, host: &mut SimContext<'_>) {
        let initial = host.option("initial").unwrap_or("factory").to_owned();
        *host.state_mut() = serde_json::json!({ "current": initial, "next": initial });
        host.write_file("/etc/tool.conf", "installed\n");
    }

    fn on_boot(&self, host: &mut SimContext<'_>) {
        let next = host.state()["next"].clone();
        host.state_mut()["current"] = next;
        host.unmark("reboot_pending");
    }
}

#[test]
fn tools_plug_in_win_over_generic_commands_and_apply_staged_values_at_boot() {
    let mut registry = SimRegistry::with_builtin_models();
    registry.insert(SimModel::new("esxi", BootMarker::VmkSummary).with_tool(Staged));
    let model = registry.model("esxi").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let pairs = [("clock", "virtual"), ("initial", "ib")];
    let mut host = open(dir.path(), model.clone(), &pairs);
    assert_eq!(stdout(&mut host, &["cat", "/etc/tool.conf"]), "installed\n");
    assert_eq!(
        stdout(&mut host, &["echo", "hi"]),
        "current=ib\n",
        "the tool wins"
    );
    stdout(&mut host, &["stage", "set", "eth"]);
    assert_eq!(stdout(&mut host, &["/opt/tool/bin/stage"]), "current=ib\n");
    assert_eq!(
        host.host().tool_state("staged").unwrap().unwrap()["next"],
        "eth"
    );
    stdout(&mut host, &["reboot"]);
    advance(&host, 1_000);
    assert_eq!(stdout(&mut host, &["stage"]), "current=eth\n");

    let log = stdout(&mut host, &["cat", BootMarker::VMKSUMMARY_PATH]);
    let lines: Vec<&str> = log.lines().collect();
    assert_eq!(lines.len(), 3, "{log}");
    assert_eq!(lines[0], "2026-11-30T05:00:00.000Z Host has booted");
    assert!(lines[1].ends_with("]: Host is rebooting"), "{}", lines[1]);
    assert!(lines[2].ends_with(" Host has booted"));
    let proc_boot_id = run(&mut host, &["cat", BootMarker::BOOT_ID_PATH]).unwrap();
    assert_eq!(proc_boot_id.code, 1, "ESXi has no /proc boot id");
    assert_eq!(
        run(&mut host, &["journalctl", "--list-boots"])
            .unwrap()
            .code,
        127
    );

    let unknown = SimTransport::new("node01", dir.path(), model, options(&[("initail", "x")]));
    assert!(matches!(unknown, Err(SimError::UnknownOption { .. })));
    assert!(matches!(
        registry.model("cray"),
        Err(SimError::UnknownModel { .. })
    ));
}

#[test]
fn a_tool_added_to_an_existing_host_is_initialised_once() {
    let dir = tempfile::tempdir().unwrap();
    let mut host = open(dir.path(), linux(), &[]);
    stdout(&mut host, &["true"]);
    let mut registry = SimRegistry::with_builtin_models();
    registry.add_tool("linux", Staged).unwrap();
    let mut host = open(dir.path(), registry.model("linux").unwrap(), &[]);
    assert_eq!(stdout(&mut host, &["stage"]), "current=factory\n");
    stdout(&mut host, &["stage", "set", "eth"]);
    let mut host = open(dir.path(), registry.model("linux").unwrap(), &[]);
    assert_eq!(
        host.host().tool_state("staged").unwrap().unwrap()["next"],
        "eth"
    );
    assert_eq!(stdout(&mut host, &["stage"]), "current=factory\n");
}

#[test]
fn a_corrupt_state_file_is_an_error_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(STATE_FILE), "{ not json").unwrap();
    let result = SimTransport::new("node01", dir.path(), linux(), BTreeMap::new());
    assert!(matches!(result, Err(SimError::CorruptState { .. })));
}

#[test]
fn a_command_logged_but_cut_off_before_its_effect_was_saved_is_dropped_from_the_log() {
    let dir = tempfile::tempdir().unwrap();
    let mut host = open(dir.path(), linux(), &[("clock", "virtual")]);
    let first = boot_id(&mut host);
    // The controller died after the host logged `reboot` and before the reboot was saved: the
    // host runs in the controller's process, so the reboot never happened.
    let log = dir.path().join(COMMAND_LOG);
    let mut text = std::fs::read_to_string(&log).unwrap();
    text.push_str("[\"reboot\"]\n");
    std::fs::write(&log, text).unwrap();
    assert_eq!(boot_id(&mut host), first, "no reboot took effect");
    let argv: Vec<Vec<String>> = SimHost::command_log(dir.path());
    let cat = vec!["cat".to_owned(), BootMarker::BOOT_ID_PATH.to_owned()];
    assert_eq!(
        argv,
        [cat.clone(), cat],
        "the cut-off `reboot` is not in the log"
    );
}
