//! What a run is beyond one host: what its instances share (`shared`), what it reports
//! (`event`), a host's failure as a diagnostic (`failure`), its folder on disk (`store`) and the
//! lock that lets one process drive it (`lock`).

pub(crate) mod event;
pub(crate) mod failure;
pub(crate) mod lock;
pub(crate) mod shared;
pub(crate) mod store;
