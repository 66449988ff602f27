//! The debugger: where a runbook stops (`debugger`), what passes between a paused runbook and
//! the prompt (`pause`), and breakpoints checked against the runbook (`breakpoint`). The host
//! context asks it (its hooks are in `host_context/debug_hooks.rs`); one host's instance under
//! the debugger on its own thread is `session/debug.rs`.

pub(crate) mod breakpoint;
pub(crate) mod debugger;
pub(crate) mod pause;
