//! Layer 1: what every output parser shares: the error, the line ends, the number readers, and
//! the column cursor for fixed-width tables; and the grammars two namespaces read (`esxcli`'s, `mlxfwmanager`).

pub(crate) mod column_cursor;
pub(crate) mod esxcli;
mod line_ends;
pub(crate) mod mlxfwmanager;
mod number;
mod pairs;
mod parse_error;
pub(crate) mod transcript;

pub(crate) use line_ends::{lone_cr_as_lf, read as read_output};
pub(crate) use number::{Misfit, named_number, number, read, read_radix};
pub(crate) use pairs::{file_message, label_value};
pub use parse_error::ParseError;
pub(crate) use parse_error::quote;
pub use transcript::{Message, ToolError};
