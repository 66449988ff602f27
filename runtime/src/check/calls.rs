//! Calls a runbook makes: to functions that exist, with as many arguments as they take, literal
//! arguments of the types they take, and option maps with the keys they know; method calls
//! (`s.trim()`) to names some function has (`methods.rs`).

use std::collections::BTreeSet;

use rhai::{AST, ASTNode, Expr, FnCallExpr, Position, Stmt};

use super::methods::{ImportedFunction, Methods};
use super::signatures::{KEYWORDS, Signatures, accepts, describe};
use crate::inventory::closest;
use crate::{Runbook, RunbookError, declared_options};

/// A function call in the syntax tree, as an expression or a statement.
pub(crate) fn call_at<'a>(node: &'a ASTNode<'a>) -> Option<(&'a FnCallExpr, Position)> {
    match node {
        ASTNode::Expr(Expr::FnCall(call, position))
        | ASTNode::Stmt(Stmt::FnCall(call, position)) => Some((call, *position)),
        _ => None,
    }
}

/// The name a runbook calls: `run`, `net::set_mtu`.
pub(crate) fn qualified(call: &FnCallExpr) -> String {
    if call.namespace.is_empty() {
        call.name.to_string()
    } else {
        format!("{}::{}", call.namespace, call.name)
    }
}

/// The problems with the calls in `ast`, each pointing at its call.
///
/// Calls through `import` aliases are checked in the module itself (the module's functions are
/// its own); `imported` are the functions of the modules the file imports, which method calls
/// may name.
pub(crate) fn check_calls(
    signatures: &Signatures,
    ast: &AST,
    runbook: &Runbook,
    imported: &[ImportedFunction],
) -> Vec<RunbookError> {
    let modules: BTreeSet<&str> = signatures
        .by_name
        .keys()
        .filter_map(|name| name.split_once("::").map(|(m, _)| m))
        .collect();
    let script_functions: Vec<(String, usize)> = ast
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
    let methods = Methods::of(signatures, ast, imported);
    let mut problems = Vec::new();
    ast.walk(&mut |path: &[ASTNode]| {
        if let Some(ASTNode::Expr(Expr::MethodCall(call, position))) = path.last() {
            if let Some((message, help, at)) = methods.complaint(call, *position) {
                problems.push(runbook.error_at(message, at, help));
            }
            return true;
        }
        let Some((call, position)) = path.last().and_then(call_at) else {
            return true;
        };
        if call.op_token.is_some() || KEYWORDS.contains(&call.name.as_str()) {
            return true;
        }
        let name = qualified(call);
        let root = call.namespace.path.first().map(|s| s.as_str().to_owned());
        if root.as_ref().is_some_and(|r| aliases.contains(r)) {
            return true;
        }
        let arity = call.args.len();
        let scripted: Vec<usize> = script_functions
            .iter()
            .filter(|(n, _)| root.is_none() && *n == name)
            .map(|(_, a)| *a)
            .collect();
        if scripted.contains(&arity) {
            return true;
        }
        let registered: BTreeSet<usize> = signatures
            .by_name
            .get(&name)
            .map(|all| all.iter().map(|s| s.params.len()).collect())
            .unwrap_or_default();
        let known: BTreeSet<usize> = registered.iter().copied().chain(scripted).collect();
        let complaint = if !known.is_empty() && !known.contains(&arity) {
            Some((
                format!("`{name}` takes {} argument(s), not {arity}", join(&known)),
                Some(signatures.list(&name)),
                position,
            ))
        } else if known.is_empty() {
            Some(unknown(
                signatures,
                &script_functions,
                &modules,
                root.as_deref(),
                &name,
                position,
                call,
            ))
        } else {
            argument_types(signatures, &name, call, position)
                .or_else(|| super::least_values::below_least(&name, call))
        };
        if let Some((message, help, at)) = complaint {
            problems.push(runbook.error_at(message, at, help));
        }
        problems.extend(option_keys(&name, call, runbook));
        true
    });
    problems
}

type Complaint = (String, Option<String>, Position);

