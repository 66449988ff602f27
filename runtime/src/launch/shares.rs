//! `cairn run --controllers N` and the resume of one share (docs/fleet.md, `fleet.rs`): the
//! checks before a run is cut into shares, the cut, and what a share's resume needs to span
//! the others.

use super::LaunchError;
use crate::inventory::Inventory;
use crate::{FleetPlan, FleetShare, HostInfo, Outline, RunMeta, RunOptions};

/// Refuses a `--controllers N` the run cannot be cut into, before anything is created.
pub(super) fn check(
    controllers: u32,
    options: &RunOptions,
    outline: &Outline,
    hosts: usize,
) -> Result<(), LaunchError> {
    if controllers <= 1 {
        return Ok(());
    }
    let refuse = |message: String, help: &str| {
        Err(LaunchError::Flag {
            message: format!("--controllers {controllers}: {message}; nothing was run"),
            help: Some(help.to_owned()),
        })
    };
    if options.check {
        return refuse(
            "a check runs on this controller alone".into(),
            "drop --controllers for `cairn run --check`",
        );
    }
    if options.shared_store.is_none() {
        return refuse(
            "a run shared between controllers lives in the shared store".into(),
            "add --store postgres://... (or set CAIRN_STORE); each other controller then runs `cairn join --store URL`",
        );
    }
    if outline.has_controller_stages() {
        return refuse(
            "the runbook has `on controller` stages, which one controller runs for the whole run"
                .into(),
            "run it on one controller (no --controllers), or move its controller stages into a runbook of their own",
        );
    }
    if hosts < controllers as usize {
        return refuse(
            format!("the run has {hosts} host(s), fewer than the controllers to share them"),
            "give at most one controller per host",
        );
    }
    Ok(())
}

/// Cuts a new run `run_id` of `hosts` into `controllers` shares: this controller's hosts (the
/// first share's) and the plan its executor is given. `None` for a run of one controller.
pub(super) fn cut(
    run_id: &str,
    hosts: &[String],
    controllers: u32,
    inventory: &Inventory,
    options: &RunOptions,
) -> Result<Option<(Vec<String>, FleetPlan)>, LaunchError> {
    if controllers <= 1 {
        return Ok(None);
    }
    let mut shares = FleetShare::split(hosts, controllers).into_iter();
    let first = shares.next().map(|(_, hosts)| hosts).unwrap_or_default();
    let others = shares
        .map(|(k, hosts)| (FleetShare::run_id_of(run_id, k), hosts))
        .collect();
    let share = FleetShare {
        run: run_id.to_owned(),
        share: 1,
        shares: controllers,
        hosts: hosts.to_vec(),
    };
    let mut plan = plan(share, inventory, options)?;
    plan.others = others;
    Ok(Some((first, plan)))
}

/// A share's resume (by hand, by a standby, or its first start by `cairn join`): its place
/// among the others, from its `run.json`. `None` for a run of one controller.
pub(super) fn resumed(
    meta: &RunMeta,
    inventory: &Inventory,
    options: &RunOptions,
) -> Result<Option<FleetPlan>, LaunchError> {
    match &meta.fleet {
        None => Ok(None),
        Some(share) if options.shared_store.is_none() => Err(LaunchError::Flag {
            message: format!(
                "run {} is share {} of {} of run {}, shared between controllers through the shared store; nothing was run",
                meta.run_id, share.share, share.shares, share.run
            ),
            help: Some(format!(
                "resume it with --store URL (or CAIRN_STORE): `cairn resume --store URL {}`",
                meta.run_id
            )),
        }),
        Some(share) => plan(share.clone(), inventory, options).map(Some),
    }
}

fn plan(
    share: FleetShare,
    inventory: &Inventory,
    options: &RunOptions,
) -> Result<FleetPlan, LaunchError> {
    let sync = options
        .shared_store
        .as_ref()
        .and_then(|store| store.fleet(&share))
        .ok_or_else(|| LaunchError::Flag {
            message: format!(
                "run {} is shared between controllers, and this store cannot share a run; nothing was run",
                share.run
            ),
            help: None,
        })?;
    let names: std::collections::BTreeSet<&String> = share.hosts.iter().collect();
    let hosts = inventory
        .hosts()
        .iter()
        .filter(|spec| names.contains(&spec.name))
        .map(|spec| HostInfo {
            groups: spec.groups.clone(),
            name: spec.name.clone(),
            vars: spec.vars.clone(),
        })
        .collect();
    Ok(FleetPlan {
        share,
        hosts,
        sync,
        others: Vec::new(),
    })
}
