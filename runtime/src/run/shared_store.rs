//! The store every controller sees (docs/fleet.md), as the executor knows it: where leases are
//! taken, where the journal that no lease fences (the controller's) goes, and where `run.json`
//! is kept. The runtime knows only this trait; the PostgreSQL store implements it in
//! `cairn-store-pg`, and the binary wires the two.
//!
//! The run's folder stays the working copy every reader reads (byte for byte the folder
//! store's): a run on the shared store writes each record to the store first, then to the
//! folder, and a reader on another machine first copies the run from the store into its own
//! folder.

use crate::journal::{JournalError, RecordSink};
use crate::lease::LeaseStore;

/// A store shared by controllers: leases, unfenced journals, run metadata.
pub trait SharedStore: std::fmt::Debug + Send + Sync {
    /// Where host leases are taken (instead of this machine's lease folder).
    fn leases(&self) -> &dyn LeaseStore;

    /// Where `host`'s journal of run `run_id` goes when no host lease fences it (the
    /// `controller` journal): appended while this controller's session is alive.
    fn unfenced_sink(&self, run_id: &str, host: &str) -> Result<Box<dyn RecordSink>, JournalError>;

    /// Reserves `run_id` for a new run of this controller: `false` when another controller's
    /// run has it (two controllers named a run by the same second), and the run takes another.
    fn reserve_run_id(&self, run_id: &str) -> Result<bool, JournalError>;

    /// Keeps run `run_id`'s `run.json` (its bytes, as the folder holds them); the first time,
    /// stores the run whole, with the runbook and the `modules` it imports.
    fn put_meta(&self, run_id: &str, meta: &[u8], modules: &RunModules)
    -> Result<(), JournalError>;

    /// Stores a new shared run's other shares (`--controllers N`, `fleet.rs`), each run whole
    /// with its `run.json` (`shares`: run id, `run.json`, host count) and unclaimed, beside this
    /// run (its first share, `first` with `first_hosts`), which this controller drives.
    fn open_fleet(
        &self,
        first: &str,
        first_hosts: usize,
        shares: &[(String, Vec<u8>, usize)],
        modules: &RunModules,
    ) -> Result<(), JournalError> {
        let _ = (first, first_hosts, shares, modules);
        Err(JournalError::Store {
            reason: "this store cannot share a run between controllers".into(),
        })
    }

    /// The store's side of share `share`'s barriers and budget; `None`: this store has none.
    fn fleet(&self, share: &crate::FleetShare) -> Option<std::sync::Arc<dyn crate::FleetSync>> {
        let _ = share;
        None
    }
}

/// The folder of a working copy's `source/` that holds the modules found on the search path.
pub const SEARCH_MODULES: &str = ".search";

/// The module files a run's runbook imports, named as the shared store keeps them with the run
/// (`executor/run_modules.rs` finds them): the runbook's path under its import root (the pack,
/// else its folder), and each module's stored name (`lib/guest.rhai`, or `.search/N/...` for
/// the `N`th `--lib`/`CAIRN_PATH` folder) with the file it is read from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunModules {
    /// The runbook's path under the import root (`recipes/tune/runbook.rhai`), or its file
    /// name when it is not under it.
    pub runbook: String,
    /// Each module's stored name and file.
    pub modules: Vec<(String, std::path::PathBuf)>,
}
