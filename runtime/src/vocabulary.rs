//! The runbook vocabulary: `run`, `reboot`, `unavailable`/`available`, `expect`, `log`, `host`,
//! `hosts`, `publish`, `secret`.
//!
//! `stage` and `param` are syntax, in `syntax.rs`.

use std::time::Duration;

use rhai::{Array, Dynamic, Engine, EvalAltResult, Map, NativeCallContext};
use serde_json::{Value, json};

use crate::{
    ActionCall, ActionError, BuiltinOptions, ExecRequest, HostContext, HostInfo, OptionKey,
    OptionType, Outcome, Reconcile, reboot,
};

type RhaiResult<T> = Result<T, Box<EvalAltResult>>;

/// `run(argv, #{...})`'s options.
pub(crate) const RUN_OPTIONS: BuiltinOptions = BuiltinOptions {
    builtin: "run",
    arg: 1,
    keys: &[
        OptionKey {
            name: "allow_fail",
            kind: OptionType::Bool,
        },
        OptionKey {
            name: "changed",
            kind: OptionType::Bool,
        },
        OptionKey {
            name: "idempotent",
            kind: OptionType::Bool,
        },
        OptionKey {
            name: "read_only",
            kind: OptionType::Bool,
        },
        OptionKey {
            name: "reboot_required",
            kind: OptionType::Bool,
        },
        OptionKey {
            name: "stdin",
            kind: OptionType::Text,
        },
        OptionKey {
            name: "timeout",
            kind: OptionType::Int,
        },
    ],
};

/// A secret value: `param password = secret("")` keeps it out of journals and the screen.
#[derive(Debug, Clone)]
pub struct Secret(pub Dynamic);

/// `:help`'s text (docs/language.md's row says the same; a test keeps them equal).
const SECRET_HELP: &str = "Marks a param default as secret.";

/// `:help`'s text (docs/language.md's row says the same; a test keeps them equal).
const TRIMMED_HELP: &str =
    "The text without leading and trailing whitespace (see [String methods](#string-methods)).";

/// `:help`'s text (docs/language.md's row says the same; a test keeps them equal).
const RUN_HELP: &str = "Runs a command on the current host. `argv` is an array (`run(\"ip link\")` is an error: \
    write `run([\"ip\", \"link\"])`); each element reaches the host as one literal argument (no \
    shell). Returns `#{code, stdout, stderr}`. A non-zero exit fails the host unless \
    `allow_fail: true`. Options: `allow_fail`, `changed` (`false`: the command ran but reports \
    ok, not a change, as Ansible's `changed_when: false`), `idempotent` (safe to run again if a \
    crash hid its outcome; it still counts as a change), `read_only` (a query that changes \
    nothing: reported ok, run again after a crash, and run for real in check mode so the runbook \
    can decide from its output), `reboot_required` (the change waits for a reboot: marks the \
    host reboot-pending), `timeout` (seconds), `stdin` (text).";

/// `:help`'s text (docs/language.md's row says the same; a test keeps them equal).
const REBOOT_HELP: &str =
    "Reboots the host and waits for it to come back with a new boot id (see below).";

/// `:help`'s text (docs/language.md's row says the same; a test keeps them equal).
const REBOOT_IF_PENDING_HELP: &str =
    "Reboots only if an earlier action staged a change for the next boot; returns whether it did.";

/// `:help`'s text (docs/language.md's row says the same; a test keeps them equal).
const UNAVAILABLE_HELP: &str = "Declares that this host's service goes away from here (its VM powered off, maintenance mode, \
    a reboot, a driver restart): the host takes its place in the disruption budget \
    (`--max-unavailable`) first, waiting for room, and counts as down until `available()` or the \
    end of the stage's block. A host waiting for room is waiting, not down; a host that fails \
    while down stays down. Once a roll is halted at a failed host, a host that is still up stops \
    here instead (see `serial` above).";

