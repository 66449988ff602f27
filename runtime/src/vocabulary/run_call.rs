//! `run(argv, #{...})`: a command on the current host, journaled as the options say.

use std::time::Duration;

use rhai::{Array, Engine, EvalAltResult, Map, NativeCallContext};
use serde_json::json;

use super::RhaiResult;
use crate::{
    ActionCall, ActionError, BuiltinOptions, ExecRequest, HostContext, OptionKey, OptionType,
    Outcome, Reconcile,
};

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

/// Registers `run` with its options, and the string forms that say how to write it.
pub(super) fn register(engine: &mut Engine) {
    crate::declare_options(&RUN_OPTIONS);
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
