//! What the `perftest::` builtins do: run a pair (or a matrix of pairs), parse both sides,
//! and summarize.

use std::sync::Arc;
use std::time::Duration;

use cairn_runtime::{ActionCall, ActionError, HostContext, HostIo, Outcome, Reconcile, RunShared};
use rhai::{Array, Map, NativeCallContext};
use serde_json::{Value, json};

use super::command::{MATRIX_OPTIONS, PAIR_OPTIONS, TOOLS, TestOptions};
use super::gid::{GidTables, SideGid};
use super::measurement::{Checked, MatrixEntry, Measurement, PairOutcome, Summary};
use super::{PairedRun, PerftestRun};
use crate::action::{self, RhaiResult};
use crate::pair::{self, Pair};

/// The program of a test (`send_bw` → `ib_send_bw`).
fn program(test: &str) -> Option<&'static str> {
    TOOLS.iter().find(|(t, _)| *t == test).map(|(_, p)| *p)
}

/// One perftest between `server` and `client`, as an action of the current instance.
pub(crate) fn pair(
    ctx: &NativeCallContext,
    test: &str,
    server: &str,
    client: &str,
    options: &Map,
) -> RhaiResult<Map> {
    let host = HostContext::current(ctx)?;
    let declared = PAIR_OPTIONS
        .iter()
        .find(|o| o.builtin.strip_prefix("perftest::") == Some(test))
        .ok_or_else(|| action::bad_argument(ctx, format!("no perftest `{test}`")))?;
    crate::action::check_options(ctx, declared, options)?;
    let options = action::options_json(options)?;
    let opts = TestOptions::from_json(&options).map_err(|m| action::bad_argument(ctx, m))?;
    let program =
        program(test).ok_or_else(|| action::bad_argument(ctx, format!("no perftest `{test}`")))?;
    let shared = host.shared.clone();
    let run = host.run_id();
    let call = pair::action_call(declared.builtin.to_owned(), server, client, &opts, &shared);
    let value = action::act(ctx, call, |io| {
        let outcome = if io.checking() {
            // A measurement changes nothing, but loads the fabric: check mode does not run it.
            PairOutcome::Checked(Checked { checked: true })
        } else {
            let measured = measure(
                Some(io),
                &shared,
                &run,
                program,
                server,
                client,
                &opts,
                None,
                &GidTables::default(),
            )?;
            PairOutcome::Measured(Box::new(measured))
        };
        Ok(Outcome::unchanged(action::json(&outcome)))
    })?;
    let outcome: PairOutcome = action::result_typed(ctx, &value, "a perftest measurement")?;
    action::as_map(&outcome)
}

