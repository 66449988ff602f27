//! `ibdev2netdev`: which network interface belongs to which RDMA device port.
//!
//! Reads the plain (`mlx5_0 port 1 ==> ib0 (Up)`), verbose (`-v`) and old-style (`<===>`)
//! outputs. The grammar is `ibdev2netdev.pest`.

mod parse;
mod types;

pub use types::{DeviceMapping, Ibdev2Netdev};

/// Parses `ibdev2netdev` or `ibdev2netdev -v` output.
///
/// Claims: only mapping lines (`mlx5_0 port 1 ==> ib0 (Up)`, the `-v` form with its PCI
/// address); any other line is refused.
pub fn parse(text: &str) -> Result<Ibdev2Netdev, crate::ParseError> {
    parse::parse(text)
}
