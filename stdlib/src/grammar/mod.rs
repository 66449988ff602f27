//! Layer 1: what every output parser shares: the error, the line ends, the number readers, and
//! the column cursor for fixed-width tables; and the grammars two namespaces read (`esxcli`'s, `mlxfwmanager`'s, `show_gids`').
//!
//! Its parts: `ParseError`; the number readers (`number`, `named_number`, `read`, `read_radix`);
//! the column cursor for fixed-width tables; `pairs.rs` (a `Label: value` field's pair and the
//! `-E-`/`-W-`/`-I-` lines of the MFT tools); `transcript.rs` (the transcript parsers' `Message`
//! and `ToolError`, their line walk and line counter: docs/parsers.md "Transcripts"). The grammars
//! two namespaces read: `esxcli/` (`esxcli.pest` and its table and record walks, which every
//! `esxcli` parser is written in, and `nic_list.rs`, the `network nic list` parser `mst`'s check
//! mode reads too, with its command line), `mlxfwmanager/` (the query and update `mlxfwmanager`
//! prints, which `ofed`'s installers' firmware step prints too; registered in `mlxfwmanager`'s row
//! of `tools.rs`), `show_gids/` (the GID table, and the RoCE v2 GID a test must use, which
//! perftest's builtins choose by; registered in `net`'s row) and `lspci/` (`lspci` and `lspci
//! -vv`, which `gpu` reads for the bridges' ACS; registered in `lspci`'s row).

mod ber;
pub(crate) mod column_cursor;
pub(crate) mod esxcli;
mod line_ends;
pub(crate) mod lspci;
pub(crate) mod mlxfwmanager;
mod number;
mod pairs;
mod parse_error;
pub(crate) mod show_gids;
pub(crate) mod transcript;

pub(crate) use ber::ber;
pub(crate) use line_ends::{lone_cr_as_lf, read as read_output};
pub(crate) use number::{Misfit, named_number, number, read, read_radix};
pub(crate) use pairs::{file_message, label_value};
pub use parse_error::ParseError;
pub(crate) use parse_error::quote;
pub use transcript::{Message, ToolError};
