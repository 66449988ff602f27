//! `fabric::all_pairs`: a perftest between every pair of hosts, scheduled and judged as NVIDIA
//! ClusterKit does (see `schedule` and `verdict`), inside the run's journal.
//!
//! Each round is one action whose pairs run at once; each pair's result is journaled as a
//! progress record of its round the moment it ends, so a resume replays the finished rounds and
//! finishes an interrupted one by running only the pairs it has no result for.

use std::collections::BTreeMap;
use std::sync::{Arc, mpsc};
use std::time::Duration;

use cairn_runtime::{
    ActionCall, ActionError, Clock, HostContext, HostIo, Outcome, Reconcile, RunShared,
};
use rhai::{Array, Dynamic, Map, NativeCallContext};
use serde::Serialize;
use serde_json::{Value, json};

use super::matrix_verdict::{Excluded, MatrixVerdict};
use super::options::{ALL_PAIRS_OPTIONS, AllPairsOptions};
use super::schedule::{HostPair, circle, disjoint, retest_budget};
use super::verdict::{PairResult, Tolerance, suspects};
use crate::action::{self, RhaiResult};
use crate::perftest::gid::GidTables;

/// The server's head start before the client connects (`perftest::pair::run`).
const SERVER_START: Duration = Duration::from_secs(1);

/// One pair in the returned table.
#[derive(Debug, Clone, Serialize)]
struct PairVerdict {
    server: String,
    client: String,
    ok: bool,
    error: Option<String>,
    /// Gb/s (bandwidth tests) or microseconds (latency tests) in the matrix.
    value: Option<f64>,
    /// Outside the tolerance in the matrix.
    flagged: bool,
    /// Still outside it after its retests.
    bad: bool,
    /// The values of its retests, in order.
    retests: Vec<Option<f64>>,
}

/// The hosts a matrix is asked for: a list of names or a group's name.
pub(crate) enum Listed {
    Names(Array),
    Group(String),
}

/// What `fabric::all_pairs` returns: its journaled verdict, with the rounds and each pair.
#[derive(Debug, Clone, Serialize)]
struct AllPairsReport {
    #[serde(flatten)]
    verdict: MatrixVerdict,
    quick: bool,
    rounds: usize,
    retest_rounds: usize,
    results: Vec<PairVerdict>,
}

/// A runbook error at the call.
fn refuse(
    ctx: &NativeCallContext,
    host: &HostContext,
    message: String,
) -> Box<rhai::EvalAltResult> {
    host.fail(ActionError::Runbook(message), ctx.call_position())
}

