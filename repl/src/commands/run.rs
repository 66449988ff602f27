//! `cairn run`: wire the launcher, Ctrl-C and the progress display (`cairn resume` and `cairn
//! exec` drive a run through the same functions).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use cairn_runtime::ParamFile;
use cairn_runtime::inventory::HostPattern;
use cairn_runtime::journal::HostStatus;
use cairn_runtime::launch::{Launcher, NewRun};
use cairn_runtime::output::{ColorChoice, Summary, Verbosity, group_failures};
use cairn_runtime::{Cancel, EventSink, RunOptions, RunReport, Stamped, VaultSecrets};
use cairn_vault::Vault;
use clap::Args;
use miette::IntoDiagnostic;

use super::Context;
use crate::arg_groups::{Color, CommonRunArgs, InventoryFile};
use crate::progress::{self, Display, Shown};
use crate::repl::FailurePrompt;

/// `cairn run RUNBOOK -i INVENTORY [--check] [--limit PATTERN] ...`.
#[derive(Debug, Args)]
pub(crate) struct RunArgs {
    /// The runbook, or a recipe: a name one pack has, or `namespace/pack:recipe`.
    pub(super) runbook: PathBuf,
    #[command(flatten)]
    pub(super) inventory: InventoryFile,
    /// Report per host what would change and which reboots would follow; change nothing.
    #[arg(long)]
    pub(super) check: bool,
    /// Only these hosts: names, globs (`esx0*`), ranges (`node[01-04]`), groups, `!` to
    /// exclude, `&` to intersect, separated by `:` or `,` (as Ansible's patterns). A resume
    /// drives the hosts the run started with.
    #[arg(long, value_name = "PATTERN")]
    pub(super) limit: Option<String>,
    /// With `--store`: cut the run's hosts into N shares, one per controller; this one drives
    /// the first, and each other controller joins with `cairn join --store URL` (docs/fleet.md).
    #[arg(long, value_name = "N", default_value_t = 1,
          value_parser = clap::value_parser!(u32).range(1..=1_000))]
    pub(super) controllers: u32,
    #[command(flatten)]
    pub(super) common: CommonRunArgs,
    #[command(flatten)]
    pub(super) store: crate::store_args::StoreArgs,
}

impl RunArgs {
    /// Runs the runbook, or the recipe it names.
    pub(crate) fn execute(mut self, context: &Context) -> miette::Result<ExitCode> {
        self.runbook = super::recipes::runbook_file(&context.state, &self.runbook)?;
        self.start(context)
    }

    /// Starts a new run of the runbook file as given.
    pub(super) fn start(self, context: &Context) -> miette::Result<ExitCode> {
        let Self {
            runbook,
            inventory,
            check,
            limit,
            controllers,
            common,
            store,
        } = self;
        let inventory = inventory.path().to_path_buf();
        let state = context.state.as_path();
        let store = &store;
        let defaults = RunOptions::default();
        // A check changes nothing and keeps no run: it needs no session.
        let opened = if check { None } else { store.open()? };
        let limit = limit.as_deref().map(HostPattern::parse).transpose()?;
        let (vault, param_file) = inputs(&common)?;
        let prompt = common
            .debug_on_failure
            .then(|| FailurePrompt::start(state))
            .transpose()?;
        let debugger = prompt.as_ref().map(|(debugger, _)| debugger.clone());
        let new = NewRun {
            inventory,
            limit,
            options: RunOptions {
                accept_new_host_keys: common.drive.accept_new_host_keys,
                check,
                debugger,
                forks: common.forks.unwrap_or(defaults.forks),
                max_fail_percent: common.max_fail_percent,
                max_unavailable: common.max_unavailable.clone(),
                max_operations: defaults.max_operations,
                reboot_timeout: common
                    .reboot_timeout
                    .map_or(defaults.reboot_timeout, Duration::from_secs),
                wait_for_hosts: common.drive.wait_for_hosts,
                lease_dir: None,
                fleet: None,
                shared_store: opened
                    .as_ref()
                    .map(|opened| opened.shared.clone() as Arc<dyn cairn_runtime::SharedStore>),
            },
            params: params(&common.params)?,
            param_file,
            pack: crate::pack_of_runbook::pack_of_runbook(&runbook),
            runbook,
            vault,
            controllers,
        };
        let code = drive(
            display(&common),
            check,
            |launcher, cancel, events| launcher.run(new, cancel, events).map_err(Into::into),
            crate::assembly::launcher_for(state, opened.is_some()),
        );
        if let Some(opened) = opened {
            opened.finish();
        }
        if let Some((debugger, prompt)) = prompt {
            // The prompt ends once the run's last hold on the debugger is gone.
            drop(debugger);
            prompt.finish();
        }
        code
    }
}

