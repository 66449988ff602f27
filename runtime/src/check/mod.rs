//! `cairn check`, and the same checks before `cairn run` starts: everything wrong with a
//! runbook that can be known without running it.
//!
//! What it checks: calls (names, arity, literal types, literal integers below a builtin's least
//! value, option keys), structure (duplicate params and stages, nesting, actions outside stages),
//! imports followed into every module as the run follows them (`imports.rs`), values of calls that
//! return nothing, stages' groups against an inventory, and method calls to names some function
//! has, with as many arguments (`methods.rs`); signatures come from the engine's metadata.
//! `whole.rs` has `check_source`, the whole check `cairn check` and `cairn lsp` run; `record.rs`
//! has `CheckRecord`, a diagnostic located in its file's real text, for `--format json` and
//! editors.

mod calls;
mod groups;
mod imports;
mod least_values;
mod methods;
mod record;
mod result_use;
mod signatures;
mod structure;
mod unit_argument;
mod unit_values;
mod whole;

use rhai::{AST, Engine};

pub use groups::{GroupCheck, check_groups};
pub(crate) use imports::imported_files;
pub use record::{CheckRecord, line_column};
pub(crate) use result_use::result_is_read;
use signatures::Signatures;
pub use structure::import_file;
pub(crate) use unit_argument::unit_argument_help;
pub use whole::{Checked, check_source};

use crate::{Runbook, RunbookError};

/// Every problem in a compiled runbook and the modules it imports, each pointing at its span.
pub fn check_runbook(engine: &Engine, ast: &AST, runbook: &Runbook) -> Vec<RunbookError> {
    let signatures = Signatures::of(engine);
    let imported = methods::imported_functions(engine, ast, runbook);
    let mut problems = calls::check_calls(&signatures, ast, runbook, &imported);
    problems.extend(structure::check_structure(&signatures, ast, runbook));
    problems.extend(unit_values::check_unit_values(&signatures, ast, runbook));
    problems.extend(imports::check_imports(engine, &signatures, ast, runbook));
    problems.sort_by_key(|p| p.span.map(|s| (s.offset(), s.len())));
    problems
}

#[cfg(test)]
mod tests;
