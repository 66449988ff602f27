//! A simulated host's hardware by its model (layer 1): here the hardware files ask whether a
//! host is bare metal, which the `rhel8-metal` model marks when it creates the host
//! ([`metal::METAL_MARK`]). The files below describe each piece without knowing which model
//! they serve: the ESXi adapters (`esxi.rs`), a guest's ports from its options (`guest.rs`) or
//! from its ESXi host's passthrough (`passthrough.rs`), and the bare-metal host composing them
//! into its own (`metal.rs`).
//!
//! The MFT tools run on ESXi and on bare metal, so their printers read the adapters here; the
//! Linux tools run on a guest and on bare metal, so theirs read [`GuestHw::of`].

use cairn_runtime::sim::SimContext;

use crate::machine::esxi::{self, Adapter};
use crate::machine::guest::GuestHw;
use crate::machine::{metal, passthrough};

/// The host's adapters: its `adapters` option, else its model's default (a bare-metal host's
/// one ConnectX-5, an ESXi host's the reference guide's two).
pub(crate) fn adapters(host: &SimContext<'_>) -> Vec<Adapter> {
    if metal::is_metal(host) {
        metal::adapters(host)
    } else {
        esxi::adapters_or(host, esxi::DEFAULT_ADAPTERS)
    }
}

/// The adapter `dev` names.
pub(crate) fn find(host: &SimContext<'_>, dev: &str) -> Option<Adapter> {
    adapters(host).into_iter().find(|a| a.matches(dev))
}

/// Every port: `(adapter, function)`.
pub(crate) fn ports(host: &SimContext<'_>) -> Vec<(Adapter, u32)> {
    esxi::ports_of(adapters(host))
}

impl GuestHw {
    /// The hardware of the host `ctx` runs on: on a bare-metal host, its own adapters' ports
    /// ([`metal::hardware`]); with `esxi=HOST`, the ports its ESXi host passes through to its
    /// VM now ([`passthrough::hardware`]); else the guest's from its options.
    pub(crate) fn of(ctx: &SimContext<'_>) -> Self {
        if metal::is_metal(ctx) {
            metal::hardware(ctx)
        } else if let Some(esxi) = ctx.option("esxi") {
            passthrough::hardware(ctx, esxi)
        } else {
            Self::from_options(ctx.host_name(), |key| ctx.option(key))
        }
    }
}
