//! The modules a runbook imports, followed as the run follows them: each import resolved from
//! the file it is in (`imports.rs`), each module found checked as the runbook is (calls and
//! values) and its own imports followed in turn, each one that resolves nowhere refused at its
//! span.

use std::collections::BTreeSet;
use std::path::PathBuf;

use rhai::{AST, ASTNode, Engine, Position, Stmt};

use super::methods::imported_functions;
use super::signatures::Signatures;
use super::{calls, unit_values};
use crate::{ImportPath, Runbook, RunbookError};

/// Problems in the imports of `ast` (the runbook's), and in every module reached from them.
pub(crate) fn check_imports(
    engine: &Engine,
    signatures: &Signatures,
    ast: &AST,
    runbook: &Runbook,
) -> Vec<RunbookError> {
    let path = runbook.imports();
    let mut seen = BTreeSet::new();
    let mut problems = Vec::new();
    let mut pending = resolve_each(&path, ast, runbook, &mut problems);
    while let Some(file) = pending.pop() {
        if !seen.insert(file.clone()) {
            continue;
        }
        let module = match Runbook::load(&file) {
            Ok(module) => module.with_lib_path(&runbook.lib_path),
            Err(error) => {
                problems.push(error);
                continue;
            }
        };
        match module.compile(engine) {
            Ok(module_ast) => {
                let imported = imported_functions(engine, &module_ast, &module);
                problems.extend(calls::check_calls(
                    signatures,
                    &module_ast,
                    &module,
                    &imported,
                ));
                let values = unit_values::check_unit_values(signatures, &module_ast, &module);
                problems.extend(values);
                pending.extend(resolve_each(&path, &module_ast, &module, &mut problems));
            }
            Err(error) => problems.push(error),
        }
    }
    problems
}

/// Every module file the runbook (compiled as `ast`) loads, directly or through other modules,
/// each once, in the order they are first reached; imports that resolve nowhere or modules
/// that do not compile are left out (the check refuses them before a run).
pub(crate) fn imported_files(engine: &Engine, ast: &AST, runbook: &Runbook) -> Vec<PathBuf> {
    let path = runbook.imports();
    let mut ignored = Vec::new();
    let mut found = Vec::new();
    let mut pending = resolve_each(&path, ast, runbook, &mut ignored);
    pending.reverse();
    while let Some(file) = pending.pop() {
        if found.contains(&file) {
            continue;
        }
        found.push(file.clone());
        let Ok(module) = Runbook::load(&file) else {
            continue;
        };
        let module = module.with_lib_path(&runbook.lib_path);
        if let Ok(module_ast) = module.compile(engine) {
            let mut next = resolve_each(&path, &module_ast, &module, &mut ignored);
            next.reverse();
            pending.extend(next);
        }
    }
    found
}

/// The files the literal imports of `ast` (in the file `from`) load; one problem for each that
/// resolves nowhere.
fn resolve_each(
    path: &ImportPath,
    ast: &AST,
    from: &Runbook,
    problems: &mut Vec<RunbookError>,
) -> Vec<PathBuf> {
    let mut files = Vec::new();
    ast.walk(&mut |nodes: &[ASTNode]| {
        if let Some(ASTNode::Stmt(Stmt::Import(import, position))) = nodes.last()
            && let Some(name) = import.0.get_literal_value(None).filter(|m| m.is_string())
        {
            let module = name.to_string();
            match path.resolve(Some(&from.path), &module) {
                Some(file) => files.push(file),
                None => problems.push(missing(
                    path,
                    from,
                    &module,
                    at(import.0.position(), *position),
                )),
            }
        }
        true
    });
    files
}

/// The import's name when it has a position, else the statement's.
fn at(name: Position, statement: Position) -> Position {
    if name.is_none() { statement } else { name }
}

fn missing(path: &ImportPath, from: &Runbook, module: &str, position: Position) -> RunbookError {
    from.error_at(
        format!("no module `{module}`"),
        position,
        Some(format!(
            "looked for {}; `--lib DIR` or CAIRN_PATH adds a folder to look in",
            path.tried(Some(&from.path), module)
        )),
    )
}
