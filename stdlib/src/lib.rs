//! Vendor tool modules for cairn, in three layers (see `src/README.md`).
//!
//! Layer 1, shared: [`action`] (what builtins share), [`pair`] (cross-host server/client runs),
//! [`grammar`] (what parsers share), [`machine`] (the simulated hardware every printer reads).
//! Layer 2, one folder per builtin namespace: its grammars, types, command builder, builtins and
//! simulator printer. Layer 3, assembly: [`models`] (the simulated hosts), [`library`] and
//! [`parsers`] (what is installed, and every output parser by the name `cairn parse` uses), all
//! derived from one table of tools (`tools.rs`).

// Layer 1: shared.
mod action;
mod grammar;
mod machine;
mod pair;

// Layer 2: one folder per builtin namespace.
pub mod esxcli;
pub mod fabric;
pub mod flint;
pub mod gpu;
pub mod ib;
pub mod lspci;
pub mod mlxconfig;
pub mod mlxfwmanager;
pub mod mlxfwreset;
pub mod mlxlink;
pub mod mst;
pub mod nccl;
pub mod net;
pub mod ofed;
pub mod perftest;
pub mod qos;
pub mod report;
pub mod sockperf;
pub mod vhpc;

// Layer 3: assembly.
#[cfg(test)]
mod builtins_doc;
mod library;
mod models;
pub mod parsers;
mod tools;

#[cfg(test)]
mod test_support;

/// The field of a journaled result that reading it as its type dropped (the report's sections
/// refuse such a result as a replay does).
pub use action::unread_field;
pub use grammar::{Message, ParseError, ToolError};
pub use library::{libraries, sim_models};