/// `:help`'s text (docs/language.md's row says the same; a test keeps them equal).
const AVAILABLE_HELP: &str =
    "The host is back and ready: gives its place in the disruption budget back.";

/// `:help`'s text (docs/language.md's row says the same; a test keeps them equal).
const CHECK_MODE_HELP: &str =
    "Whether this is `cairn run --check` (see [Check mode](#check-mode)).";

/// `:help`'s text (docs/language.md's row says the same; a test keeps them equal).
const REBOOT_PENDING_HELP: &str = "Whether a reboot is pending.";

/// `:help`'s text (docs/language.md's row says the same; a test keeps them equal).
const EXPECT_HELP: &str = "Fails the host with `message` when `cond` is false.";

/// `:help`'s text (docs/language.md's row says the same; a test keeps them equal).
const LOG_HELP: &str =
    "A line in the progress display and the journal. `print` and `debug` do the same.";

/// `:help`'s text (docs/language.md's row says the same; a test keeps them equal).
const HOST_HELP: &str = "`#{name, groups, vars, published}` of the current host.";

/// `:help`'s text (docs/language.md's row says the same; a test keeps them equal).
const HOSTS_HELP: &str = "An array of those maps for the hosts of a group that are still in the run (failed hosts \
    leave it), in inventory order; `published` holds what each host published.";

/// `:help`'s text (docs/language.md's row says the same; a test keeps them equal).
const PUBLISH_HELP: &str = "A journaled value of this host that other instances read through `hosts(...)` once the \
    stage's barrier has passed.";

