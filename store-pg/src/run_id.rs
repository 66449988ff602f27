//! Reserving a new run's id in the store, so that two controllers starting a run in the same
//! second (each naming it by the time, `20261203-121531`) never share one run: the second one
//! takes the next free id (`20261203-121531-2`), as two runs of one folder do.

use crate::{PgStore, Session, StoreError};

impl PgStore {
    /// Reserves run id `id` for `session`: `false` when another run has it already (reserved,
    /// or stored before reservations existed).
    pub fn reserve_run_id(&mut self, session: &Session, id: &str) -> Result<bool, StoreError> {
        let reserved = self
            .client
            .execute(
                "INSERT INTO cairn_run_id (id, session) \
                 SELECT $1, $2 WHERE NOT EXISTS (SELECT 1 FROM cairn_run WHERE id = $1) \
                 ON CONFLICT (id) DO NOTHING",
                &[&id, &session.id()],
            )
            .map_err(|error| self.fail("reserve a run id", error))?;
        Ok(reserved == 1)
    }
}
