//! The runbook vocabulary: `run`, `reboot`, `unavailable`/`available`, `expect`, `log`, `host`,
//! `hosts`, `publish`, `secret`. One file per concept: `run_call.rs` (`run`), `reboots.rs`
//! (`reboot`, `reboot_if_pending`, `reboot_pending`), `disruption.rs` (`unavailable`,
//! `available`), `fleet.rs` (`host`, `hosts`, `publish`); the small ones are here, with the one
//! list they are all registered from.
//!
//! `stage` and `param` are syntax, in `syntax.rs`.

mod disruption;
mod fleet;
mod reboots;
mod run_call;

use rhai::{Dynamic, Engine, EvalAltResult, NativeCallContext};

use crate::{ActionError, HostContext};

type RhaiResult<T> = Result<T, Box<EvalAltResult>>;

/// A secret value: `param password = secret("")` keeps it out of journals and the screen.
#[derive(Debug, Clone)]
pub struct Secret(pub Dynamic);

/// `:help`'s text (docs/language.md's row says the same; a test keeps them equal).
const SECRET_HELP: &str = "Marks a param default as secret.";

/// `:help`'s text (docs/language.md's row says the same; a test keeps them equal).
const TRIMMED_HELP: &str =
    "The text without leading and trailing whitespace (see [String methods](#string-methods)).";

/// `:help`'s text (docs/language.md's row says the same; a test keeps them equal).
const CHECK_MODE_HELP: &str =
    "Whether this is `cairn run --check` (see [Check mode](#check-mode)).";

/// `:help`'s text (docs/language.md's row says the same; a test keeps them equal).
const EXPECT_HELP: &str = "Fails the host with `message` when `cond` is false.";

/// `:help`'s text (docs/language.md's row says the same; a test keeps them equal).
const LOG_HELP: &str =
    "A line in the progress display and the journal. `print` and `debug` do the same.";

/// Registers the vocabulary on `engine`: the core vocabulary as one list, each file's builtins
/// registered by that file.
pub(crate) fn register(engine: &mut Engine) {
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
    run_call::register(engine);
    reboots::register(engine);
    disruption::register(engine);
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
    fleet::register(engine);
}
