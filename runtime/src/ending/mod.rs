//! How a host's part of a run ended, for the people and tools that read it: a failure as a
//! diagnostic with its spans (`failure`). It sits above the host context and the checks it
//! reads, and below the executor and the output that show it.

pub(crate) mod failure;
