//! The GID index each side of a test gives perftest's `-x`: looked up in the host's `show_gids`
//! (the RoCE v2 IPv4 GID of the port the test uses), never a fixed number. A guessed index runs
//! RoCE v1 or a link-local GID and halves the result.
//!
//! Where `show_gids` is not installed (it comes with MLNX_OFED and DOCA-OFED's mlnx-tools, not
//! with the distributions' rdma-core), nothing can be looked up: the test runs with the index the
//! runbook gave, or none, and a test that then ran over RoCE without a given index is refused
//! after the fact by its own banner ([`unchecked_roce`]), so no figure of an unknown GID passes.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use cairn_runtime::{ActionError, ExecRequest, HostIo, RunShared};

use super::command::TestOptions;
use crate::grammar::show_gids::{self, PortGid, ShowGids};

/// The port perftest uses when `-i` is not given: the one every test here runs on.
const IB_PORT: u32 = 1;

/// A host's table, by host and device; `None` where `show_gids` is not installed.
type ReadTables = HashMap<(String, String), Option<Arc<ShowGids>>>;

/// The GID tables an action has read: a matrix asks each host once.
#[derive(Default)]
pub(crate) struct GidTables {
    read: Mutex<ReadTables>,
}

/// What one side of a test gives `-x`, and whether its host could say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SideGid {
    /// The index to give; `None` gives no `-x` (an InfiniBand port, or nothing to give).
    pub(crate) index: Option<i64>,
    /// `show_gids` was there to choose or check it.
    pub(crate) checked: bool,
}

impl GidTables {
    /// The `-x` of the server's and the client's side: each port's RoCE v2 IPv4 GID, the index
    /// the runbook gave (checked where `show_gids` is installed), or none on InfiniBand. The
    /// server's is the one with the test's `address` where it has several. Ends of two link
    /// layers get no choice: perftest itself says they cannot meet.
    pub(crate) fn sides(
        &self,
        mut io: Option<&mut HostIo<'_>>,
        shared: &RunShared,
        (server, client): (&str, &str),
        opts: &TestOptions,
    ) -> Result<[SideGid; 2], ActionError> {
        let tables = [
            self.table(io.as_deref_mut(), shared, server, &opts.device)?,
            self.table(io, shared, client, &opts.device)?,
        ];
        let layers = tables.each_ref().map(|table| {
            table
                .as_deref()
                .and_then(|t| show_gids::is_infiniband(t, &opts.device, IB_PORT))
        });
        let unchosen = |checked: bool| SideGid {
            index: opts.gid_index,
            checked,
        };
        if let [Some(a), Some(b)] = layers
            && a != b
        {
            return Ok([unchosen(true), unchosen(true)]);
        }
        let given = opts.gid_index.and_then(|g| u32::try_from(g).ok());
        let side = |host: &str, table: &Option<Arc<ShowGids>>, address: Option<&str>| {
            let Some(table) = table else {
                return Ok(unchosen(false));
            };
            match show_gids::port_gid(table, &opts.device, IB_PORT, address, given) {
                Ok(PortGid::InfiniBand) => Ok(unchosen(true)),
                Ok(PortGid::RoceV2 { index, .. }) => Ok(SideGid {
                    index: Some(i64::from(index)),
                    checked: true,
                }),
                Err(why) => Err(ActionError::Failed(format!(
                    "cannot choose the RoCE GID on `{host}`: {why}"
                ))),
            }
        };
        let [server_table, client_table] = &tables;
        Ok([
            side(server, server_table, opts.address.as_deref())?,
            side(client, client_table, None)?,
        ])
    }

    /// `device`'s GID on `host` for a job that names no address (an NCCL job's): its port's
    /// only RoCE v2 IPv4 GID, `PortGid::InfiniBand`, or `None` where `show_gids` is not installed.
    pub(crate) fn node(
        &self,
        io: Option<&mut HostIo<'_>>,
        shared: &RunShared,
        host: &str,
        device: &str,
    ) -> Result<Option<PortGid>, ActionError> {
        let Some(table) = self.table(io, shared, host, device)? else {
            return Ok(None);
        };
        show_gids::port_gid(&table, device, IB_PORT, None, None)
            .map(Some)
            .map_err(|why| {
                ActionError::Failed(format!("cannot choose the RoCE GID on `{host}`: {why}"))
            })
    }

    /// `show_gids DEV` on `host`, read once an action; `None` when it is not installed.
    fn table(
        &self,
        io: Option<&mut HostIo<'_>>,
        shared: &RunShared,
        host: &str,
        device: &str,
    ) -> Result<Option<Arc<ShowGids>>, ActionError> {
        let key = (host.to_owned(), device.to_owned());
        if let Some(known) = self.lock().get(&key) {
            return Ok(known.clone());
        }
        let argv = ["show_gids", device];
        let output = crate::pair::exec_on(io, shared, host, &ExecRequest::new(argv))?;
        let table = match output.code {
            0 => Some(Arc::new(crate::action::parsed(
                argv.join(" ").as_str(),
                &output.stdout,
                show_gids::parse,
            )?)),
            127 => None,
            code => {
                return Err(ActionError::CommandFailed {
                    code,
                    command: format!("{} (on {host})", argv.join(" ")),
                    stderr: output.stderr,
                });
            }
        };
        self.lock().insert(key, table.clone());
        Ok(table)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, ReadTables> {
        self.read
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// A test that ran over RoCE (its banner's link type `Ethernet`) with a GID index nobody chose:
/// `show_gids` was missing on a side and the runbook gave none.
pub(crate) fn unchecked_roce(
    link_type: Option<&str>,
    given: Option<i64>,
    sides: [(&str, SideGid); 2],
) -> Option<ActionError> {
    if given.is_some() || link_type != Some("Ethernet") {
        return None;
    }
    let (host, _) = sides.iter().find(|(_, side)| !side.checked)?;
    Some(ActionError::Failed(format!(
        "the test ran over RoCE with a GID index cairn could not choose: `show_gids` is not \
         installed on `{host}` (it comes with MLNX_OFED and DOCA-OFED's mlnx-tools); install \
         it, or give `gid_index` (the RoCE v2 IPv4 GID's index on both hosts)"
    )))
}