/// `fabric::all_pairs(hosts, #{...})`.
pub(crate) fn all_pairs(
    ctx: &NativeCallContext,
    listed: Listed,
    options: &Map,
) -> RhaiResult<Dynamic> {
    let host = HostContext::current(ctx)?;
    let (opts, names, excluded) = asked(ctx, &host, listed, options)?;
    let mut rounds = circle(&names);
    if opts.quick {
        rounds.truncate(1);
    }
    let planned = plan(ctx, &host, &names, &rounds, &opts)?;
    let mut took_ms: u64 = 0;
    let mut matrix: Vec<PairResult> = Vec::new();
    let gids = Arc::new(GidTables::default()); // one read of each host's GIDs for all rounds
    for (i, pairs) in rounds.iter().enumerate() {
        let done = round(ctx, &host, ("matrix", i + 1), pairs, (&opts, &gids))?;
        took_ms += done.iter().map(|r| r.elapsed_ms).max().unwrap_or(0);
        matrix.extend(done);
    }
    let tolerance = Tolerance {
        latency: opts.latency(),
        min_fraction: opts.min_fraction,
        max_latency_factor: opts.max_latency_factor,
    };
    let reference = tolerance.reference(&matrix);
    let mut verdicts = judged(&matrix, &tolerance, reference);
    let (retest_rounds, retest_ms) = retests(
        ctx,
        &host,
        names.len(),
        (&opts, &gids),
        (&tolerance, reference),
        &mut verdicts,
    )?;
    took_ms += retest_ms;
    let pair_of = |v: &PairVerdict| (v.server.clone(), v.client.clone());
    let tested: Vec<HostPair> = verdicts.iter().map(pair_of).collect();
    let flagged: Vec<HostPair> = verdicts.iter().filter(|v| v.flagged).map(pair_of).collect();
    let bad: Vec<HostPair> = verdicts.iter().filter(|v| v.bad).map(pair_of).collect();
    let leaves = if bad.is_empty() {
        BTreeMap::new()
    } else {
        super::reads::leaves(ctx, &names, &opts)?
    };
    let named = suspects(&tested, &bad, &leaves);
    let took_s = took_ms as f64 / 1000.0;
    log(
        &host,
        format!(
            "fabric::all_pairs {}: took {took_s:.1} s (planned {planned:.1} s); {} of {} pairs flagged, \
             {} bad after {retest_rounds} retest round(s); suspect uplinks of {:?}, suspect hosts {:?}, suspect pairs {:?}",
            opts.test,
            flagged.len(),
            verdicts.len(),
            bad.len(),
            named.uplinks,
            named.hosts,
            named.pairs
        ),
    )?;
    // A host asked for and not tested is not a passed matrix.
    let passed = bad.is_empty() && !verdicts.is_empty() && excluded.is_empty();
    // The verdict as one more record of `fabric::all_pairs` (phase `verdict`), for `cairn
    // report`'s matrix, and what the script gets (a replayed record of another shape is
    // refused). Under the builtin's own name, as its rounds are: `query_typed` would add the
    // called name to it a second time (`fabric::all_pairs::all_pairs`).
    let args = json!({ "phase": "verdict", "test": opts.test, "hosts": names.len() });
    let verdict = MatrixVerdict {
        test: opts.test.clone(),
        unit: if tolerance.latency { "us" } else { "Gb/s" }.to_owned(),
        hosts: names,
        excluded,
        reference,
        limit: reference.map(|r| tolerance.limit(r)),
        min_fraction: opts.min_fraction,
        max_latency_factor: opts.max_latency_factor,
        flagged,
        bad,
        suspects: named,
        planned_s: planned,
        took_s,
        passed,
    };
    let verdict = action::query_typed_as(
        ctx,
        "fabric::all_pairs",
        args,
        "fabric::all_pairs' verdict record",
        |_| Ok(verdict),
    )?;
    let report = AllPairsReport {
        verdict,
        quick: opts.quick,
        rounds: rounds.len(),
        retest_rounds,
        results: verdicts,
    };
    rhai::serde::to_dynamic(report)
}

fn log(host: &HostContext, message: String) -> RhaiResult<()> {
    host.log(message)
        .map_err(|e| host.fail(e, rhai::Position::NONE))
}

fn value(tolerance: &Tolerance, r: &PairResult) -> Option<f64> {
    if !r.ok {
        None
    } else if tolerance.latency {
        r.typical_us
    } else {
        r.gbps
    }
}

/// The bad pairs in the order retests take them: lone pairs first (the fewest bad pairs among
/// their two hosts), so a retest round looks at as many different faults as it can.
fn retest_order(verdicts: &[PairVerdict]) -> Vec<HostPair> {
    let mut count: BTreeMap<&str, usize> = BTreeMap::new();
    for v in verdicts.iter().filter(|v| v.bad) {
        *count.entry(&v.server).or_default() += 1;
        *count.entry(&v.client).or_default() += 1;
    }
    let weight = |v: &PairVerdict| {
        count.get(v.server.as_str()).copied().unwrap_or(0)
            + count.get(v.client.as_str()).copied().unwrap_or(0)
    };
    let mut bad: Vec<&PairVerdict> = verdicts.iter().filter(|v| v.bad).collect();
    bad.sort_by_key(|v| (weight(v), v.retests.len()));
    bad.into_iter()
        .map(|v| (v.server.clone(), v.client.clone()))
        .collect()
}

/// The hosts asked for as names, and those of them that failed earlier in the run set aside
/// with what failed them: the matrix keeps every host, a failed one as not tested.
fn select(host: &HostContext, listed: Listed) -> Result<(Vec<String>, Vec<Excluded>), String> {
    let asked: Vec<String> = match listed {
        Listed::Names(hosts) => hosts
            .into_iter()
            .map(|h| {
                h.clone()
                    .into_immutable_string()
                    .map(|s| s.to_string())
                    .map_err(|_| {
                        format!(
                            "fabric::all_pairs: hosts must be names (strings), not `{h}` ({})",
                            h.type_name()
                        )
                    })
            })
            .collect::<Result<_, _>>()?,
        Listed::Group(group) => {
            let members = host.shared.group_members(&group);
            if members.is_empty() {
                return Err(format!(
                    "fabric::all_pairs: no host of this run is in group `{group}`"
                ));
            }
            members
        }
    };
    let failed = host.shared.failed_hosts();
    let (excluded, names): (Vec<String>, Vec<String>) =
        asked.into_iter().partition(|n| failed.contains_key(n));
    let excluded = excluded
        .into_iter()
        .map(|name| Excluded {
            reason: failed
                .get(&name)
                .map_or_else(|| "failed".to_owned(), |r| format!("failed: {r}")),
            host: name,
        })
        .collect();
    Ok((names, excluded))
}

