//! A whole check of one runbook, as `cairn check` and the language server run it: compiling
//! (a syntax error is the one problem then), the calls and structure of the runbook and its
//! modules, and with an inventory the stages' groups.

use std::path::Path;

use rhai::Engine;

use super::CheckRecord;
use crate::inventory::Inventory;
use crate::{Runbook, RunbookError};

/// What checking one runbook found.
#[derive(Debug, Default)]
pub struct Checked {
    /// Problems, each pointing at its span in the runbook or one of its modules.
    pub errors: Vec<RunbookError>,
    /// Stages on groups that have no hosts: worth a word, no reason to refuse the runbook.
    pub warnings: Vec<String>,
}

/// Compiles `runbook` with `engine` and checks it, and its groups when `inventory` is given.
pub fn check_source(engine: &Engine, runbook: &Runbook, inventory: Option<&Inventory>) -> Checked {
    let ast = match runbook.compile(engine) {
        Ok(ast) => ast,
        Err(error) => {
            return Checked {
                errors: vec![error],
                warnings: Vec::new(),
            };
        }
    };
    let mut checked = Checked {
        errors: super::check_runbook(engine, &ast, runbook),
        warnings: Vec::new(),
    };
    if let Some(inventory) = inventory {
        let groups = super::check_groups(&ast, runbook, inventory);
        checked.errors.extend(groups.errors);
        checked.warnings = groups.warnings;
    }
    checked
}

impl Checked {
    /// The warnings and problems as records, each located in its own file's text: the
    /// runbook's for its own, `read`'s for a module's (an editor's unsaved text, or the file).
    pub fn records(
        &self,
        runbook: &Runbook,
        read: &dyn Fn(&Path) -> Option<String>,
    ) -> Vec<CheckRecord> {
        let name = runbook.name();
        let warnings = self
            .warnings
            .iter()
            .map(|warning| CheckRecord::warning(&name, warning.clone()));
        let errors = self.errors.iter().map(|error| {
            let file = error.source_code.name();
            let text = if file == name {
                Some(runbook.text.clone())
            } else {
                read(Path::new(file))
            };
            CheckRecord::of(error, &name, text.as_deref())
        });
        warnings.chain(errors).collect()
    }
}
