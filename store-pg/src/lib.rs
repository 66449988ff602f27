//! The shared PostgreSQL store of cairn (docs/fleet.md): controller sessions with a TTL judged by
//! the database's clock, host leases whose epoch only grows, journal appends fenced by that
//! epoch, and runs stored whole so that another controller can resume them without a checkout.
//!
//! It uses the blocking `postgres` crate, not `tokio-postgres` directly: the runtime drives each
//! host on its own thread and journals synchronously (a record is durable before the host is
//! touched), so every call here is one blocking round trip on the caller's thread. `postgres`
//! runs a private current-thread tokio runtime per client underneath; nothing here needs the
//! caller to be inside one.

mod answer_within;
mod append_pool;
mod boot_clock;
mod connection;
mod error;
mod fleet_share;
mod heartbeat;
mod host_lease;
mod journal;
mod journal_sink;
mod orphaned_run;
mod pg_fleet;
mod pg_leases;
mod pg_shared;
mod run_id;
mod run_owner;
mod run_record;
mod schema;
// Tests' and benchmarks' throwaway server: only with the `scratch-server` feature, so the
// shipped library has no code that starts servers and panics.
#[cfg(feature = "scratch-server")]
pub mod scratch_server;
mod session;
mod shared_connection;
mod store_url;
mod working_copy;

use answer_within::answer_within;
pub use boot_clock::BootInstant;
pub use connection::PgStore;
use connection::connection_fail;
pub use error::StoreError;
pub use fleet_share::ClaimedShare;
pub use heartbeat::Heartbeat;
pub use host_lease::HostTake;
pub use journal::LeasedRecord;
pub use orphaned_run::OrphanedRun;
pub use pg_leases::PgLeases;
pub use pg_shared::PgShared;
pub use run_owner::{RunDriver, RunTake};
pub use run_record::RunRecord;
pub use schema::SCHEMA_VERSION;
pub use session::{DEFAULT_TTL, Session, default_margin};
pub use store_url::StoreUrl;