/// How the run is shown, from `--json`, `-q`, `-v`, `--color`.
pub(super) fn display(common: &CommonRunArgs) -> Display {
    Display {
        color: match common.drive.color {
            Color::Auto => ColorChoice::Auto,
            Color::Always => ColorChoice::Always,
            Color::Never => ColorChoice::Never,
        },
        json: common.drive.json,
        // The debug prompt takes the terminal when an action fails.
        status_area: !common.debug_on_failure,
        verbosity: Verbosity::from_flags(common.drive.quiet, common.drive.verbose),
    }
}

/// `--vault` opened and `--param-file` read, before anything runs: a wrong key or a changed
/// vault stops here.
pub(super) fn inputs(
    common: &CommonRunArgs,
) -> miette::Result<(Option<Arc<VaultSecrets>>, Option<ParamFile>)> {
    let key = &common.drive.vault_key;
    let key_given = key.vault_identity.is_some()
        || key.vault_passphrase_file.is_some()
        || key.vault_passphrase_command.is_some();
    let vault = match &common.drive.vault {
        Some(path) => Some(Arc::new(secrets_of(&Vault::open_with(
            path,
            &key.source(),
        )?))),
        None if key_given => {
            return Err(miette::miette!(
                code = "cairn::cli::vault_key_without_vault",
                help = "name the vault too: --vault FILE",
                "a vault key was given but no --vault"
            ));
        }
        None => None,
    };
    let param_file = common
        .param_file
        .as_deref()
        .map(ParamFile::load)
        .transpose()?;
    Ok((vault, param_file))
}

/// What the runtime takes from an opened vault: its file and its secrets by name.
fn secrets_of(vault: &Vault) -> VaultSecrets {
    let secrets = vault.names().filter_map(|name| {
        let value = vault.get(name)?;
        Some((name.to_owned(), value.to_owned()))
    });
    VaultSecrets::new(vault.path(), secrets)
}

pub(crate) fn params(given: &[String]) -> miette::Result<BTreeMap<String, String>> {
    given
        .iter()
        .map(|pair| match pair.split_once('=') {
            Some((name, value)) if !name.trim().is_empty() => {
                Ok((name.trim().to_owned(), value.to_owned()))
            }
            _ => Err(miette::miette!(
                code = "cairn::cli::param_syntax",
                help = "write --param NAME=VALUE",
                "`--param {pair}` is not NAME=VALUE"
            )),
        })
        .collect()
}

/// Runs the launch on a worker thread while events are shown and Ctrl-C stops the run.
pub(super) fn drive(
    display: Display,
    check: bool,
    launch: impl FnOnce(&Launcher, Cancel, EventSink) -> miette::Result<RunReport> + Send,
    launcher: Launcher,
) -> miette::Result<ExitCode> {
    let cancel = Cancel::default();
    // tokio only watches for signals; the run itself is plain threads.
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .into_diagnostic()?;
    let signalled = Arc::new(AtomicBool::new(false));
    runtime.spawn(stop_on_signals(cancel.clone(), signalled.clone()));
    let (sender, receiver) = std::sync::mpsc::channel();
    let events = EventSink::new(sender);
    let (report, shown) = std::thread::scope(|scope| {
        let stopping = signalled.clone();
        let shown = scope.spawn(move || progress::show(&receiver, display, &stopping));
        let report = launch(&launcher, cancel, events);
        (report, shown.join())
    });
    let report = report?;
    let shown = shown.map_err(|_| miette::miette!("the progress display stopped unexpectedly"))?;
    if check && !display.json {
        show_check(&report);
    }
    let signalled = signalled.load(Ordering::SeqCst);
    Ok(summarize(report, (display.json, check, signalled), &shown))
}

