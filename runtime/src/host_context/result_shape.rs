//! Reading an action's result as the builtin's type. A replayed result is what the journal
//! holds, which another cairn or a hand may have written in another shape: it reads into the
//! type or fails naming the record, never as a default a runbook would take for "none".

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::HostContext;
use crate::ActionError;

impl HostContext {
    /// The result `value` of the action `builtin` just performed, read as `T` (`expected` says
    /// what that is, for the error).
    pub fn read_result<T: DeserializeOwned>(
        &self,
        builtin: &str,
        value: Value,
        expected: &str,
    ) -> Result<T, ActionError> {
        serde_json::from_value(value)
            .map_err(|error| self.result_shape_error(builtin, expected, &error))
    }

    /// The error for the result of `builtin`, the action just performed, that does not read as
    /// `expected`; it names the journal record the result was replayed from, if it was.
    pub fn result_shape_error(
        &self,
        builtin: &str,
        expected: &str,
        problem: &dyn std::fmt::Display,
    ) -> ActionError {
        let seq = self.state().seq;
        let recorded = self.recorded.get(&seq);
        ActionError::JournalShape {
            builtin: recorded.map_or_else(|| builtin.to_owned(), |r| r.intent.builtin.clone()),
            seq,
            expected: expected.to_owned(),
            problem: problem.to_string(),
            journal: self.journal_path.clone(),
            line: recorded.map(|r| r.line),
        }
    }
}
