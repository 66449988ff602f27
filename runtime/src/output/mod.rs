//! What a run shows people: event lines cut to the terminal, colour, verbosity, the live status
//! area's text, failures grouped by host, and the recap. The binary only wires these to stdout.

mod color;
mod duration;
mod grouping;
mod lines;
mod recap;
mod status;
mod summary;
mod verbosity;
mod width;

pub use crate::host_range::{compress_hosts, describe_hosts};
pub use crate::run::exit_status::ExitStatus;
pub use color::{ColorChoice, Palette};
pub use duration::human_duration;
pub use grouping::{group_failures, group_hosts};
pub use lines::LineRenderer;
pub use recap::Recap;
pub use status::StatusBoard;
pub use summary::Summary;
pub use verbosity::Verbosity;
pub use width::cut_to_width;
