//! Calls that return nothing used as values: rhai's in-place methods (`push`, `make_upper`,
//! `pad`, ...) change their receiver and return `()`, so `let x = a.push(1);` leaves `x` empty.

use std::collections::BTreeMap;

use rhai::{AST, ASTNode, Expr, FnCallExpr, Position, Stmt};

use super::calls::qualified;
use super::signatures::Signatures;
use crate::{Runbook, RunbookError};

/// What returns nothing: builtins by their signatures, and the runbook's own functions whose
/// last expression is such a call (`fn upper(s) { s.make_upper() }`).
pub(crate) struct Nothing<'a> {
    scripted: BTreeMap<String, (String, Position)>,
    signatures: &'a Signatures,
}

impl<'a> Nothing<'a> {
    /// Reads which of `ast`'s functions end with a call that returns nothing.
    pub(crate) fn of(signatures: &'a Signatures, ast: &AST) -> Self {
        let mut nothing = Self {
            scripted: BTreeMap::new(),
            signatures,
        };
        let bodies: Vec<(String, Position, Position)> = ast
            .iter_fn_def()
            .map(|f| {
                (
                    f.name.to_string(),
                    f.body.start_position(),
                    f.body.end_position(),
                )
            })
            .collect();
        let within = |at: Position, start: Position, end: Position| {
            let key = |p: Position| (p.line().unwrap_or(0), p.position().unwrap_or(0));
            key(start) <= key(at) && key(at) <= key(end)
        };
        // The last statement of a body is what the function returns.
        let mut last: BTreeMap<String, Option<(String, Position)>> = BTreeMap::new();
        ast.walk(&mut |path: &[ASTNode]| {
            if let [ASTNode::Stmt(statement)] = path
                && let Some((name, ..)) = bodies
                    .iter()
                    .find(|(_, start, end)| within(statement.position(), *start, *end))
            {
                let value = match statement {
                    Stmt::Expr(expr) => nothing.call(expr),
                    _ => None,
                };
                last.insert(name.clone(), value);
            }
            true
        });
        nothing.scripted = last
            .into_iter()
            .filter_map(|(name, value)| value.map(|v| (name, v)))
            .collect();
        nothing
    }

    /// The call `expr` is, if it returns nothing: how to name it, and where the `()` comes from.
    pub(crate) fn call(&self, expr: &Expr) -> Option<(String, Position)> {
        let (call, method, position) = match expr {
            Expr::Dot(binary, ..) => match &binary.rhs {
                Expr::MethodCall(call, position) => (call, true, *position),
                _ => return None,
            },
            Expr::FnCall(call, position) => (call, false, *position),
            _ => return None,
        };
        let name = qualified(call);
        if !method && let Some((inner, at)) = self.scripted.get(&name) {
            let line = at.line().unwrap_or(0);
            return Some((
                format!("{name}(...)`, whose last expression (line {line}) is `{inner}"),
                position,
            ));
        }
        let arity = call.args.len() + usize::from(method);
        self.signatures
            .returns_nothing(&name, arity)
            .then(|| (describe(call, method), position))
    }
}

fn describe(call: &FnCallExpr, method: bool) -> String {
    if method {
        format!(".{}(...)", call.name)
    } else {
        format!("{}(...)", qualified(call))
    }
}

/// Calls returning nothing whose value the runbook uses.
pub(crate) fn check_unit_values(
    signatures: &Signatures,
    ast: &AST,
    runbook: &Runbook,
) -> Vec<RunbookError> {
    let nothing = Nothing::of(signatures, ast);
    let mut problems = Vec::new();
    ast.walk(&mut |path: &[ASTNode]| {
        let Some(ASTNode::Expr(expr)) = path.last() else {
            return true;
        };
        let parent = path.len().checked_sub(2).and_then(|i| path.get(i));
        // A statement of its own, or the object of another call in a chain, uses no value.
        let used = !matches!(
            parent,
            Some(ASTNode::Stmt(Stmt::Expr(_)) | ASTNode::Expr(Expr::Dot(..))) | None
        );
        if used && let Some((call, position)) = nothing.call(expr) {
            problems.push(runbook.error_at(
                format!("`{call}` returns nothing (`()`): it changes its receiver in place"),
                position,
                Some("call it as a statement of its own, then use the variable it changed".into()),
            ));
        }
        true
    });
    problems
}