/// The first SIGINT (Ctrl-C), SIGTERM or SIGHUP stops the run cleanly, as each host finishes
/// its current action (exit 130, marked in `signalled`); a second one ends the process at once
/// (exit 128 + the signal's number), after naming the actions whose outcome it leaves for
/// `cairn resume` to settle.
async fn stop_on_signals(cancel: Cancel, signalled: Arc<AtomicBool>) {
    use tokio::signal::unix::{SignalKind, signal};
    let kinds = [
        ("SIGINT", SignalKind::interrupt(), 2),
        ("SIGTERM", SignalKind::terminate(), 15),
        ("SIGHUP", SignalKind::hangup(), 1),
    ];
    let (sender, mut received) = tokio::sync::mpsc::unbounded_channel();
    for (name, kind, number) in kinds {
        let Ok(mut stream) = signal(kind) else {
            continue;
        };
        let sender = sender.clone();
        tokio::spawn(async move {
            while stream.recv().await.is_some() && sender.send((name, number)).is_ok() {}
        });
    }
    drop(sender);
    let Some((name, _)) = received.recv().await else {
        return;
    };
    // Not eprintln!: after SIGHUP the terminal may be gone, and a failed write must not panic.
    let say = |text: String| {
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), "{text}");
    };
    say(format!(
        "{name}: stopping: each host finishes its current action; `cairn resume` continues (a second signal stops at once)"
    ));
    signalled.store(true, Ordering::SeqCst);
    cancel.cancel();
    let Some((name, number)) = received.recv().await else {
        return;
    };
    say(format!(
        "a second signal ({name}): stopping at once; {}",
        cancel.in_flight().describe()
    ));
    std::process::exit(128 + number);
}

/// What a check found: per host, what would change and whether a reboot would follow.
fn show_check(report: &RunReport) {
    say!("check (nothing was changed):");
    for host in &report.hosts {
        let reboots = host
            .changes
            .iter()
            .filter(|c| c.starts_with("reboot"))
            .count();
        let changes: Vec<&str> = host
            .changes
            .iter()
            .filter(|c| !c.starts_with("reboot"))
            .map(String::as_str)
            .collect();
        let reboot = match (reboots, &host.reboot_pending) {
            (0, None) => String::new(),
            (0, Some(why)) => format!("; a reboot would be pending ({why})"),
            (n, _) => format!("; {n} reboot(s) would follow"),
        };
        if changes.is_empty() && reboot.is_empty() {
            say!("  {:<14} no change", host.name);
        } else {
            say!("  {:<14} {} change(s){reboot}", host.name, changes.len());
            for change in changes {
                say!("  {:<14}   {change}", "");
            }
        }
        if let Some(stopped) = &host.prediction_stopped {
            say!("  {:<14}   prediction stopped at {stopped}", "");
        }
    }
}

/// The recap, the failures grouped by runbook span and message, and the summary line; the exit
/// code says how the run ended (docs/events.md, `run_finished.exit`).
fn summarize(
    report: RunReport,
    (json, check, signalled): (bool, bool, bool),
    shown: &Shown,
) -> ExitCode {
    let summary = Summary::of(&report);
    let exit = summary.exit_status(report.succeeded(), signalled);
    if json {
        let event = Stamped {
            at: cairn_runtime::journal::now_millis(),
            event: summary.event(&report.run_id, check, &shown.recap, exit),
        };
        say!("{}", serde_json::to_string(&event).unwrap_or_default());
    } else {
        for line in shown.recap.render(shown.palette, shown.width) {
            say!("{line}");
        }
        say!("{}", summary.line(&report.run_id, check));
        if let Some(line) = summary.left_behind_line() {
            say!("{line}");
        }
    }
    let failures = report
        .hosts
        .into_iter()
        .filter(|host| host.status == HostStatus::Failed)
        .filter_map(|host| host.failure);
    for failure in group_failures(failures.collect()) {
        eprintln!("{:?}", miette::Report::new(failure));
    }
    ExitCode::from(exit.code())
}
