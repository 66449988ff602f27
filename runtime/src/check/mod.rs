//! `cairn check`, and the same checks before `cairn run` starts: everything wrong with a
//! runbook that can be known without running it.

mod calls;
mod groups;
mod least_values;
mod record;
mod result_use;
mod signatures;
mod structure;
mod unit_argument;
mod unit_values;
mod whole;

use rhai::{AST, Engine};

pub use groups::{GroupCheck, check_groups};
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
    let mut problems = calls::check_calls(&signatures, ast, runbook);
    problems.extend(structure::check_structure(&signatures, ast, runbook));
    problems.extend(unit_values::check_unit_values(&signatures, ast, runbook));
    problems.extend(check_modules(engine, &signatures, ast, runbook));
    problems.sort_by_key(|p| p.span.map(|s| (s.offset(), s.len())));
    problems
}

/// The modules the runbook imports, checked as the runbook is (calls and values).
fn check_modules(
    engine: &Engine,
    signatures: &Signatures,
    ast: &AST,
    runbook: &Runbook,
) -> Vec<RunbookError> {
    let mut modules = std::collections::BTreeSet::new();
    ast.walk(&mut |path: &[rhai::ASTNode]| {
        if let Some(rhai::ASTNode::Stmt(rhai::Stmt::Import(import, _))) = path.last()
            && let Some(name) = import.0.get_literal_value(None).filter(|m| m.is_string())
            && let Some(file) = structure::import_file(&runbook.path, &name.to_string())
        {
            modules.insert(file);
        }
        true
    });
    let mut problems = Vec::new();
    for file in modules {
        let Ok(module) = Runbook::load(&file) else {
            continue;
        };
        match module.compile(engine) {
            Ok(module_ast) => {
                problems.extend(calls::check_calls(signatures, &module_ast, &module));
                problems.extend(unit_values::check_unit_values(
                    signatures,
                    &module_ast,
                    &module,
                ));
            }
            Err(error) => problems.push(error),
        }
    }
    problems
}

#[cfg(test)]
mod tests;
