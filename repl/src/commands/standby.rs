//! `cairn standby --store URL`: watches the shared store and resumes each run whose controller
//! died holding hosts (docs/fleet.md, "A standby"). Which runs those are, and how two standbys
//! split them, is the store's (`store-pg/src/orphaned_run.rs`); the resume is `cairn resume`'s.

use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use cairn_store_pg::{OrphanedRun, PgStore, StoreError, StoreUrl};
use clap::Args;
use miette::IntoDiagnostic;

use super::Context;
use super::resume::ResumeArgs;
use crate::arg_groups::{CommonRunArgs, DriveArgs};
use crate::store_args::StoreArgs;

/// `--once` found no run to take over.
const NOTHING_TAKEN: u8 = 3;

/// `cairn standby --store URL [--once] [--poll SECS]`.
#[derive(Debug, Args)]
pub(crate) struct StandbyArgs {
    /// Take over the runs orphaned now, one after the other, then exit: 0 when each ended with
    /// every host done, 1 when one did not, 3 when there was none to take.
    #[arg(long)]
    once: bool,
    /// Seconds between two looks at the store.
    #[arg(long, value_name = "SECS", default_value_t = 5,
          value_parser = clap::value_parser!(u64).range(1..=3_600))]
    poll: u64,
    #[command(flatten)]
    drive: DriveArgs,
    #[command(flatten)]
    store: StoreArgs,
}

impl StandbyArgs {
    pub(crate) fn execute(self, context: &Context) -> miette::Result<ExitCode> {
        let Some(watcher) = self.store.connect()? else {
            return Err(miette::miette!(
                code = "cairn::cli::standby_without_store",
                help =
                    "give the store every controller uses: --store postgres://... (or CAIRN_STORE)",
                "a standby watches a shared store, and none was given; nothing was done"
            ));
        };
        let stop = stop_on_signals()?;
        say!(
            "standby: watching {} every {} s for runs whose controller died holding hosts",
            watcher.url().redacted(),
            self.poll
        );
        let url = watcher.url().clone();
        let mut watcher = Some(watcher);
        let mut taken = 0;
        let mut all_ok = true;
        loop {
            if stop.load(Ordering::SeqCst) {
                say!("standby: stopped by a signal");
                break;
            }
            let orphans = match look_for_orphans(watcher.take(), &url) {
                Ok((store, orphans)) => {
                    watcher = Some(store);
                    orphans
                }
                Err(error) if self.once => return Err(error.into()),
                // The store may be restarting, or silent: look again, on a new connection, at
                // the next poll.
                Err(error) => {
                    say!("standby: {error}; looking again in {} s", self.poll);
                    Vec::new()
                }
            };
            let took = if orphans.is_empty() {
                None
            } else {
                match self.take_one(context) {
                    Ok(took) => took,
                    Err(report) if self.once => return Err(report),
                    // The store may be restarting: look again at the next poll.
                    Err(report) => {
                        eprintln!("{report:?}");
                        None
                    }
                }
            };
            if let Some(code) = took {
                taken += 1;
                all_ok &= code == ExitCode::SUCCESS;
                if stop.load(Ordering::SeqCst) {
                    // A signal that came during the take: said as at the top of the loop.
                    say!("standby: stopped by a signal");
                    return Ok(code);
                }
                // Another may be waiting: look again at once.
                continue;
            }
            if self.once {
                break;
            }
            sleep_unless_stopped(Duration::from_secs(self.poll), &stop);
        }
        if !self.once {
            return Ok(ExitCode::SUCCESS);
        }
        if taken == 0 {
            say!(
                "standby: nothing to take over: no run's controller died holding hosts (a run whose controller is alive, or that ended, is never taken)"
            );
            return Ok(ExitCode::from(NOTHING_TAKEN));
        }
        Ok(if all_ok {
            ExitCode::SUCCESS
        } else {
            ExitCode::FAILURE
        })
    }

    /// Claims the oldest orphaned run no other standby has and resumes it on a session of its
    /// own (ended with the resume, so the run's hosts are given back at once); `None` when
    /// another standby was quicker. A resume that refuses (an outcome only an operator can
    /// settle) is shown and counts as not ok; the standby goes on.
    fn take_one(&self, context: &Context) -> miette::Result<Option<ExitCode>> {
        let Some(opened) = self.store.open()? else {
            return Ok(None);
        };
        let Some(orphan) = opened
            .shared
            .call("claim an orphaned run", |store, session| {
                store.claim_orphaned_run(session)
            })?
        else {
            opened.finish();
            return Ok(None);
        };
        say!(
            "standby: took run {} over from {}: its store session expired holding {} host(s)",
            orphan.id,
            orphan.driver.describe(),
            orphan.hosts_held
        );
        let resume = ResumeArgs::for_standby(
            orphan.id.clone(),
            CommonRunArgs::run_own(self.drive.clone()),
            self.store.clone(),
        );
        match resume.execute_on(context, Some(opened)) {
            Ok(code) => Ok(Some(code)),
            Err(report) => {
                eprintln!("{report:?}");
                say!(
                    "standby: run {} was not resumed; `cairn resume --store URL {}` settles it by hand",
                    orphan.id,
                    orphan.id
                );
                Ok(Some(ExitCode::FAILURE))
            }
        }
    }
}

/// A flag set by the first SIGINT, SIGTERM or SIGHUP, so that an idle standby ends cleanly (a
/// resume under way is stopped by its own handler, as `cairn resume`'s is).
fn stop_on_signals() -> miette::Result<Arc<AtomicBool>> {
    use tokio::signal::unix::{SignalKind, signal};
    let stop = Arc::new(AtomicBool::new(false));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .into_diagnostic()?;
    // Registered here, before the watch starts, so that no signal is lost in between.
    let streams = runtime.block_on(async {
        Ok::<_, std::io::Error>([
            signal(SignalKind::interrupt())?,
            signal(SignalKind::terminate())?,
            signal(SignalKind::hangup())?,
        ])
    });
    let [mut interrupt, mut terminate, mut hangup] = streams.into_diagnostic()?;
    let flag = stop.clone();
    std::thread::spawn(move || {
        runtime.block_on(async {
            tokio::select! {
                _ = interrupt.recv() => {}
                _ = terminate.recv() => {}
                _ = hangup.recv() => {}
            }
        });
        flag.store(true, Ordering::SeqCst);
    });
    Ok(stop)
}

fn sleep_unless_stopped(total: Duration, stop: &AtomicBool) {
    let until = Instant::now() + total;
    while Instant::now() < until && !stop.load(Ordering::SeqCst) {
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The runs whose controller died holding hosts, on `watcher` (a new connection to `url` when
/// the last look lost it), waiting for the store's answer only so long ([`PgStore::call`]).
fn look_for_orphans(
    watcher: Option<PgStore>,
    url: &StoreUrl,
) -> Result<(PgStore, Vec<OrphanedRun>), StoreError> {
    let store = match watcher {
        Some(store) => store,
        None => PgStore::connect(url)?,
    };
    store.call("look for runs whose controller died", |store| {
        store.orphaned_runs()
    })
}
