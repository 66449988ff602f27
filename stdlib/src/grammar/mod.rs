//! Layer 1: what every output parser shares: the error, the number readers, and the column
//! cursor for fixed-width tables.

pub(crate) mod column_cursor;
mod number;
mod parse_error;

pub(crate) use number::{Misfit, named_number, number, read, read_radix};
pub use parse_error::ParseError;
pub(crate) use parse_error::quote;