/// The hosts, checked: names of this run's hosts, at least two, each once, not the host that
/// runs the matrix (it has no second transport to test itself with).
fn host_names(host: &HostContext, hosts: Vec<String>) -> Result<Vec<String>, String> {
    let mut names: Vec<String> = Vec::new();
    for name in hosts {
        if names.contains(&name) {
            return Err(format!("fabric::all_pairs: `{name}` is listed twice"));
        }
        if name == host.info.name {
            return Err(format!(
                "fabric::all_pairs: `{name}` runs this stage; run the matrix from a stage on a host outside it (`on controller`)"
            ));
        }
        if !host.shared.reaches(&name) {
            let known: Vec<&str> = host.shared.reachable().collect();
            let hint = cairn_runtime::inventory::closest(&name, known)
                .map(|n| format!("; did you mean `{n}`?"))
                .unwrap_or_default();
            return Err(format!(
                "fabric::all_pairs: `{name}` is not a host of this run{hint}"
            ));
        }
        names.push(name);
    }
    if names.len() < 2 {
        return Err(format!(
            "fabric::all_pairs: needs at least two hosts, got {}",
            names.len()
        ));
    }
    Ok(names)
}

/// The call's options and hosts, checked: the hosts to test, in order, and those asked for
/// that are not tested (each logged with why).
fn asked(
    ctx: &NativeCallContext,
    host: &HostContext,
    listed: Listed,
    options: &Map,
) -> RhaiResult<(AllPairsOptions, Vec<String>, Vec<Excluded>)> {
    if let Some((stage, var)) = host.pipelined_stage() {
        return Err(refuse(
            ctx,
            host,
            format!(
                "`fabric::all_pairs` in stage `{stage}`, which is pipelined (`after {var}`): its peers may still be in an earlier stage; drop `after {var}` to keep the stage's barrier"
            ),
        ));
    }
    crate::action::check_options(ctx, &ALL_PAIRS_OPTIONS, options)?;
    let opts = AllPairsOptions::from_json(&action::options_json(options)?)
        .map_err(|m| refuse(ctx, host, format!("fabric::all_pairs: {m}")))?;
    let (names, excluded) = select(host, listed).map_err(|m| refuse(ctx, host, m))?;
    for e in &excluded {
        log(
            host,
            format!(
                "fabric::all_pairs {}: {} is not tested: {}",
                opts.test, e.host, e.reason
            ),
        )?;
    }
    let names = host_names(host, names).map_err(|m| refuse(ctx, host, m))?;
    Ok((opts, names, excluded))
}

/// The planned time of the rounds, from the first host's port rate, logged with the plan.
fn plan(
    ctx: &NativeCallContext,
    host: &HostContext,
    names: &[String],
    rounds: &[Vec<HostPair>],
    opts: &AllPairsOptions,
) -> RhaiResult<f64> {
    let rate = super::reads::line_rate(ctx, names, opts)?;
    let per_test = SERVER_START + transfer_time(opts, rate.unwrap_or(0.0));
    let planned = per_test.as_secs_f64() * rounds.len() as f64;
    let widest = rounds.first().map_or(0, Vec::len);
    log(
        host,
        format!(
            "fabric::all_pairs {}: {} hosts in {} round(s) of {widest} pairs at once; planned {planned:.1} s \
             ({:.3} s a round{}), then retests of flagged pairs",
            opts.test,
            names.len(),
            rounds.len(),
            per_test.as_secs_f64(),
            match rate {
                Some(r) => format!(", {r} Gb/s ports"),
                None => ", port rate unknown: the transfer time is not counted".into(),
            }
        ),
    )?;
    Ok(planned)
}

/// Each pair of the matrix against the tolerance: flagged (and so bad until a retest passes)
/// when outside it.
fn judged(
    matrix: &[PairResult],
    tolerance: &Tolerance,
    reference: Option<f64>,
) -> Vec<PairVerdict> {
    matrix
        .iter()
        .map(|r| {
            let flagged = tolerance.flagged(reference, r);
            PairVerdict {
                server: r.server.clone(),
                client: r.client.clone(),
                ok: r.ok,
                error: r.error.clone(),
                value: value(tolerance, r),
                flagged,
                bad: flagged,
                retests: Vec::new(),
            }
        })
        .collect()
}

