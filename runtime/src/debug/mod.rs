//! The debugger: where a runbook stops (`debugger`), what passes between a paused runbook and
//! the prompt (`pause`), breakpoints checked against the runbook (`breakpoint`), one host's
//! instance under the debugger on its own thread (`run`), and the host context's hooks that ask
//! it (`host`).

pub(crate) mod breakpoint;
pub(crate) mod debugger;
pub(crate) mod host;
pub(crate) mod pause;
pub(crate) mod run;
