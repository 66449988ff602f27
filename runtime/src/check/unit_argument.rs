//! A run-time `Function not found: f ((), i64)` says which call made the `()`: the call that
//! returns nothing, passed directly or through a variable it was assigned to.

use rhai::{ASTNode, Expr, Position, Stmt};

use super::calls::call_at;
use super::signatures::Signatures;
use super::unit_values::Nothing;
use crate::Runbook;

/// The help for a call whose signature (`net::set_mtu ((), i64)`) has a `()` argument.
pub(crate) fn unit_argument_help(
    runbook: &Runbook,
    signature: &str,
    position: Position,
) -> Option<String> {
    let arguments = signature.split_once(" (")?.1;
    if !arguments.contains("()") {
        return None;
    }
    let generic = "an argument is `()`, the value of a call that returns nothing (rhai's in-place \
                   methods such as `push`, `pad`, `make_upper` change their receiver and return `()`); \
                   `cairn check` names it"
        .to_owned();
    let engine = crate::build_engine(&runbook.imports(), &[], u64::MAX);
    let Ok(ast) = runbook.compile(&engine) else {
        return Some(generic);
    };
    let signatures = Signatures::of(&engine);
    let nothing = Nothing::of(&signatures, &ast);
    let mut assigned: Vec<(String, String, Position)> = Vec::new();
    let mut found = None;
    ast.walk(&mut |path: &[ASTNode]| {
        let Some(node) = path.last() else {
            return true;
        };
        if let ASTNode::Stmt(Stmt::Var(var, ..)) = node
            && let Some((call, at)) = nothing.call(&var.1)
        {
            assigned.push((var.0.name.to_string(), call, at));
        }
        let call = call_at(node).or(match node {
            ASTNode::Expr(Expr::MethodCall(call, at)) => Some((&**call, *at)),
            _ => None,
        });
        if let Some((call, at)) = call
            && at == position
        {
            for (index, argument) in call.args.iter().enumerate() {
                let culprit = nothing.call(argument).or_else(|| match argument {
                    Expr::Variable(variable, ..) => assigned
                        .iter()
                        .rev()
                        .find(|(name, ..)| *name == variable.1.as_str())
                        .map(|(name, call, at)| (format!("{call}` (assigned to `{name}`"), *at)),
                    _ => None,
                });
                if let Some((culprit, at)) = culprit {
                    found = Some(format!(
                        "argument {} is `()`: `{culprit}` on line {} returns nothing, it changes its receiver in place",
                        index + 1,
                        at.line().unwrap_or(0)
                    ));
                }
            }
            return false;
        }
        true
    });
    Some(found.unwrap_or(generic))
}
