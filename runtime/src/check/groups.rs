//! Stages against an inventory: `stage ... on GROUP` must name a group the inventory has, or
//! the stage would be skipped on every host without a word; likewise `hosts("GROUP")` with a
//! literal name, which would quietly give no hosts.

use rhai::{AST, ASTNode, Expr};

use crate::inventory::{Inventory, closest};
use crate::{CONTROLLER, Runbook, RunbookError};

/// What checking a runbook's groups found.
#[derive(Debug, Default)]
pub struct GroupCheck {
    /// Stages and `hosts("...")` calls on groups the inventory does not have.
    pub errors: Vec<RunbookError>,
    /// Stages on groups that have no hosts.
    pub warnings: Vec<String>,
}

/// Checks every stage's group against `inventory`.
pub fn check_groups(ast: &AST, runbook: &Runbook, inventory: &Inventory) -> GroupCheck {
    let mut found = GroupCheck::default();
    ast.walk(&mut |path: &[ASTNode]| {
        if let Some((call, _)) = path.last().and_then(super::calls::call_at)
            && super::calls::qualified(call) == "hosts"
            && let [Expr::StringConstant(group, position)] = call.args.as_slice()
            && !inventory.group_names().iter().any(|g| g == group.as_str())
        {
            found.errors.push(runbook.error_at(
                format!("`hosts(\"{group}\")`: the inventory has no group `{group}`"),
                *position,
                Some(known_groups_help(group, inventory)),
            ));
            return true;
        }
        let Some(ASTNode::Expr(Expr::Custom(custom, _))) = path.last() else {
            return true;
        };
        if custom.tokens.first().map(|t| t.as_str()) != Some("stage") {
            return true;
        }
        let (Some(Expr::StringConstant(stage, _)), Some(Expr::Variable(group, _, position))) =
            (custom.inputs.first(), custom.inputs.get(1))
        else {
            return true;
        };
        let group = group.1.as_str();
        if let Some(var) = crate::outline::pipelined_var(custom) {
            let at = match custom.inputs.get(2) {
                Some(Expr::Variable(_, _, at)) => *at,
                _ => *position,
            };
            check_pipelined(stage, group, &var, at, runbook, inventory, &mut found);
        }
        if group == CONTROLLER {
            return true;
        }
        if !inventory.group_names().iter().any(|g| g == group) {
            let help = known_groups_help(group, inventory);
            found.errors.push(runbook.error_at(
                format!(
                    "stage `{stage}` runs on group `{group}`, which the inventory does not have"
                ),
                *position,
                Some(help),
            ));
        } else if inventory.group(group).is_empty() {
            found.warnings.push(format!(
                "stage `{stage}` runs on group `{group}`, which has no hosts"
            ));
        }
        true
    });
    found
}

/// A pipelined stage (`after VAR`) against the inventory: every host of its group has the var,
/// and the var names hosts of the inventory other than the host itself; `on controller` has no
/// vars to wait by.
fn check_pipelined(
    stage: &str,
    group: &str,
    var: &str,
    at: rhai::Position,
    runbook: &Runbook,
    inventory: &Inventory,
    found: &mut GroupCheck,
) {
    if group == CONTROLLER {
        found.errors.push(runbook.error_at(
            format!("stage `{stage}` on controller cannot be pipelined (`after {var}`): the controller has no vars naming the hosts it waits for"),
            at,
            Some("drop `after ...`: a controller stage waits at its barrier for every host".into()),
        ));
        return;
    }
    let names: Vec<&str> = inventory.hosts().iter().map(|h| h.name.as_str()).collect();
    let mut errors = Vec::new();
    // One error for the var, naming the first host without it and how many more there are.
    let mut wrong_var: Vec<(String, String)> = Vec::new();
    let mut without_var: Vec<&str> = Vec::new();
    for host in inventory.group(group) {
        let named = match crate::pipeline::dependencies(&host.name, &host.vars, var) {
            Ok(Some(named)) => named,
            Ok(None) => {
                without_var.push(&host.name);
                continue;
            }
            Err(message) => {
                wrong_var.push((host.name.clone(), message));
                continue;
            }
        };
        for name in named {
            if name == host.name {
                errors.push(runbook.error_at(
                    format!(
                        "stage `{stage}`: {}'s var `{var}` names {name} itself",
                        host.name
                    ),
                    at,
                    Some("a host cannot wait for itself: name the host it depends on".into()),
                ));
            } else if !names.contains(&name.as_str()) {
                let help = match closest(&name, names.iter().copied()) {
                    Some(near) => format!("did you mean `{near}`?"),
                    None => format!("the inventory's hosts: {}", names.join(", ")),
                };
                errors.push(runbook.error_at(
                    format!(
                        "stage `{stage}`: {}'s var `{var}` names {name}, which is not a host of the inventory",
                        host.name
                    ),
                    at,
                    Some(help),
                ));
            }
        }
    }
    if let Some((_, message)) = wrong_var.first() {
        let others: Vec<&str> = wrong_var.iter().skip(1).map(|(h, _)| h.as_str()).collect();
        let also = if others.is_empty() {
            String::new()
        } else {
            format!(" (so do {})", others.join(", "))
        };
        errors.push(runbook.error_at(
            format!("stage `{stage}`: {message}{also}"),
            at,
            Some(format!(
                "give every host of `{group}` a var `{var}` naming the host it waits for (`{var} = \"HOST\"`)"
            )),
        ));
    }
    if !without_var.is_empty() {
        found.warnings.push(format!(
            "stage `{stage}` is pipelined by var `{var}`, and {} of `{group}` {} no such var ({}): {} for every host of the run, as at a barrier (give each `{var} = \"HOST\"` to start it as soon as that host is through)",
            if without_var.len() == 1 { "1 host".to_owned() } else { format!("{} hosts", without_var.len()) },
            if without_var.len() == 1 { "has" } else { "have" },
            without_var.join(", "),
            if without_var.len() == 1 { "it waits" } else { "they wait" }
        ));
    }
    found.errors.extend(errors);
}

/// `did you mean ...?` and the inventory's groups (and `controller`, a stage's own group).
fn known_groups_help(group: &str, inventory: &Inventory) -> String {
    let known: Vec<&str> = inventory
        .group_names()
        .iter()
        .map(String::as_str)
        .chain([CONTROLLER])
        .collect();
    match closest(group, known.iter().copied()) {
        Some(near) => format!(
            "did you mean `{near}`? the inventory's groups: {}",
            known.join(", ")
        ),
        None => format!("the inventory's groups: {}", known.join(", ")),
    }
}
