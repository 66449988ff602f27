//! `show_gids`: the GID table of every RDMA port, with each GID's RoCE version, IPv4 address and
//! network interface: which GID index a RoCE v2 test over IPv4 must use (perftest `-x`,
//! `NCCL_IB_GID_INDEX`).
//!
//! The mlnx-tools script of MLNX_OFED and DOCA-OFED (`sbin/show_gids` in Mellanox/mlnx-tools);
//! the grammar is `show_gids.pest`.

mod parse;
mod roce_gid;
mod types;

pub(crate) use roce_gid::{PortGid, is_infiniband, port_gid};
pub(crate) use types::{GidEntry, ShowGids};

/// Parses `show_gids [DEV]` output.
///
/// Claims: output that starts with the script's title row, `DEV PORT INDEX GID IPv4 VER DEV`,
/// and its dashes; anything else is refused. The rows after it are strict (a row that is not a
/// GID is an error), and `n_gids_found=N` must count them.
pub(crate) fn parse(text: &str) -> Result<ShowGids, crate::ParseError> {
    parse::parse(text)
}
