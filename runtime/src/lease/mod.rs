//! Host leases: a host is acted on by one run at a time, across runs, working folders and (with
//! a shared store, later) controller machines.
//!
//! A run takes the lease of every host it will act on before it begins, and gives each back
//! when that host's part of the run ends. The store is behind [`LeaseStore`], so that a shared
//! store (PostgreSQL, docs/fleet.md) can stand in for the folder of this machine
//! ([`FolderLeases`]).
//!
//! [`FolderLeases`] keeps one OS-locked file per host in this machine's lease folder
//! (`CAIRN_LEASE_DIR`); [`Holder`] (`lease_holder.rs`) is who holds one, as a refusal names it;
//! `take_all` takes every host of a run before it acts, in identity order (`--wait-for-hosts`).

mod folder_leases;
mod take_all;

pub use crate::lease_holder::Holder;
pub use folder_leases::{FolderLeases, LEASE_DIR_VAR};
pub use take_all::{RunLeases, TakeError, take_all};

/// Where a host's lease stands after an attempt to take it.
#[derive(Debug)]
pub enum Taken {
    /// The lease was free: this run holds it now.
    Free(Box<dyn HeldLease>),
    /// Its holder is provably gone (its process ended without giving it back): this run holds
    /// it now, and says so.
    TakenOver(Box<dyn HeldLease>, Holder),
    /// Another run holds it.
    Held(Holder),
}

/// A lease this run holds; dropping it gives it back.
pub trait HeldLease: std::fmt::Debug + Send + Sync {
    /// The fencing epoch the store gave this lease: it only grows from one taker to the next,
    /// and the host's fence refuses any caller below the highest it has seen.
    fn epoch(&self) -> Option<u64> {
        None
    }

    /// Who holds it, as the host's fence records it: `RUN@CONTROLLER:PID`.
    fn owner(&self) -> Option<String> {
        None
    }

    /// Where `host`'s journal of run `run_id` is appended under this lease, fenced by it (the
    /// shared store's lease); `None`: the folder journal alone (a folder lease).
    fn journal_sink(
        &self,
        run_id: &str,
        host: &str,
    ) -> Option<Box<dyn crate::journal::RecordSink>> {
        let _ = (run_id, host);
        None
    }
}

/// Where leases are kept.
pub trait LeaseStore: Send + Sync {
    /// Tries to take the lease of the host known as `identity` (the transport's, so that two
    /// inventories naming one host differently still meet), for `holder`, without waiting.
    fn try_take(&self, identity: &str, holder: &Holder) -> Result<Taken, LeaseError>;

    /// [`Self::try_take`] for each of `identities`, in their order; a store that can take
    /// them together (one transaction) does, instead of one round of its own each.
    fn try_take_each(
        &self,
        identities: &[&str],
        holder: &Holder,
    ) -> Result<Vec<Taken>, LeaseError> {
        identities
            .iter()
            .map(|identity| self.try_take(identity, holder))
            .collect()
    }
}

/// The store itself failed (the folder cannot be created or written).
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
#[error("cannot {action} the host lease `{path}`: {source}")]
#[diagnostic(
    code(cairn::runtime::lease_io),
    help(
        "the lease folder is set by CAIRN_LEASE_DIR (default /run/lock/cairn), a shared store by its URL; nothing was run"
    )
)]
pub struct LeaseError {
    /// What was being done.
    pub action: &'static str,
    /// The lease file or folder.
    pub path: String,
    /// The operating system's reason.
    pub source: std::io::Error,
}

/// The epoch and owner a host's changing commands carry to its fence: its lease's, when the
/// lease store gives one.
pub fn fence_of(
    run_id: &str,
    hold: Option<&std::sync::Arc<dyn HeldLease>>,
) -> Option<(u64, String)> {
    let hold = hold?;
    let epoch = hold.epoch()?;
    let owner = hold
        .owner()
        .unwrap_or_else(|| Holder::this_process(run_id, std::path::Path::new(".")).owner());
    Some((epoch, owner))
}
