//! `--store URL` and `--lease-ttl SECS` (docs/fleet.md): the shared store a command's runs are
//! on. Without it, runs are this folder's and leases this machine's, as ever. With it, a run's
//! folder under `<state>/store/runs/` is the working copy of the stored run: the store is
//! written first, and readers copy the run from it before they read.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use cairn_runtime::RunFolders;
use cairn_store_pg::{Heartbeat, PgShared, PgStore, StoreUrl};
use clap::Args;

/// The store options of `run`, `resume`, `runs`, `journal` and `report`.
#[derive(Debug, Clone, Args)]
pub(crate) struct StoreArgs {
    /// The store every controller sees: `postgres://USER@HOST/DATABASE` (or
    /// `postgresql://...?host=/socket/folder`). Default: this folder's runs and this
    /// machine's host leases (docs/fleet.md).
    #[arg(long, env = "CAIRN_STORE", value_name = "URL", hide_env_values = true)]
    pub(crate) store: Option<String>,
    /// With `--store`: seconds this controller's session lives unrenewed; its hosts are
    /// another controller's that long after it died (renewed every third of it).
    #[arg(long, value_name = "SECS", default_value_t = 30,
          value_parser = clap::value_parser!(u64).range(3..=86_400))]
    pub(crate) lease_ttl: u64,
}

impl StoreArgs {
    /// No shared store (`cairn exec`, which keeps no run to resume elsewhere).
    pub(crate) fn none() -> Self {
        Self {
            store: None,
            lease_ttl: 30,
        }
    }

    /// The store's URL, checked, when one is given.
    pub(crate) fn url(&self) -> miette::Result<Option<StoreUrl>> {
        self.store
            .as_deref()
            .map(|text| StoreUrl::parse(text).map_err(miette::Report::new))
            .transpose()
    }

    /// Connects and opens this controller's session, renewed by a heartbeat until
    /// [`Opened::finish`].
    pub(crate) fn open(&self) -> miette::Result<Option<Opened>> {
        let Some(url) = self.url()? else {
            return Ok(None);
        };
        let ttl = Duration::from_secs(self.lease_ttl);
        let margin = cairn_store_pg::default_margin(ttl);
        let controller = cairn_runtime::lease::Holder::this_process("", Path::new(".")).controller;
        let (store, session) = PgStore::connect(&url)?
            .call("open a controller session", move |store| {
                store.open_session(&controller, std::process::id(), ttl, margin)
            })?;
        let heartbeat = Heartbeat::start(&url, &session, margin)?;
        Ok(Some(Opened {
            shared: Arc::new(PgShared::new(store, session)),
            heartbeat: Some(heartbeat),
        }))
    }

    /// Connects for reading only (`runs`, `journal`, `report`): no session.
    pub(crate) fn connect(&self) -> miette::Result<Option<PgStore>> {
        let Some(url) = self.url()? else {
            return Ok(None);
        };
        Ok(Some(PgStore::connect(&url)?))
    }

    /// The runs a command reads: the working copies of the store's runs (copied from it now:
    /// every run, or only `only`), or this folder's runs; with the store's connection.
    pub(crate) fn runs(
        &self,
        state: &Path,
        only: Option<&str>,
    ) -> miette::Result<(RunFolders, Option<PgStore>)> {
        let Some(store) = self.connect()? else {
            return Ok((RunFolders::new(state), None));
        };
        let runs = RunFolders::shared_copy(state);
        let store = store.copy_runs(&runs, only)?;
        Ok((runs, Some(store)))
    }
}

/// This controller's session on the store, and its heartbeat.
pub(crate) struct Opened {
    /// The store as the run sees it.
    pub(crate) shared: Arc<PgShared>,
    heartbeat: Option<Heartbeat>,
}

impl Opened {
    /// Ends the session at once, giving back whatever it still holds.
    pub(crate) fn finish(mut self) {
        if let Some(heartbeat) = self.heartbeat.take() {
            let _ = heartbeat.stop();
        }
        let _ = self.shared.close_session();
    }
}

/// `cairn resume --store URL [RUN]`: makes this controller the run's driver, unless a live
/// session drives it (refused, naming it), then writes the run's working copy here. A run
/// whose driver's session expired is taken over, and that is shown; its hosts' leases are
/// taken over (and journaled) as the resume takes them. The run: `given`, else the newest
/// unfinished one of the store.
pub(crate) fn take_over(
    opened: &Opened,
    state: &Path,
    given: Option<String>,
) -> miette::Result<Option<String>> {
    let runs = RunFolders::shared_copy(state);
    let id = match given {
        Some(id) => id,
        None => {
            opened.shared.copy_runs(&runs, None)?;
            match runs.latest_resumable().0 {
                Some(id) => id,
                // The launcher says there is none, as without a store.
                None => return Ok(None),
            }
        }
    };
    let taking = id.clone();
    let taken = opened
        .shared
        .call("take a run over", move |store, session| {
            store.take_run(session, &taking)
        })?;
    match taken {
        // Not in the store: the launcher names the runs there are.
        None => return Ok(Some(id)),
        Some(cairn_store_pg::RunTake::Held(driver)) => {
            return Err(miette::miette!(
                code = "cairn::store::run_held",
                help = "it is alive: wait for it to end, or stop it; once its session expires (--lease-ttl after it was last renewed) `cairn resume --store` takes the run over",
                "run {id} is driven by {} (store session {}); nothing was done",
                driver.describe(),
                driver.session
            ));
        }
        Some(cairn_store_pg::RunTake::Taken { from: Some(driver) }) => {
            say!(
                "took run {id} over from {}: its store session expired",
                driver.describe()
            );
        }
        Some(cairn_store_pg::RunTake::Taken { from: None }) => {}
    }
    opened.shared.copy_runs(&runs, Some(&id))?;
    Ok(Some(id))
}
