//! Calls that return nothing used as values: rhai's in-place methods (`push`, `make_upper`,
//! `pad`, ...) change their receiver and return `()`, so `let x = a.push(1);` leaves `x` empty.

use rhai::{AST, ASTNode, Expr, FnCallExpr, Position, Stmt};

use super::calls::qualified;
use super::signatures::Signatures;
use crate::{Runbook, RunbookError};

/// The call an expression ends with, if it is a call that returns nothing: its name and
/// position.
pub(crate) fn returns_nothing(signatures: &Signatures, expr: &Expr) -> Option<(String, Position)> {
    let (call, method, position) = match expr {
        Expr::Dot(binary, ..) => match &binary.rhs {
            Expr::MethodCall(call, position) => (call, true, *position),
            _ => return None,
        },
        Expr::FnCall(call, position) => (call, false, *position),
        _ => return None,
    };
    let arity = call.args.len() + usize::from(method);
    signatures
        .returns_nothing(&qualified(call), arity)
        .then(|| (describe(call, method), position))
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
        if used && let Some((call, position)) = returns_nothing(signatures, expr) {
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