/// Runs one test and summarizes it; in a round (`pair::run_in_round`), the pair meets the
/// round's others at `round`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn measure(
    mut io: Option<&mut HostIo<'_>>,
    shared: &Arc<RunShared>,
    run: &str,
    program: &str,
    server: &str,
    client: &str,
    opts: &TestOptions,
    round: Option<&std::sync::Barrier>,
    gids: &GidTables,
) -> Result<Measurement, ActionError> {
    let sides = gids.sides(io.as_deref_mut(), shared, (server, client), opts);
    let [server_gid, client_gid] = match sides {
        Ok(sides) => sides,
        Err(e) => {
            // The round's other pairs wait for this one at both meeting points.
            if let Some(round) = round {
                round.wait();
                round.wait();
            }
            return Err(e);
        }
    };
    let side = |gid: SideGid| TestOptions {
        gid_index: gid.index,
        ..opts.clone()
    };
    let pair = Pair {
        server,
        client,
        server_argv: side(server_gid).server_argv(program),
        client_argv: side(client_gid).client_argv(program, server),
        log: format!("/tmp/cairn-{program}-{}.log", opts.port),
        pidfile: pair::pidfile(run, opts.port),
        timeout: Duration::from_secs(if opts.all_sizes { 900 } else { 300 }),
    };
    let output = pair::run_in_round(io, shared, &pair, round)?;
    let text = format!("{}{}", output.client.stdout, output.client.stderr);
    // perftest refuses a port that is not ACTIVE before connecting: on the client, or on the
    // server (then the client cannot connect).
    for (host, said) in [(client, &text), (server, &output.server.stdout)] {
        if let Some((port, state)) = super::port_state::detect(said) {
            return Err(super::port_state::not_active_error(
                program,
                host,
                &opts.device,
                port,
                &state,
            ));
        }
    }
    let command = format!("{} (on {client})", pair.client_argv.join(" "));
    let parsed = succeeded(program, (server, client), &command, &text, &output)?;
    let link_type = parsed.header.link_type.as_deref();
    let sides = [(server, server_gid), (client, client_gid)];
    if let Some(unchosen) = super::gid::unchecked_roce(link_type, opts.gid_index, sides) {
        return Err(unchosen);
    }
    let server_side =
        crate::grammar::read_output(&output.server.stdout, crate::perftest::parse).ok();
    let summary = summary(&parsed);
    Ok(Measurement {
        paired: PairedRun {
            run: parsed,
            server: server.to_owned(),
            client: client.to_owned(),
            program: program.to_owned(),
            command: pair.client_argv.join(" "),
        },
        summary,
        table: table(&output.client.stdout),
        server_side,
    })
}

/// The client's output `text` parsed, when the test succeeded; else what failed: the server
/// (its own error explains a client that could not reach it), the client's run, or its exit.
fn succeeded(
    program: &str,
    (server, client): (&str, &str),
    command: &str,
    text: &str,
    output: &pair::PairOutput,
) -> Result<PerftestRun, ActionError> {
    // The server's own error explains a client that could not reach it (which only says so),
    // unless both failed the same way (a QP that neither side could move to RTR).
    // A server the shell could not start (`sh: ib_send_bw: command not found`) printed the
    // shell's words, not perftest's: the client's own failure says what happened.
    let served = crate::grammar::read_output(&output.server.stdout, crate::perftest::parse)
        .ok()
        .and_then(|served| served.error)
        .filter(|error| {
            !error
                .lines
                .iter()
                .any(|l| l.contains(": command not found"))
        });
    let failed = |stderr: String| ActionError::CommandFailed {
        code: output.client.code,
        command: command.to_owned(),
        stderr,
    };
    let parsed = match crate::perftest::parse(text) {
        Ok(parsed) => parsed,
        Err(_) if output.client.code != 0 => return Err(failed(output.client.stderr.clone())),
        Err(error) => return Err(action::parse_failure(program, &error, text)),
    };
    if let Some(error) = &served
        && parsed
            .error
            .as_ref()
            .is_none_or(|own| own.kind != error.kind)
    {
        return Err(ActionError::Hinted {
            message: format!(
                "{program} server on {server} failed ({}){}: {}",
                error.kind,
                error
                    .line
                    .map_or_else(String::new, |line| format!(", output line {line}")),
                error.lines.join(" / ")
            ),
            help: server_help(&error.kind).into(),
        });
    }
    if let Some(error) = &parsed.error {
        return Err(ActionError::Failed(format!(
            "{program} from {client} to {server} failed ({}): {}",
            error.kind, error.message
        )));
    }
    if output.client.code != 0 || parsed.rows.is_empty() {
        return Err(failed(if output.client.stderr.is_empty() {
            "no results".into()
        } else {
            output.client.stderr.clone()
        }));
    }
    Ok(parsed)
}

