//! The cairn runtime: the runbook language, the executor, the journal, transports, inventories
//! and the simulated host machinery. It knows no vendor tool; `cairn-stdlib` adds those.

mod action;
mod action_error;
mod assumptions;
mod barrier;
mod budget;
mod builtin_help;
mod builtin_options;
mod cancel;
mod check;
mod clock;
pub mod config;
mod debug;
mod ending;
mod engine;
mod exec_run;
mod executor;
pub mod fence;
mod halt;
mod host_context;
mod host_info;
mod host_io;
mod host_range;
mod imports;
mod in_flight;
pub mod inventory;
pub mod journal;
pub mod launch;
mod launch_error;
pub mod lease;
mod left_behind;
mod local_transport;
mod outline;
pub mod output;
mod param_choice;
mod param_file;
mod param_value;
mod private_files;
mod reboot;
mod resume_choices;
mod retry;
mod rolling;
mod run;
mod runbook;
pub mod secrets;
mod session;
pub mod sim;
mod source_fold;
pub mod ssh;
mod string_methods;
mod syntax;
mod transport;
mod transport_error;
mod vault_use;
mod vocabulary;
mod wait_reachable;

pub use action::{ActionCall, Outcome, Probe, Reconcile, acted};
pub use action_error::{ActionError, CallSite, OutputParse};
pub use assumptions::Assumptions;
pub use budget::{Disruption, DisruptionBudget, MaxUnavailable};
pub use builtin_help::{
    BuiltinSignature, builtin_doc_text, builtin_help, builtin_names, builtin_signatures, rhai_type,
};
pub use builtin_options::{
    BuiltinOptions, OptionKey, OptionType, declare_options, declared_options,
};
pub use cancel::{Cancel, Cancelled};
pub use check::{
    CheckRecord, Checked, GroupCheck, check_groups, check_runbook, check_source, import_file,
    line_column,
};
pub use clock::Clock;
pub use debug::breakpoint::Breakpoint;
pub use debug::debugger::Debugger;
pub use debug::pause::{Pause, PausePoint, PauseReason, Resume};
pub use ending::failure::{HostFailure, JournalLine};
pub use ending::report::{HostReport, RunReport};
pub use engine::{Installer, bind_host, build_engine};
pub use exec_run::{EXEC_STAGE, exec_runbook_text, write_exec_runbook};
pub use executor::{RunError, RunHost, RunRequest, execute};
pub use halt::Halt;
pub use host_context::{AfterBoot, HostContext, Mode, Role};
pub use host_info::HostInfo;
pub use host_io::{ACTING, HostIo};
pub use imports::{ImportPath, ImportResolver, PACK_MANIFEST};
pub use in_flight::{Acting, InFlight};
pub use local_transport::LocalTransport;
pub use outline::{Declaration, Outline};
pub use param_file::ParamFile;
pub use param_value::{ParamError, check_params};
pub use resume_choices::{AskUndecided, Decision, Undecided};
pub use rolling::{RollingGate, Serial};
pub use run::event::{EVENTS_SCHEMA_VERSION, EventSink, RecapLine, RunEvent, Stamped};
pub use run::lock::{Driver, LockError, RunLock};
pub use run::shared::{RunOptions, RunShared};
pub use run::store::{RunMeta, RunState, RunStore};
pub use run::unknown::UnknownName;
pub use runbook::{Runbook, RunbookError, error_in};
pub use session::Session;
pub use session::debug::{DebugEvent, DebugRequest, DebugRun, Helper};
pub use transport::{ExecOutput, ExecRequest, Transport};
pub use transport_error::TransportError;
pub use vocabulary::Secret;