/// Registers the vocabulary on `engine`. Long by design: one registration after another, each
/// the whole of a small builtin, so the core vocabulary reads as one list.
pub(crate) fn register(engine: &mut Engine) {
    crate::declare_options(&RUN_OPTIONS);
    engine.register_type_with_name::<Secret>("Secret");
    crate::documented::register(
        engine,
        "secret",
        ["value"],
        SECRET_HELP,
        |value: Dynamic| Secret(value),
    );
    crate::param_choice::register(engine);
    // rhai's `trim` trims in place and returns nothing, a trap in expressions.
    crate::documented::register(engine, "trimmed", ["text"], TRIMMED_HELP, |text: &str| {
        text.trim().to_owned()
    });
    crate::string_methods::register(engine);
    crate::retry::register(engine);
    crate::raised_error::register(engine);
    crate::wait_reachable::register(engine);
    crate::documented::register(
        engine,
        "run",
        ["argv"],
        RUN_HELP,
        |ctx: NativeCallContext, argv: Array| run(&ctx, argv, Map::new()),
    );
    crate::documented::register(
        engine,
        "run",
        ["argv", "options"],
        RUN_HELP,
        |ctx: NativeCallContext, argv: Array, options: Map| run(&ctx, argv, options),
    );
    // A command line as one string would need a shell to split it: say how to write it.
    engine.register_fn(
        "run",
        |ctx: NativeCallContext, line: &str| -> RhaiResult<Map> { Err(argv_not_array(&ctx, line)) },
    );
    engine.register_fn(
        "run",
        |ctx: NativeCallContext, line: &str, _options: Map| -> RhaiResult<Map> {
            Err(argv_not_array(&ctx, line))
        },
    );
    crate::documented::register(
        engine,
        "reboot",
        [],
        REBOOT_HELP,
        |ctx: NativeCallContext| reboot_now(&ctx),
    );
    crate::documented::register(
        engine,
        "reboot_if_pending",
        [],
        REBOOT_IF_PENDING_HELP,
        |ctx: NativeCallContext| -> RhaiResult<bool> {
            let host = HostContext::current(&ctx)?;
            if host.reboot_pending().is_some() {
                reboot_now(&ctx)?;
                Ok(true)
            } else {
                Ok(false)
            }
        },
    );
    // The steps that take a host's service away, declared: the disruption budget is taken
    // before the first of them and given back once the host is back and ready.
    crate::documented::register(
        engine,
        "unavailable",
        [],
        UNAVAILABLE_HELP,
        |ctx: NativeCallContext| -> RhaiResult<()> {
            let host = HostContext::current(&ctx)?;
            host.declare_unavailable()
                .map_err(|e| host.fail(e, ctx.call_position()))
        },
    );
    crate::documented::register(
        engine,
        "available",
        [],
        AVAILABLE_HELP,
        |ctx: NativeCallContext| -> RhaiResult<()> {
            HostContext::current(&ctx)?.release_budget(crate::Disruption::Declared);
            Ok(())
        },
    );
    // A step that depends on one check mode only predicts (a driver not installed yet) can
    // say so instead of failing: `if check_mode() { ... }`.
    crate::documented::register(
        engine,
        "check_mode",
        [],
        CHECK_MODE_HELP,
        |ctx: NativeCallContext| -> RhaiResult<bool> {
            Ok(HostContext::current(&ctx)?.shared.options.check)
        },
    );
    crate::documented::register(
        engine,
        "reboot_pending",
        [],
        REBOOT_PENDING_HELP,
        |ctx: NativeCallContext| -> RhaiResult<bool> {
            Ok(HostContext::current(&ctx)?.reboot_pending().is_some())
        },
    );
    crate::documented::register(
        engine,
        "expect",
        ["cond", "message"],
        EXPECT_HELP,
        |ctx: NativeCallContext, condition: bool, message: &str| -> RhaiResult<()> {
            if condition {
                return Ok(());
            }
            let host = HostContext::current(&ctx)?;
            if host.shared.options.check {
                // Commands that change things did not run, so what follows would build on
                // empty values: the prediction ends here, with a note, instead of failing later.
                return Err(host.stop_prediction(message, &ctx));
            }
            Err(host.fail(
                ActionError::Expectation(message.to_owned()),
                ctx.call_position(),
            ))
        },
    );
    crate::documented::register(
        engine,
        "log",
        ["value"],
        LOG_HELP,
        |ctx: NativeCallContext, message: Dynamic| -> RhaiResult<()> {
            let host = HostContext::current(&ctx)?;
            host.log(message.to_string())
                .map_err(|e| host.fail(e, ctx.call_position()))
        },
    );
    crate::documented::register(
        engine,
        "host",
        [],
        HOST_HELP,
        |ctx: NativeCallContext| -> RhaiResult<Map> {
            let host = HostContext::current(&ctx)?;
            Ok(host_map(&host.info, None))
        },
    );
    crate::documented::register(
        engine,
        "hosts",
        ["GROUP"],
        HOSTS_HELP,
        |ctx: NativeCallContext, group: &str| -> RhaiResult<Array> {
            let host = HostContext::current(&ctx)?;
            if let Some((stage, var)) = host.pipelined_stage() {
                return Err(host.fail(
                    ActionError::Runbook(format!(
                        "`hosts(\"{group}\")` in stage `{stage}`, which is pipelined (`after {var}`): the other hosts may not have reached it, so what they published is not all there; drop `after {var}` to keep the stage's barrier"
                    )),
                    ctx.call_position(),
                ));
            }
            let published = host
                .shared
                .published
                .lock()
                .map(|p| p.clone())
                .unwrap_or_default();
            let failed = host
                .shared
                .failed
                .lock()
                .map(|f| f.clone())
                .unwrap_or_default();
            Ok(host
                .shared
                .hosts
                .iter()
                .filter(|info| {
                    info.groups.iter().any(|g| g == group) && !failed.contains_key(&info.name)
                })
                .map(|info| Dynamic::from_map(host_map(info, published.get(&info.name))))
                .collect())
        },
    );
    crate::documented::register(
        engine,
        "publish",
        ["KEY", "value"],
        PUBLISH_HELP,
        |ctx: NativeCallContext, key: &str, value: Dynamic| -> RhaiResult<()> {
            let host = HostContext::current(&ctx)?;
            let value: Value = rhai::serde::from_dynamic(&value)?;
            let call = ActionCall {
                args: json!({ "key": key, "value": value }),
                assumed: value.clone(),
                builtin: "publish".into(),
                reconcile: Reconcile::Redo,
            };
            let site = host.site(&ctx);
            let value = host
                .perform(call, &site, |_| Ok(Outcome::unchanged(value.clone())))
                .map_err(|e| host.fail(e, ctx.call_position()))?;
            if let Ok(mut published) = host.shared.published.lock() {
                published
                    .entry(host.info.name.clone())
                    .or_default()
                    .insert(key.to_owned(), value);
            }
            Ok(())
        },
    );
}

