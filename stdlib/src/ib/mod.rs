//! `ib::` builtins: RDMA ports (`ibstatus`, `ibstat`, `ibv_devinfo`), the InfiniBand fabric
//! (`ibnetdiscover`) and waiting for a port to come up; with the simulated guest's RDMA ports
//! and fabric. Parsers only, so far: the fabric's diagnostics (`ibqueryerrors`, `perfquery`,
//! `iblinkinfo`, `sminfo`, `ibnodes`, ibdiagnet's console summary) and `ibv_rc_pingpong`.

pub mod builtins;
pub(crate) mod command;
mod diag;
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
mod reads;
pub(crate) mod sim;
pub mod sminfo;
mod switch;

/// The namespace the builtins are registered under; with the name a script calls, it is
/// each builtin's journal name (`ib::...`), so no name is typed twice.
pub(crate) const NAMESPACE: &str = "ib";
