//! The shape of a runbook: params and stages declared once, stages not nested, actions inside
//! stages (imports: `imports.rs`).

use std::collections::BTreeMap;
use std::path::Path;

use rhai::{AST, ASTNode, Expr, Position};

use super::calls::{call_at, qualified};
use super::signatures::Signatures;
use crate::{Runbook, RunbookError};

/// Builtins outside the vendor modules that touch the host, so need a stage.
const ACTIONS: &[&str] = &[
    "available",
    "publish",
    "reboot",
    "reboot_if_pending",
    "run",
    "unavailable",
];

/// A `stage` or `param` form's keyword and name, with where the name is.
fn declaration<'a>(node: &'a ASTNode<'a>) -> Option<(&'a str, String, Position)> {
    let ASTNode::Expr(Expr::Custom(custom, position)) = node else {
        return None;
    };
    let keyword = custom.tokens.first()?.as_str();
    let name = match custom.inputs.first() {
        Some(Expr::StringConstant(name, _)) => name.to_string(),
        Some(Expr::Variable(variable, ..)) => variable.1.to_string(),
        _ => String::new(),
    };
    let at = custom.inputs.first().map_or(*position, Expr::position);
    Some((keyword, name, at))
}

/// Duplicate params and stages, nested stages, actions outside stages.
pub(crate) fn check_structure(
    signatures: &Signatures,
    ast: &AST,
    runbook: &Runbook,
) -> Vec<RunbookError> {
    let mut problems = Vec::new();
    let mut seen: BTreeMap<(String, String), usize> = BTreeMap::new();
    let mut visit = |path: &[ASTNode]| {
        let Some(node) = path.last() else {
            return true;
        };
        if let Some((keyword, name, at)) = declaration(node) {
            let line = at.line().unwrap_or(0);
            if let Some(first) = seen.insert((keyword.to_owned(), name.clone()), line) {
                let why = if keyword == "stage" {
                    "stage names must differ: `--from-stage` and the journal find a stage by its name"
                } else {
                    "a param has one value for the whole run"
                };
                problems.push(runbook.error_at(
                    format!("{keyword} `{name}` is declared twice (first on line {first})"),
                    at,
                    Some(why.into()),
                ));
            }
            let outer = path[..path.len() - 1]
                .iter()
                .rev()
                .find_map(|n| declaration(n).filter(|(k, ..)| *k == "stage"));
            if keyword == "stage"
                && let Some((_, outer, _)) = outer
            {
                problems.push(runbook.error_at(
                    format!("stage `{name}` is inside stage `{outer}`: stages cannot nest"),
                    at,
                    Some("close the outer stage first; a stage runs on one group at a time".into()),
                ));
            }
        }
        if let Some(problem) = bad_serial(node, runbook) {
            problems.push(problem);
        }
        if let Some((call, position)) = call_at(node) {
            let name = qualified(call);
            let action = ACTIONS.contains(&name.as_str())
                || (name.contains("::") && signatures.by_name.contains_key(&name));
            let in_stage = path
                .iter()
                .any(|n| declaration(n).is_some_and(|(k, ..)| k == "stage"));
            if let Some(problem) =
                whole_group_call_in_pipelined_stage(path, &name, position, runbook)
            {
                problems.push(problem);
            }
            if action && !in_stage {
                problems.push(runbook.error_at(
                    format!("`{name}` touches the host and must be called inside a `stage` block"),
                    position,
                    Some("wrap the call in `stage \"name\" on GROUP { ... }`".into()),
                ));
            }
        }
        true
    };
    // Only the runbook's own statements: a function's body runs wherever it is called.
    let mut path = Vec::new();
    for statement in ast.statements() {
        statement.walk(&mut path, &mut visit);
        path.clear();
    }
    problems
}

/// Calls that need every host of a group at the same stage, which a pipelined stage
/// (`after VAR`) does not wait for: what `hosts()` returns would be partial, and an all-pairs
/// test would drive peers still in an earlier stage.
const WHOLE_GROUP_CALLS: &[&str] = &["hosts", "fabric::all_pairs"];

/// `hosts(...)` or `fabric::all_pairs(...)` written in a pipelined stage's block, refused before
/// the run (a call from a function the block calls is refused when it runs).
fn whole_group_call_in_pipelined_stage(
    path: &[ASTNode],
    name: &str,
    position: Position,
    runbook: &Runbook,
) -> Option<RunbookError> {
    if !WHOLE_GROUP_CALLS.contains(&name) {
        return None;
    }
    let stage = path.iter().rev().find_map(|node| match node {
        ASTNode::Expr(Expr::Custom(custom, _))
            if custom.tokens.first().map(|t| t.as_str()) == Some("stage") =>
        {
            Some(custom)
        }
        _ => None,
    })?;
    let var = crate::outline::pipelined_var(stage)?;
    let stage_name = match stage.inputs.first() {
        Some(Expr::StringConstant(stage_name, _)) => stage_name.to_string(),
        _ => String::new(),
    };
    Some(runbook.error_at(
        format!(
            "`{name}` in stage `{stage_name}`, which is pipelined (`after {var}`): it needs every host of the group at this stage, and a pipelined stage does not wait for them"
        ),
        position,
        Some(format!(
            "drop `after {var}` to keep the stage's barrier, or call `{name}` in a plain stage after it"
        )),
    ))
}

/// A rolling stage whose `serial` value is a literal that is no batch size (`serial -1`,
/// `serial "150%"`), refused before anything runs rather than when the stage is reached.
fn bad_serial(node: &ASTNode, runbook: &Runbook) -> Option<RunbookError> {
    let ASTNode::Expr(Expr::Custom(custom, _)) = node else {
        return None;
    };
    if custom.tokens.first()?.as_str() != "stage" || custom.inputs.len() != 4 {
        return None;
    }
    let serial = custom.inputs.get(2)?;
    let value = serial.get_literal_value(None)?;
    let message = crate::Serial::parse(&value).err()?;
    Some(runbook.error_at(
        message,
        serial.position(),
        Some("`serial 2` runs the stage on 2 hosts at a time, `serial \"25%\"` on a quarter of them, `serial 0` on all at once".into()),
    ))
}

/// The file an `import "name"` in the runbook or module at `file` loads, resolved as a run
/// resolves it (`crate::imports`), without a search path.
pub fn import_file(file: &Path, module: &str) -> Option<std::path::PathBuf> {
    crate::ImportPath::of_runbook(file, &[]).resolve(Some(file), module)
}