/// `#{name, groups, vars}`, and `published` for hosts seen through `hosts()`.
fn host_map(info: &HostInfo, published: Option<&std::collections::BTreeMap<String, Value>>) -> Map {
    let mut map = Map::new();
    map.insert("name".into(), info.name.clone().into());
    let groups: Array = info
        .groups
        .iter()
        .map(|g| Dynamic::from(g.clone()))
        .collect();
    map.insert("groups".into(), groups.into());
    map.insert(
        "vars".into(),
        rhai::serde::to_dynamic(&info.vars).unwrap_or_default(),
    );
    if let Some(published) = published {
        map.insert(
            "published".into(),
            rhai::serde::to_dynamic(published).unwrap_or_default(),
        );
    } else if !map.contains_key("published") {
        map.insert("published".into(), Dynamic::from_map(Map::new()));
    }
    map
}

fn run(ctx: &NativeCallContext, argv: Array, options: Map) -> RhaiResult<Map> {
    let host = HostContext::current(ctx)?;
    let argv: Vec<String> = argv
        .into_iter()
        .map(|arg| {
            if arg.is_string() {
                arg.into_string().unwrap_or_default()
            } else {
                arg.to_string()
            }
        })
        .collect();
    if argv.is_empty() {
        return Err(host.fail(
            ActionError::Runbook("`run` needs a program: run([\"cmd\", ...])".into()),
            ctx.call_position(),
        ));
    }
    RUN_OPTIONS
        .check(&options)
        .map_err(|message| host.fail(ActionError::Runbook(message), ctx.call_position()))?;
    let flag = |name: &str| {
        options
            .get(name)
            .and_then(|v| v.as_bool().ok())
            .unwrap_or(false)
    };
    let allow_fail = flag("allow_fail");
    // `read_only`: a query. It changes nothing, runs in check mode too (so a runbook can decide
    // from its output there), and may run again after a crash.
    let read_only = flag("read_only");
    let idempotent = flag("idempotent") || read_only;
    // Ansible's `changed_when`: `changed: false` reports a command that ran as ok.
    let changed = options
        .get("changed")
        .and_then(|v| v.as_bool().ok())
        .unwrap_or(!read_only);
    let reboot_required = flag("reboot_required");
    let timeout = options
        .get("timeout")
        .and_then(|v| v.as_int().ok())
        .and_then(|s| u64::try_from(s).ok());
    let stdin = options.get("stdin").map(ToString::to_string);
    let mut args = json!({ "argv": argv });
    for (key, value) in &options {
        args[key.as_str()] = rhai::serde::from_dynamic(value)?;
    }
    let call = ActionCall {
        args,
        assumed: json!({ "code": 0, "stdout": "", "stderr": "" }),
        builtin: "run".into(),
        reconcile: if idempotent {
            Reconcile::Redo
        } else {
            Reconcile::Ask
        },
    };
    let site = host.site(ctx);
    let request = ExecRequest {
        argv,
        interrupt: None,
        stdin,
        timeout: timeout.map(Duration::from_secs),
        ..ExecRequest::default()
    };
    let result = host.perform(call, &site, |io| {
        if io.checking() && !read_only {
            // A command's effect cannot be known without running it: report that it would run.
            let value = json!({ "code": 0, "stdout": "", "stderr": "" });
            return Ok(Outcome {
                changed,
                reboot_required,
                value,
            });
        }
        let output = io.exec(&request)?;
        if output.code != 0 && !allow_fail {
            return Err(ActionError::RunExited {
                code: output.code,
                command: request.argv.join(" "),
                stderr: output.stderr,
            });
        }
        Ok(Outcome {
            changed,
            reboot_required,
            value: serde_json::to_value(output).unwrap_or_default(),
        })
    });
    let value = result.map_err(|e| host.fail(e, ctx.call_position()))?;
    rhai::serde::to_dynamic(value)?
        .try_cast::<Map>()
        .ok_or_else(|| "`run` result is not a map".into())
}