/// Retest rounds of the bad pairs, each of a halving budget, until none is left to retest: a
/// pair within the tolerance on a retest was a passing disturbance. The rounds run and the
/// time they took.
fn retests(
    ctx: &NativeCallContext,
    host: &Arc<HostContext>,
    hosts: usize,
    (opts, gids): (&AllPairsOptions, &Arc<GidTables>),
    (tolerance, reference): (&Tolerance, Option<f64>),
    verdicts: &mut [PairVerdict],
) -> RhaiResult<(usize, u64)> {
    let (mut rounds, mut took_ms) = (0, 0);
    let mut k = 1;
    loop {
        let budget = if opts.retest {
            retest_budget(hosts, k)
        } else {
            0
        };
        let candidates = retest_order(verdicts);
        let pairs = disjoint(&candidates, budget);
        if pairs.is_empty() {
            break;
        }
        let index = usize::try_from(k).unwrap_or(0);
        let done = round(ctx, host, ("retest", index), &pairs, (opts, gids))?;
        took_ms += done.iter().map(|r| r.elapsed_ms).max().unwrap_or(0);
        for r in &done {
            if let Some(v) = verdicts
                .iter_mut()
                .find(|v| v.server == r.server && v.client == r.client)
            {
                v.retests.push(value(tolerance, r));
                v.bad = v.bad && tolerance.flagged(reference, r);
            }
        }
        rounds += 1;
        k += 1;
    }
    Ok((rounds, took_ms))
}

/// How long one test moves data for at `rate` Gb/s: perftest's `-n` iterations (1000 by
/// default) of each size (`-a`: 2 B to 8 MiB; else `-s`, by default 64 KiB for bandwidth and
/// 2 B for latency), a latency iteration being a round trip of about 1.1 µs each way on
/// InfiniBand (VMware's vSphere 7 InfiniBand/RoCE guide, figures 17 to 20).
pub(crate) fn transfer_time(opts: &AllPairsOptions, rate: f64) -> Duration {
    if rate <= 0.0 {
        return Duration::ZERO;
    }
    let latency = opts.latency();
    let p = &opts.perftest;
    let sizes: Vec<u64> = if p.all_sizes {
        (1..=23).map(|e| 1u64 << e).collect()
    } else {
        vec![p.size.map_or(if latency { 2 } else { 65536 }, |s| {
            u64::try_from(s).unwrap_or(0)
        })]
    };
    let iterations = p.iterations.map_or(1000.0, |n| n as f64);
    let seconds: f64 = sizes
        .iter()
        .map(|&size| {
            let wire = size as f64 * 8.0 / (rate * 1e9);
            if latency {
                iterations * 2.0 * (1.1e-6 + wire)
            } else {
                iterations * wire
            }
        })
        .sum();
    Duration::from_secs_f64(seconds)
}

/// One round as one action; its pairs at once.
fn round(
    ctx: &NativeCallContext,
    host: &Arc<HostContext>,
    (phase, index): (&str, usize),
    pairs: &[HostPair],
    (opts, gids): (&AllPairsOptions, &Arc<GidTables>),
) -> RhaiResult<Vec<PairResult>> {
    let shared = host.shared.clone();
    let run = host.run_id();
    let (probe_shared, probe_run, probe_opts, probe_pairs, probe_gids) = (
        shared.clone(),
        run.clone(),
        opts.clone(),
        pairs.to_vec(),
        gids.clone(),
    );
    let call = ActionCall {
        args: json!({
            "phase": phase, "round": index, "test": opts.test, "pairs": pairs,
            "options": opts.perftest,
        }),
        assumed: Value::Null,
        builtin: "fabric::all_pairs".into(),
        // An interrupted round keeps the pairs it journaled and runs the others.
        reconcile: Reconcile::Probe(Box::new(move |io, progress| {
            let done = progress
                .iter()
                .filter_map(|p| p.get("pair"))
                .filter_map(|p| serde_json::from_value::<PairResult>(p.clone()).ok())
                .collect();
            execute(
                io,
                (&probe_shared, &probe_run),
                (&probe_opts, &probe_gids),
                &probe_pairs,
                done,
            )
            .map(Some)
        })),
    };
    let site = host.site(ctx);
    let value = host
        .perform(call, &site, |io| {
            if io.checking() {
                return Ok(Outcome::unchanged(json!([])));
            }
            execute(io, (&shared, &run), (opts, gids), pairs, Vec::new())
        })
        .map_err(|e| host.fail(e, ctx.call_position()))?;
    serde_json::from_value(value).map_err(|e| {
        host.fail(
            host.result_shape_error("fabric::all_pairs", "a round of pair results", &e),
            ctx.call_position(),
        )
    })
}

