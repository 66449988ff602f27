//! How a host's part of a run ended, for the people and tools that read it: each host's report
//! and the run's (`report`), and a failure as a diagnostic with its spans (`failure`). It sits
//! above the host context and the checks it reads, and below the executor that makes the
//! reports and the output that shows them.

pub(crate) mod failure;
pub(crate) mod report;