/// `run("ip link")`: a runbook error naming the array to write instead.
fn argv_not_array(ctx: &NativeCallContext, line: &str) -> Box<EvalAltResult> {
    let words: Vec<String> = line.split_whitespace().map(|w| format!("{w:?}")).collect();
    let message = format!(
        "`run` takes its command as an array of words, not a string: write run([{}])",
        words.join(", ")
    );
    match HostContext::current(ctx) {
        Ok(host) => host.fail(ActionError::Runbook(message), ctx.call_position()),
        Err(error) => error,
    }
}

fn reboot_now(ctx: &NativeCallContext) -> RhaiResult<()> {
    let host = HostContext::current(ctx)?;
    let call = ActionCall {
        args: json!({}),
        assumed: Value::Null,
        builtin: "reboot".into(),
        reconcile: Reconcile::Probe(Box::new(reboot::reconcile)),
    };
    let site = host.site(ctx);
    let budget = host.clone();
    // The place is given back once the host is back and its outcome journaled, so no journal
    // shows two reboots at once under a budget of one; a reboot that failed (the host did not
    // come back) keeps it: the host may well be down.
    host.perform(call, &site, move |io| {
        budget.take_budget(crate::Disruption::Reboot)?;
        reboot::reboot(io)
    })
    .map_err(|e| host.fail(e, ctx.call_position()))?;
    host.release_budget(crate::Disruption::Reboot);
    after_boot(&host, &site).map_err(|e| host.fail(e, ctx.call_position()))
}

/// The reboot-loop breaker: after a reboot, every change staged for it is checked, as one
/// journaled action, so a change the host did not apply fails the host with what was seen
/// instead of being staged again for another reboot. Failed, it runs again on a resume; the
/// reboot before it does not.
fn after_boot(host: &HostContext, site: &crate::CallSite) -> Result<(), ActionError> {
    let mut checks = host.take_after_boot();
    // A journal written before a builtin left its check holds no `after_reboot` here, or one
    // that staged fewer: replaying it, only what it staged is checked, so it does not diverge.
    match host.next_recorded() {
        Some((builtin, _)) if builtin != "after_reboot" => return Ok(()),
        Some((_, args)) => checks.retain(|(what, _)| {
            args["staged"]
                .as_array()
                .is_some_and(|staged| staged.iter().any(|s| s == what.as_str()))
        }),
        None => {}
    }
    if checks.is_empty() {
        return Ok(());
    }
    let names: Vec<&str> = checks.iter().map(|(what, _)| what.as_str()).collect();
    let call = ActionCall {
        args: json!({ "staged": names }),
        assumed: Value::Null,
        builtin: "after_reboot".into(),
        reconcile: Reconcile::Redo,
    };
    host.perform(call, site, |io| {
        for (_, check) in &checks {
            if let Some(error) = check(io)? {
                return Err(error);
            }
        }
        Ok(Outcome::unchanged(json!({ "applied": names })))
    })
    .map(|_| ())
}
