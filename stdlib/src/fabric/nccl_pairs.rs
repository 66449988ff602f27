//! `fabric::nccl_pairs`: the same nccl-tests job on every pair of nodes, in ClusterKit's rounds
//! (`schedule::circle`: n−1 rounds of n/2 pairs at once, every pair once), to find the node a
//! whole-job figure cannot name: a node in more than half of its pairs' failures is a suspect.
//! One journaled action: a resume runs the matrix again.

use std::collections::BTreeMap;

use cairn_runtime::{ActionError, BuiltinOptions, Outcome};
use rhai::{Array, Dynamic, Map, NativeCallContext};
use serde_json::{Value, json};

use super::nccl::{NCCL_OPTIONS, asked, run_job};
use super::schedule::circle;
use crate::action::{self, RhaiResult};
use crate::perftest::gid::GidTables;

/// The keys: those of `fabric::nccl_all_reduce`.
pub(crate) const NCCL_PAIRS_OPTIONS: BuiltinOptions = BuiltinOptions {
    builtin: "fabric::nccl_pairs",
    ..NCCL_OPTIONS
};

/// The builtin: checks the options, then every pair, round by round.
pub(crate) fn nccl_pairs(
    ctx: &NativeCallContext,
    nodes: Array,
    options: &Map,
) -> RhaiResult<Dynamic> {
    let (asked, shared, call) = asked(ctx, &NCCL_PAIRS_OPTIONS, nodes, options)?;
    action::act(ctx, call, |io| {
        if io.checking() {
            return Ok(Outcome::unchanged(json!({ "checked": true })));
        }
        let tables = GidTables::default();
        let mut pairs = Vec::new();
        for round in circle(&asked.launch.nodes) {
            let done: Vec<Result<Value, ActionError>> = std::thread::scope(|scope| {
                let running: Vec<_> = round
                    .iter()
                    .map(|(a, b)| {
                        let (shared, asked, tables) = (&shared, &asked, &tables);
                        let nodes = [a.clone(), b.clone()];
                        scope.spawn(move || {
                            let job = run_job(None, shared, asked, &nodes, tables);
                            (nodes, job)
                        })
                    })
                    .collect();
                running
                    .into_iter()
                    .map(|handle| match handle.join() {
                        Ok((nodes, Ok(job))) => Ok(pair_result(&nodes, &job)),
                        // A stop or a lost transport leaves the pair's outcome unknown: the
                        // action's, not a failed pair.
                        Ok((_, Err(error))) if error.outcome_unknown() => Err(error),
                        Ok((nodes, Err(error))) => Ok(json!({
                            "nodes": nodes, "ok": false, "busbw_gbytes_sec": null,
                            "failures": [error.to_string()],
                        })),
                        Err(_) => Err(ActionError::Failed("a pair's thread panicked".into())),
                    })
                    .collect()
            });
            for result in done {
                pairs.push(result?);
            }
        }
        Ok(Outcome::unchanged(matrix(&pairs)))
    })
}

/// One pair's line of the matrix.
fn pair_result(nodes: &[String; 2], job: &Value) -> Value {
    json!({
        "nodes": nodes,
        "ok": job["ok"],
        "busbw_gbytes_sec": job["verdict"]["busbw_gbytes_sec"],
        "failures": job["verdict"]["failures"],
    })
}

/// The matrix with its verdict: the bad pairs, and the suspects (a node in more than half of
/// its pairs' failures).
fn matrix(pairs: &[Value]) -> Value {
    let mut tally: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut bad = Vec::new();
    for pair in pairs {
        let failed = pair["ok"] != true;
        if failed {
            bad.push(pair["nodes"].clone());
        }
        for node in pair["nodes"].as_array().into_iter().flatten() {
            let entry = tally
                .entry(node.as_str().unwrap_or("").to_owned())
                .or_default();
            entry.1 += 1;
            entry.0 += usize::from(failed);
        }
    }
    let suspects: Vec<&String> = tally
        .iter()
        .filter(|(_, (failed, all))| failed * 2 > *all)
        .map(|(node, _)| node)
        .collect();
    json!({ "ok": bad.is_empty(), "pairs": pairs, "bad": bad, "suspects": suspects })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::matrix;

    #[test]
    fn the_node_in_most_of_its_pairs_failures_is_the_suspect() {
        let pair = |a: &str, b: &str, ok: bool| json!({ "nodes": [a, b], "ok": ok });
        let m = matrix(&[
            pair("g1", "g2", true),
            pair("g1", "g3", false),
            pair("g2", "g3", false),
            pair("g3", "g4", false),
            pair("g1", "g4", true),
            pair("g2", "g4", true),
        ]);
        assert_eq!(m["suspects"], json!(["g3"]));
        assert_eq!(m["bad"].as_array().map(Vec::len), Some(3));
        assert_eq!(m["ok"], false);
    }
}
