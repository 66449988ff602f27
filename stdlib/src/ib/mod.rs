//! `ib::` builtins: RDMA ports (`ibstatus`, `ibstat`, `ibv_devinfo`), the InfiniBand fabric
//! (`ibnetdiscover`) and waiting for a port to come up; the fabric's link health
//! (`ibqueryerrors`, `perfquery -x`, `iblinkinfo`, and the counters that moved during a test,
//! `counters.rs`, on links named by both ends, `fabric_links.rs`); with the simulated guest's
//! RDMA ports and fabric (`sim_fabric.rs`). Parsers only, so far: `sminfo`, `ibnodes`,
//! ibdiagnet's console summary and `ibv_rc_pingpong`.

pub mod builtins;
pub(crate) mod command;
pub mod counters;
mod diag;
pub mod fabric_links;
pub mod ibdiagnet;
pub mod ibdiagnet_summary;
pub mod iblinkinfo;
pub mod ibnetdiscover;
pub mod ibnodes;
pub mod ibqueryerrors;
pub mod ibstat;
pub mod ibstatus;
pub mod ibv_devinfo;
pub mod link;
pub mod perfquery;
pub mod rc_pingpong;
pub(crate) mod reads;
pub(crate) mod sim;
mod sim_fabric;
pub mod sminfo;
mod switch;

/// The namespace the builtins are registered under; with the name a script calls, it is
/// each builtin's journal name (`ib::...`), so no name is typed twice.
pub(crate) const NAMESPACE: &str = "ib";