/// Runs the round's pairs that have no result yet, each on its own thread, journaling each
/// result as it comes.
fn execute(
    io: &mut HostIo<'_>,
    (shared, run): (&Arc<RunShared>, &str),
    (opts, gids): (&AllPairsOptions, &GidTables),
    pairs: &[HostPair],
    done: Vec<PairResult>,
) -> Result<Outcome, ActionError> {
    let mut results: Vec<PairResult> = done
        .into_iter()
        .filter(|r| pairs.contains(&r.pair()))
        .collect();
    let missing: Vec<&HostPair> = pairs
        .iter()
        .filter(|p| !results.iter().any(|r| r.pair() == **p))
        .collect();
    let mut unknown: Option<ActionError> = None;
    // Every pair's server listens before any client starts, and every client ends before
    // any server stops: the round's tests overlap whole, deterministically.
    let barrier = std::sync::Barrier::new(missing.len());
    std::thread::scope(|scope| {
        let (tx, rx) = mpsc::channel();
        for pair in &missing {
            let tx = tx.clone();
            let barrier = &barrier;
            scope.spawn(move || {
                let _ = tx.send(test_pair((shared, run), (opts, gids), pair, barrier));
            });
        }
        drop(tx);
        // The results that came in while the last ones were being synced are journaled
        // together, with one fsync: each is durable before the round goes on, and the round
        // costs a few syncs instead of one a pair (the journal's cost, docs/performance.md).
        while let Ok(first) = rx.recv() {
            let mut records = Vec::new();
            for result in std::iter::once(first).chain(rx.try_iter()) {
                match result {
                    Ok(result) => {
                        records.push(json!({ "pair": result }));
                        results.push(result);
                    }
                    Err(e) => {
                        unknown.get_or_insert(e);
                    }
                }
            }
            if let Err(e) = io.record_progress_all(records) {
                unknown.get_or_insert(e);
            }
        }
    });
    if let Some(error) = unknown {
        return Err(error);
    }
    results.sort_by_key(|r| pairs.iter().position(|p| *p == r.pair()));
    let value = serde_json::to_value(&results)
        .map_err(|e| ActionError::Failed(format!("fabric::all_pairs: {e}")))?;
    Ok(Outcome::unchanged(value))
}

/// One pair's test, timed on its hosts' clocks. A failed test is a result; only a stop or a
/// lost transport (whose outcome is unknown) is an error.
fn test_pair(
    (shared, run): (&Arc<RunShared>, &str),
    (opts, gids): (&AllPairsOptions, &GidTables),
    (server, client): &HostPair,
    round: &std::sync::Barrier,
) -> Result<PairResult, ActionError> {
    let clock = |name: &str| -> Result<Clock, ActionError> { shared.clock_of(name) };
    let clocks = clock(server).and_then(|s| Ok((s, clock(client)?)));
    let (server_clock, client_clock) = match clocks {
        Ok(clocks) => clocks,
        Err(e) => {
            // The round's other pairs wait for this one at both meeting points.
            round.wait();
            round.wait();
            return Err(e);
        }
    };
    let (s0, c0) = (server_clock.now_millis(), client_clock.now_millis());
    let measured = crate::perftest::run::measure(
        None,
        shared,
        run,
        opts.program,
        server,
        client,
        &opts.perftest,
        Some(round),
        gids,
    );
    let (ds, dc) = (
        server_clock.now_millis().saturating_sub(s0),
        client_clock.now_millis().saturating_sub(c0),
    );
    // A virtual clock moves only while its own host sleeps: the pair's time is what passed on
    // each end; wall clocks both saw the whole test.
    let elapsed_ms = if server_clock.is_virtual() && client_clock.is_virtual() {
        ds + dc
    } else {
        ds.max(dc)
    };
    let mut result = PairResult {
        server: server.clone(),
        client: client.clone(),
        ok: false,
        error: None,
        gbps: None,
        typical_us: None,
        elapsed_ms,
    };
    match measured {
        Ok(v) => {
            result.ok = true;
            result.gbps = v.summary.avg_gbps();
            result.typical_us = v.summary.typical_us();
        }
        Err(e) if e.outcome_unknown() => return Err(e),
        Err(e) => result.error = Some(e.to_string()),
    }
    Ok(result)
}