fn unknown(
    signatures: &Signatures,
    script_functions: &[(String, usize)],
    modules: &BTreeSet<&str>,
    root: Option<&str>,
    name: &str,
    position: Position,
    call: &FnCallExpr,
) -> Complaint {
    let candidates: BTreeSet<&str> = signatures
        .by_name
        .keys()
        .map(String::as_str)
        .filter(|n| root.is_some() || !n.contains("::"))
        .chain(script_functions.iter().map(|(n, _)| n.as_str()))
        .filter(|n| {
            n.chars()
                .next()
                .is_some_and(|c| c.is_alphabetic() || c == '_')
        })
        .collect();
    let near = closest(name, candidates.iter().copied()).map(|n| format!("did you mean `{n}`?"));
    let message = match root {
        Some(root) if modules.contains(root) => {
            format!("module `{root}` has no function `{}`", call.name)
        }
        Some(root) => format!("unknown module `{root}`"),
        None => format!("unknown function `{name}`: no builtin, and the runbook defines none"),
    };
    let help = near.or_else(|| {
        root.filter(|r| modules.contains(r)).map(|r| {
            let prefix = format!("{r}::");
            let names: Vec<&str> = candidates
                .iter()
                .copied()
                .filter(|n| n.starts_with(&prefix))
                .collect();
            format!("`{r}::` has: {}", names.join(", "))
        })
    });
    (
        message,
        Some(help.unwrap_or_else(|| "`cairn repl` lists the builtins with :help".into())),
        position,
    )
}

/// Literal arguments no signature of the builtin takes.
fn argument_types(
    signatures: &Signatures,
    name: &str,
    call: &FnCallExpr,
    position: Position,
) -> Option<Complaint> {
    let literals: Vec<_> = call
        .args
        .iter()
        .map(|a| a.get_literal_value(None))
        .collect();
    if name == "run"
        && let Some(Some(first)) = literals.first()
        && first.is_string()
    {
        let words: Vec<String> = first
            .to_string()
            .split_whitespace()
            .map(|w| format!("{w:?}"))
            .collect();
        return Some((
            "`run` takes its command as an array of words, not a string".into(),
            Some(format!("write run([{}])", words.join(", "))),
            call.args.first().map_or(position, Expr::position),
        ));
    }
    let candidates = signatures.with_arity(name, call.args.len());
    let fits = |s: &&super::signatures::Signature| {
        s.params
            .iter()
            .zip(&literals)
            .all(|(param, literal)| literal.as_ref().is_none_or(|v| accepts(*param, v)))
    };
    if candidates.is_empty() || candidates.iter().any(fits) {
        return None;
    }
    // Point at the first literal the first signature refuses.
    let first = candidates.first()?;
    let (index, value) =
        first
            .params
            .iter()
            .zip(&literals)
            .enumerate()
            .find_map(|(i, (param, literal))| {
                literal
                    .as_ref()
                    .filter(|v| !accepts(*param, v))
                    .map(|v| (i, v.clone()))
            })?;
    Some((
        format!(
            "argument {} of `{name}` is {}, which it does not take",
            index + 1,
            describe(&value)
        ),
        Some(format!("it takes {}", signatures.list(name))),
        call.args.get(index).map_or(position, Expr::position),
    ))
}

/// Keys of a literal option map the builtin does not know, or of the wrong type.
fn option_keys(name: &str, call: &FnCallExpr, runbook: &Runbook) -> Vec<RunbookError> {
    let Some(declared) = declared_options(name) else {
        return Vec::new();
    };
    let Some(map) = call.args.get(declared.arg) else {
        return Vec::new();
    };
    match map {
        Expr::Map(entries, _) => entries
            .0
            .iter()
            .filter_map(|(key, value)| {
                declared
                    .check_key(&key.name, value.get_literal_value(None).as_ref())
                    .err()
                    .map(|message| runbook.error_at(message, key.pos, None))
            })
            .collect(),
        Expr::DynamicConstant(value, position) => value
            .read_lock::<rhai::Map>()
            .and_then(|map| declared.check(&map).err())
            .into_iter()
            .map(|message| runbook.error_at(message, *position, None))
            .collect(),
        _ => Vec::new(),
    }
}

fn join(counts: &BTreeSet<usize>) -> String {
    counts
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(" or ")
}
