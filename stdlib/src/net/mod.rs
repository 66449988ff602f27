//! `net::` builtins: a Linux guest's interfaces (`ip -j addr`), their MTU and addresses, and
//! which interface an RDMA port is (`ibdev2netdev`), with the simulated guest's `ip`,
//! `ibdev2netdev` and `show_gids` (whose parser is `grammar::show_gids`: perftest reads it too);
//! and the parsers of an interface's driver counters and driver (`ethtool -S`, `ethtool -i`) and
//! of the RDMA ports with their interfaces (`rdma link`).

pub mod builtins;
pub(crate) mod command;
pub mod ethtool;
pub mod ibdev2netdev;
pub mod ip;
pub mod rdma;
mod reads;
pub(crate) mod show_gids_sim;
pub(crate) mod sim;

/// The namespace the builtins are registered under; with the name a script calls, it is
/// each builtin's journal name (`net::...`), so no name is typed twice.
pub(crate) const NAMESPACE: &str = "net";