/// A latency test's figures at its smallest size, a bandwidth test's at its largest.
fn summary(parsed: &PerftestRun) -> Summary {
    let rows = &parsed.rows;
    if parsed.kind.as_deref() == Some("lat") {
        let first = rows.iter().min_by_key(|r| r.bytes);
        Summary::Latency {
            typical_us: first.and_then(|r| r.t_typical_usec),
            avg_us: first.and_then(|r| r.t_avg_usec),
            p99_us: first.and_then(|r| r.p99_usec.or(r.t_max_usec)),
        }
    } else {
        let last = rows.iter().max_by_key(|r| r.bytes);
        let gbps = |g: Option<f64>, m: Option<f64>| g.or(m.map(|m| m * 8.0 / 1000.0));
        Summary::Bandwidth {
            peak_gbps: last.and_then(|r| gbps(r.bw_peak_gbps, r.bw_peak_mbps)),
            avg_gbps: last.and_then(|r| gbps(r.bw_average_gbps, r.bw_average_mbps)),
            msg_rate_mpps: last.and_then(|r| r.msg_rate_mpps),
        }
    }
}

/// The results table as printed: the titles line and the rows.
pub(crate) fn table(text: &str) -> String {
    let mut lines = text
        .lines()
        .skip_while(|l| !l.trim_start().starts_with("#bytes"));
    let mut out: Vec<&str> = Vec::new();
    if let Some(titles) = lines.next() {
        out.push(titles.trim_end());
    }
    out.extend(
        lines
            .take_while(|l| {
                l.trim_start()
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_ascii_digit())
            })
            .map(str::trim_end),
    );
    out.join("\n")
}

/// The pairs a matrix runs, in order.
fn pairs(hosts: &[String], given: Option<&Value>) -> Result<Vec<(String, String)>, String> {
    if let Some(given) = given {
        let list = given
            .as_array()
            .ok_or("`pairs` must be an array of [server, client]")?;
        return list
            .iter()
            .map(|p| {
                let a = p.as_array().filter(|a| a.len() == 2);
                match a.and_then(|a| Some((a.first()?.as_str()?, a.get(1)?.as_str()?))) {
                    Some((s, c)) => Ok((s.to_owned(), c.to_owned())),
                    None => Err(format!("`pairs` entry {p} is not [server, client]")),
                }
            })
            .collect();
    }
    let mut list = Vec::new();
    for (i, server) in hosts.iter().enumerate() {
        for client in hosts.iter().skip(i + 1) {
            list.push((server.clone(), client.clone()));
        }
    }
    Ok(list)
}

/// Groups pairs in rounds of at most `concurrency` tests with no host in two of them.
pub(crate) fn rounds(pairs: &[(String, String)], concurrency: usize) -> Vec<Vec<(String, String)>> {
    let mut pending: Vec<(String, String)> = pairs.to_vec();
    let mut rounds = Vec::new();
    while !pending.is_empty() {
        let mut round: Vec<(String, String)> = Vec::new();
        let mut rest = Vec::new();
        for p in pending {
            let busy = round
                .iter()
                .any(|(s, c)| [s, c].contains(&&p.0) || [s, c].contains(&&p.1));
            if busy || round.len() >= concurrency.max(1) {
                rest.push(p);
            } else {
                round.push(p);
            }
        }
        rounds.push(round);
        pending = rest;
    }
    rounds
}

