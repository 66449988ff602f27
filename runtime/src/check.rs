//! `cairn check`: calls to builtins that do not exist, or with the wrong number of arguments.

use std::collections::{BTreeMap, BTreeSet};

use rhai::{AST, ASTNode, Engine, Expr, Stmt};

use crate::{Runbook, RunbookError};

/// The problems with builtin calls in `ast`, each pointing at its call.
///
/// Namespaced calls (`mlxconfig::set`) must name a registered module function with that many
/// arguments; plain calls to a registered builtin (`run`) must match one of its arities. Calls
/// through `import` aliases and to functions the runbook defines are left to run time.
pub fn check_calls(engine: &Engine, ast: &AST, runbook: &Runbook) -> Vec<RunbookError> {
    let arities = registered_arities(engine);
    let modules: BTreeSet<&str> = arities
        .keys()
        .filter_map(|name| name.split_once("::").map(|(m, _)| m))
        .collect();
    let script_functions: BTreeSet<(String, usize)> = ast
        .iter_functions()
        .map(|f| (f.name.to_owned(), f.params.len()))
        .collect();
    let mut aliases = BTreeSet::new();
    ast.walk(&mut |path: &[ASTNode]| {
        if let Some(ASTNode::Stmt(Stmt::Import(import, _))) = path.last() {
            aliases.insert(import.1.name.to_string());
        }
        true
    });
    let mut problems = Vec::new();
    ast.walk(&mut |path: &[ASTNode]| {
        let Some(ASTNode::Expr(Expr::FnCall(call, position))) = path.last() else {
            return true;
        };
        let arity = call.args.len();
        let name = if call.namespace.is_empty() {
            call.name.to_string()
        } else {
            format!("{}::{}", call.namespace, call.name)
        };
        let root = call
            .namespace
            .path
            .first()
            .map(|segment| segment.as_str().to_owned());
        let complaint = match (&root, arities.get(&name)) {
            (Some(root), _) if aliases.contains(root) => None,
            (_, Some(known)) if known.contains(&arity) => None,
            (None, _) if script_functions.contains(&(name.clone(), arity)) => None,
            (_, Some(known)) => Some(format!(
                "`{name}` takes {} argument(s), not {arity}",
                known
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join(" or ")
            )),
            (Some(root), None) if modules.contains(root.as_str()) => {
                Some(format!("module `{root}` has no function `{}`", call.name))
            }
            (Some(root), None) => Some(format!("unknown module `{root}`")),
            (None, None) => None,
        };
        if let Some(message) = complaint {
            problems.push(runbook.error_at(message, *position, Some(near(&arities, &name))));
        }
        true
    });
    problems
}

/// Builtin name → the argument counts it accepts, from the engine's own signatures.
fn registered_arities(engine: &Engine) -> BTreeMap<String, BTreeSet<usize>> {
    let mut arities: BTreeMap<String, BTreeSet<usize>> = BTreeMap::new();
    for signature in engine.gen_fn_signatures(false) {
        let Some((name, rest)) = signature.split_once('(') else {
            continue;
        };
        let params = rest.split(')').next().unwrap_or_default();
        let count = if params.trim().is_empty() {
            0
        } else {
            params.split(',').count()
        };
        arities
            .entry(name.trim().to_owned())
            .or_default()
            .insert(count);
    }
    arities
}

/// A hint: the builtins of the same module, or with a similar name.
fn near(arities: &BTreeMap<String, BTreeSet<usize>>, name: &str) -> String {
    let module = name.split_once("::").map(|(m, _)| format!("{m}::"));
    let similar: Vec<&str> = arities
        .keys()
        .map(String::as_str)
        .filter(|known| match &module {
            Some(prefix) => known.starts_with(prefix.as_str()),
            None => known.contains(name) || name.contains(*known),
        })
        .take(12)
        .collect();
    if similar.is_empty() {
        "`cairn repl` lists builtins with :help".into()
    } else {
        format!("known: {}", similar.join(", "))
    }
}
