//! What a run is beyond one host: what its instances share (`shared`), what it reports
//! (`event`), its folder on disk (`store`) and the lock that lets one process drive it
//! (`lock`), and the hold that keeps two cross-host tests off one host (`pair_hold`). A host's failure as a diagnostic is in `ending/`.

pub(crate) mod event;
pub(crate) mod exit_status;
pub(crate) mod lock;
pub(crate) mod pair_hold;
pub(crate) mod shared;
pub(crate) mod shared_store;
pub(crate) mod store;
pub(crate) mod unknown;