/// `perftest::matrix(hosts, opts)`.
pub(crate) fn matrix(ctx: &NativeCallContext, hosts: Array, options: &Map) -> RhaiResult<Array> {
    let host = HostContext::current(ctx)?;
    crate::action::check_options(ctx, &MATRIX_OPTIONS, options)?;
    let hosts: Vec<String> = hosts.into_iter().map(|h| h.to_string()).collect();
    let mut options = action::options_json(options)?;
    let (test, given, concurrency) = match options.as_object_mut() {
        Some(map) => (
            map.remove("test")
                .and_then(|t| t.as_str().map(str::to_owned)),
            map.remove("pairs"),
            map.remove("concurrency").and_then(|c| c.as_u64()),
        ),
        None => (None, None, None),
    };
    let test = test.unwrap_or_else(|| "send_bw".into());
    let program =
        program(&test).ok_or_else(|| action::bad_argument(ctx, format!("no perftest `{test}`")))?;
    let opts = TestOptions::from_json(&options).map_err(|m| action::bad_argument(ctx, m))?;
    let pairs = pairs(&hosts, given.as_ref()).map_err(|m| action::bad_argument(ctx, m))?;
    let concurrency = usize::try_from(concurrency.unwrap_or(1).clamp(1, 256)).unwrap_or(1);
    let shared = host.shared.clone();
    let run = host.run_id();
    let call = ActionCall {
        args: json!({ "test": test, "pairs": pairs, "concurrency": concurrency, "options": opts }),
        assumed: Value::Null,
        builtin: action::builtin_name(ctx, super::NAMESPACE),
        reconcile: Reconcile::Redo,
    };
    let value = action::act(ctx, call, |io| {
        if io.checking() {
            return Ok(Outcome::unchanged(json!([])));
        }
        let own = io.host().to_owned();
        let gids = GidTables::default();
        let mut results = Vec::new();
        if concurrency == 1 || pairs.iter().any(|(s, c)| *s == own || *c == own) {
            for (s, c) in &pairs {
                let measured = measure(Some(io), &shared, &run, program, s, c, &opts, None, &gids);
                results.push(MatrixEntry::of(s, c, measured));
            }
        } else {
            for round in rounds(&pairs, concurrency) {
                let done: Vec<MatrixEntry> = std::thread::scope(|scope| {
                    let handles: Vec<_> = round
                        .iter()
                        .map(|(s, c)| {
                            let (shared, opts, run, gids) = (&shared, &opts, &run, &gids);
                            let handle = scope.spawn(move || {
                                measure(None, shared, run, program, s, c, opts, None, gids)
                            });
                            (s, c, handle)
                        })
                        .collect();
                    handles
                        .into_iter()
                        .map(|(s, c, h)| {
                            let measured = h.join().unwrap_or_else(|_| {
                                Err(ActionError::Failed("the test thread panicked".into()))
                            });
                            MatrixEntry::of(s, c, measured)
                        })
                        .collect()
                });
                results.extend(done);
            }
        }
        Ok(Outcome::unchanged(action::json(&results)))
    })?;
    let entries: Vec<MatrixEntry> = action::result_typed(ctx, &value, "perftest::matrix's pairs")?;
    action::as_array(&entries)
}

/// The next step for a server's error, in perftest's words where it gives them (its README on
/// GPUDirect: `Couldn't allocate MR` with `--use_cuda`).
fn server_help(kind: &str) -> &'static str {
    match kind {
        "memory" | "accelerator" => {
            "the server could not register its buffer: with --use_cuda, check GPUDirect RDMA (nvidia-peermem) or set MLX5_SCATTER_TO_CQE=0 as perftest's README advises; else raise the memlock limit (ulimit -l)"
        }
        "rdma_cm" => {
            "the server's rdma_cm set-up failed: check the address it binds to (-R) and the port's IP"
        }
        _ => "see the server's output for the cause",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounds_never_share_a_host() {
        let hosts: Vec<String> = ["a", "b", "c", "d"].map(str::to_owned).to_vec();
        let all = pairs(&hosts, None).unwrap_or_default();
        assert_eq!(all.len(), 6);
        let rounds = rounds(&all, 2);
        assert_eq!(rounds.iter().map(Vec::len).sum::<usize>(), 6);
        for round in &rounds {
            assert!(round.len() <= 2);
            let mut seen: Vec<&String> = round.iter().flat_map(|(s, c)| [s, c]).collect();
            seen.sort();
            seen.dedup();
            assert_eq!(seen.len(), round.len() * 2);
        }
    }

    #[test]
    fn the_table_is_cut_from_the_output() {
        let text = "---\n #bytes  #iterations  BW\n 2  1000  0.11\n 4  1000  0.22\n---\n";
        assert_eq!(
            table(text),
            " #bytes  #iterations  BW\n 2  1000  0.11\n 4  1000  0.22"
        );
    }
}
