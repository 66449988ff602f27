//! What `cairn resume` settles before it runs: which stage `--from-stage` names (its number in
//! the progress, its name, or a unique prefix of it), and the actions whose outcome is unknown,
//! for the operator to answer one by one on a terminal.

use std::path::Path;
use std::sync::Arc;

use crate::journal::{Assume, HostJournal};
use crate::launch_error::LaunchError;
use crate::{Assumptions, Outline};

/// An action that started on a host and whose outcome was not recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Undecided {
    /// The host.
    pub host: String,
    /// The action's number in the host's journal.
    pub seq: u64,
    /// One line: the builtin and its arguments.
    pub summary: String,
    /// Where the runbook calls it, `file:line`.
    pub site: String,
}

/// The operator's answer to an [`Undecided`] action.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// It ran: record it as done.
    Done,
    /// It did not: run it again.
    Redo,
    /// Stop the resume; nothing runs.
    Abort,
}

/// Asks the operator about one undecided action (a terminal prompt, in the binary).
#[derive(Clone)]
pub struct AskUndecided(pub Arc<dyn Fn(&Undecided) -> Decision + Send + Sync>);

impl std::fmt::Debug for AskUndecided {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("AskUndecided")
    }
}

/// The stage `given` names: its number (1 is the runbook's first stage, as the progress counts
/// them), its exact name, or a prefix only one stage's name starts with.
pub(crate) fn resolve_stage(outline: &Outline, given: &str) -> Result<String, LaunchError> {
    let names: Vec<&str> = outline.stages.iter().map(|s| s.name.as_str()).collect();
    let listed = names
        .iter()
        .enumerate()
        .map(|(i, name)| format!("{} `{name}`", i + 1))
        .collect::<Vec<_>>()
        .join(", ");
    if let Ok(number) = given.trim().parse::<usize>() {
        return match names.get(number.wrapping_sub(1)) {
            Some(name) => Ok((*name).to_owned()),
            None => Err(LaunchError::Flag {
                message: format!(
                    "--from-stage {given}: the runbook has {} stage(s)",
                    names.len()
                ),
                help: Some(format!("its stages: {listed}")),
            }),
        };
    }
    if names.contains(&given) {
        return Ok(given.to_owned());
    }
    let starting: Vec<&str> = names
        .iter()
        .copied()
        .filter(|name| name.starts_with(given))
        .collect();
    match starting.as_slice() {
        [one] => Ok((*one).to_owned()),
        [] => {
            let near = crate::inventory::closest(given, names.iter().copied());
            Err(LaunchError::Flag {
                message: format!("--from-stage {given}: the runbook has no stage `{given}`"),
                help: Some(match near {
                    Some(near) => format!("did you mean `{near}`? its stages: {listed}"),
                    None => format!("its stages: {listed}"),
                }),
            })
        }
        many => Err(LaunchError::Flag {
            message: format!(
                "--from-stage {given}: {} stages start with `{given}`: {}",
                many.len(),
                many.join(", ")
            ),
            help: Some(format!("write more of the name, or its number: {listed}")),
        }),
    }
}

/// The actions of `hosts`' journals under `dir` that started, have no outcome, need the
/// operator (`reconcile: ask`) and that `assume` does not answer, in host order. A journal
/// that cannot be read is left to the resume to report.
pub(crate) fn undecided(dir: &Path, hosts: &[String], assume: &Assumptions) -> Vec<Undecided> {
    let mut found = Vec::new();
    for host in hosts {
        if assume.for_host(host).is_some() {
            continue;
        }
        let Ok(journal) = HostJournal::load(&dir.join(format!("{host}.jsonl")), false) else {
            continue;
        };
        for action in journal.actions.values() {
            if action.outcome.is_none()
                && action.decision.is_none()
                && action.intent.reconcile == "ask"
            {
                let intent = &action.intent;
                found.push(Undecided {
                    host: host.clone(),
                    seq: intent.seq,
                    summary: crate::host_context::summarize(&intent.builtin, &intent.args),
                    site: format!("{}:{}", intent.file, intent.line),
                });
            }
        }
    }
    found
}

/// Asks about each undecided action and adds the answers to `assume`, per host; an abort
/// stops the resume before anything runs.
pub(crate) fn ask_each(
    ask: &AskUndecided,
    undecided: &[Undecided],
    assume: &mut Assumptions,
) -> Result<(), LaunchError> {
    for action in undecided {
        let answer = match (ask.0)(action) {
            Decision::Done => Assume::Done,
            Decision::Redo => Assume::Redo,
            Decision::Abort => {
                return Err(LaunchError::Flag {
                    message: format!(
                        "resume aborted at {} #{}: nothing was run",
                        action.host, action.seq
                    ),
                    help: Some(
                        "answer later with `cairn resume --assume HOST=done` or `--assume HOST=redo`"
                            .into(),
                    ),
                });
            }
        };
        assume.hosts.insert(action.host.clone(), answer);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Declaration;

    fn outline(names: &[&str]) -> Outline {
        Outline {
            params: Vec::new(),
            stages: names
                .iter()
                .map(|name| Declaration {
                    after: None,
                    group: "all".into(),
                    line: 1,
                    name: (*name).into(),
                    secret: false,
                })
                .collect(),
        }
    }

    #[test]
    fn a_stage_by_number_name_or_unique_prefix() {
        let stages = outline(&["install OFED", "install perftest", "tune"]);
        let ok = |given: &str| resolve_stage(&stages, given).ok();
        assert_eq!(ok("2").as_deref(), Some("install perftest"));
        assert_eq!(ok("tune").as_deref(), Some("tune"));
        assert_eq!(ok("install O").as_deref(), Some("install OFED"));
        let message = |given: &str| match resolve_stage(&stages, given) {
            Err(LaunchError::Flag { message, help }) => format!("{message} / {help:?}"),
            other => format!("{other:?}"),
        };
        assert!(message("install").contains("2 stages start with `install`"));
        assert!(message("4").contains("has 3 stage(s)"));
        let typo = message("tnue");
        assert!(typo.contains("did you mean `tune`?"), "{typo}");
        assert!(
            typo.contains("1 `install OFED`, 2 `install perftest`, 3 `tune`"),
            "{typo}"
        );
    }
}
