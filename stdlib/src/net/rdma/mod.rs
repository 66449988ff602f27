//! `rdma link`: every RDMA port with its state and its network interface (iproute2's `rdma`
//! tool, `rdma/link.c`): which netdev a RoCE port is, and whether an InfiniBand port has its
//! LID from a subnet manager. The grammar is `rdma_link.pest`.

mod parse;
mod types;

pub use types::{RdmaLink, RdmaPort};

/// Parses `rdma link [show [DEV[/PORT]]]` output (with `-d`, `-o` too).
///
/// Claims: output whose every line is a port line as rdma prints it (`link mlx5_0/1` or
/// iproute2 4.x's `1/1: mlx5_0/1:`, then only rdma's attributes in its order: `subnet_prefix`,
/// `lid`, `sm_lid`, `lmc`, `state`, `physical_state`, `netdev`, `netdev_index`) or the `caps:
/// <...>` line of the port above; or the tool's own failure lines alone (`Wrong device name`),
/// which are the result's `error`. An empty output (a host without RDMA devices prints nothing)
/// and any other line are refused.
pub fn parse(text: &str) -> Result<RdmaLink, crate::ParseError> {
    parse::parse(text)
}
