//! The action protocol every host-touching builtin goes through: intent, effect, outcome.

use serde_json::Value;

use crate::{ACTING, ActionError, HostIo};

/// A builtin's call, as the journal records it.
pub struct ActionCall<'a> {
    /// Canonical arguments; replay matches on them.
    pub args: Value,
    /// What `cairn resume --assume done` returns in place of the unknown result.
    pub assumed: Value,
    /// The builtin's name, e.g. `run` or `mlxconfig::set`.
    pub builtin: String,
    /// How a resume finds out whether an interrupted call happened.
    pub reconcile: Reconcile<'a>,
}

/// What a builtin did to the host.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// Whether it changed the host.
    pub changed: bool,
    /// Whether the change waits for a reboot.
    pub reboot_required: bool,
    /// The value the script receives.
    pub value: Value,
}

impl Outcome {
    /// A result that changed nothing.
    pub fn unchanged(value: Value) -> Self {
        Self {
            changed: false,
            reboot_required: false,
            value,
        }
    }
}

/// A probe that finds out (and may finish) an action whose outcome was not recorded, given the
/// progress it recorded. `None` means it did not happen and must run again.
pub type Probe<'a> =
    Box<dyn FnOnce(&mut HostIo<'_>, &[Value]) -> Result<Option<Outcome>, ActionError> + 'a>;

/// How to settle an action that has an intent and no outcome in the journal.
pub enum Reconcile<'a> {
    /// Only the operator can tell (`cairn resume --assume done|redo`).
    Ask,
    /// The builtin's probe looks at the host.
    Probe(Probe<'a>),
    /// A probe for a builtin that looks before it changes and records what it saw with
    /// [`HostIo::acting`](crate::HostIo::acting), fsynced, just before changing the host. Without
    /// that record the action changed nothing (the host already was as asked, or it stopped
    /// before acting), so it runs again instead of being probed: a host that already matched is
    /// then not mistaken for one this action changed (and owes no reboot).
    Marked(Probe<'a>),
    /// Running it again is harmless.
    Redo,
}

impl Reconcile<'_> {
    /// The name recorded in the intent, so a resume knows before running whether to ask.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Ask => "ask",
            Self::Probe(_) => "probe",
            Self::Marked(_) => "marked",
            Self::Redo => "redo",
        }
    }
}

/// What an interrupted action recorded it saw just before it changed the host, if it got that
/// far (see [`Reconcile::Marked`]).
pub fn acted(progress: &[Value]) -> Option<&Value> {
    progress.iter().find_map(|step| step.get(ACTING))
}
