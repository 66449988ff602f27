//! Layer 1: what every output parser shares.

pub(crate) mod column_cursor;
mod parse_error;

pub use parse_error::ParseError;
pub(crate) use parse_error::quote;
