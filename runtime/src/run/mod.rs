//! What a run is beyond one host: what its instances share (`shared`), what it reports
//! (`event`), its folder on disk (`run_folders`) and the lock that lets one process drive it
//! (`lock`), and the hold that keeps two cross-host tests off one host (`pair_hold`). A host's failure as a diagnostic is in `ending/`.
//!
//! Files: `shared.rs` (`RunShared`, `RunOptions`: what the instances share; its fields are the
//! runtime's, the stdlib gets methods: `exec_on`, `clock_of`, `hold_pair`, `reaches`, `options`,
//! `cancel`, checked by `stdlib/tests/run_shared.rs`); `pair_hold.rs` (`PairHold`: the two hosts of
//! a cross-host test, held with a mutex and condition variable, so tests that share a host run in
//! turn); `event.rs` (`RunEvent`, `Stamped`, `EventSink`: what a run reports, docs/events.md);
//! `exit_status.rs` (`ExitStatus`: how a run ended, as its exit code); `unknown.rs` (a run id or
//! host that is not there, with did-you-mean); `run_folders.rs` (the state folder `.cairn/`: each run's
//! folder `runs/<id>/`, run ids claimed there and, with a shared store, reserved in it too;
//! `run.json`, run state); `lock.rs` (`RunLock`: one process drives a run, an OS lock on the run
//! folder's `lock`); `shared_store.rs` (`SharedStore`: the shared store every controller sees, as
//! the executor knows it: leases, run ids reserved across controllers, the unfenced journal sink,
//! run.json with the run's `RunModules`; `cairn-store-pg` implements it).

pub(crate) mod event;
pub(crate) mod exit_status;
pub(crate) mod lock;
pub(crate) mod pair_hold;
pub(crate) mod run_folders;
pub(crate) mod shared;
pub(crate) mod shared_store;
pub(crate) mod unknown;
