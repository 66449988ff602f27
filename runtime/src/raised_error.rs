//! A builtin's [`ActionError`] as the value of the rhai error it raises, so the error itself
//! carries its type: the failure report, `retry` and the REPL find it by walking rhai's nested
//! errors (`ErrorInFunctionCall`, `ErrorInModule`), with no side slot to keep in step and no
//! message text to match. A runbook's `catch (e)` reads it as text (`e.message`, `` `${e}` ``,
//! `print(e)`), as it reads a message from rhai's own errors (`e.message` there too).
//!
//! `ActionError::raise` raises it (as [`RaisedError`], read by a runbook as a `Failure`:
//! `e.message`, `e.code`, text for `${e}`); `action_error_of` and `error_message` find it again.

use std::sync::Arc;

use rhai::{Dynamic, Engine, EvalAltResult, Position};

use crate::ActionError;

/// The value a builtin's failure holds inside rhai: cheap to clone, as rhai clones the value a
/// `catch` binds.
#[derive(Debug, Clone)]
pub struct RaisedError(Arc<ActionError>);

/// The name `type_of(e)` gives a caught builtin failure.
const TYPE_NAME: &str = "Failure";

impl ActionError {
    /// This failure as the rhai error a builtin returns, at the builtin's call site.
    pub fn raise(self, position: Position) -> Box<EvalAltResult> {
        Box::new(EvalAltResult::ErrorRuntime(
            Dynamic::from(RaisedError(Arc::new(self))),
            position,
        ))
    }
}

/// The builtin failure `error` ends in, through the function and module calls it passed on its
/// way out; `None` for rhai's own errors and for a value the runbook threw.
pub fn action_error_of(error: &EvalAltResult) -> Option<Arc<ActionError>> {
    match error.unwrap_inner() {
        EvalAltResult::ErrorRuntime(value, _) => {
            value.read_lock::<RaisedError>().map(|r| r.0.clone())
        }
        _ => None,
    }
}

/// What `error` says, as a report or the REPL shows it: a builtin's failure in its own words, a
/// thrown value as text, and rhai's own error without the position rhai appends (the report
/// points at the position itself).
pub fn error_message(error: &EvalAltResult) -> String {
    if let Some(typed) = action_error_of(error) {
        return typed.to_string();
    }
    match error {
        EvalAltResult::ErrorRuntime(value, _) => value.to_string(),
        // rhai writes an error's own words, then ` (POSITION)` when it has one: the suffix it
        // wrote is taken off as written, so no other text is searched.
        other => {
            let text = other.to_string();
            let position = other.position();
            if position.is_none() {
                return text;
            }
            text.strip_suffix(&format!(" ({position})"))
                .map_or_else(|| text.clone(), str::to_owned)
        }
    }
}

/// Registers the type a `catch (e)` binds for a builtin's failure: `e.message` and `e.code`
/// (the diagnostic code, `cairn::action::run_exited`), and text for `print` and `${e}`.
pub(crate) fn register(engine: &mut Engine) {
    engine
        .register_type_with_name::<RaisedError>(TYPE_NAME)
        .register_get("message", |e: &mut RaisedError| e.0.to_string())
        .register_get("code", |e: &mut RaisedError| code_of(&e.0))
        .register_fn("to_string", |e: &mut RaisedError| e.0.to_string())
        .register_fn("to_debug", |e: &mut RaisedError| {
            format!("{TYPE_NAME}({}: {})", code_of(&e.0), e.0)
        });
}

fn code_of(error: &ActionError) -> String {
    miette::Diagnostic::code(error).map_or_else(String::new, |code| code.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn engine() -> Engine {
        let mut engine = Engine::new();
        register(&mut engine);
        engine.register_fn(
            "fails",
            |ctx: rhai::NativeCallContext| -> Result<(), Box<EvalAltResult>> {
                Err(ActionError::NotAHost("node09".into()).raise(ctx.call_position()))
            },
        );
        engine
    }

    #[test]
    fn a_caught_failure_reads_as_text() {
        let engine = engine();
        let read: String = engine
            .eval(
                "let r = \"\"; try { fails(); } catch (e) { r = `${e}|${e.message}|${e.code}|${type_of(e)}`; } r",
            )
            .expect("caught");
        assert_eq!(
            read,
            "`node09` is not a host of this run|`node09` is not a host of this run|cairn::action::not_a_host|Failure"
        );
    }

    #[test]
    fn the_failure_is_found_through_the_calls_it_passed() {
        let engine = engine();
        let error = engine
            .run("fn outer() { inner() } fn inner() { fails() } outer();")
            .expect_err("fails");
        assert!(
            matches!(*error, EvalAltResult::ErrorInFunctionCall(..)),
            "{error:?}"
        );
        let typed = action_error_of(&error).expect("typed");
        assert!(matches!(&*typed, ActionError::NotAHost(name) if name == "node09"));
        assert_eq!(error_message(&error), "`node09` is not a host of this run");
        // Rethrown by the runbook, it keeps its type.
        let rethrown = engine
            .run("try { fails() } catch (e) { throw e; }")
            .expect_err("rethrown");
        assert!(action_error_of(&rethrown).is_some());
    }

    #[test]
    fn rhai_errors_and_thrown_values_read_without_a_position() {
        let engine = engine();
        let thrown = engine.run("throw \"not yet\";").expect_err("thrown");
        assert!(action_error_of(&thrown).is_none());
        assert_eq!(error_message(&thrown), "not yet");
        let unknown = engine.run("\n\nnope();").expect_err("unknown");
        assert_eq!(error_message(&unknown), "Function not found: nope ()");
    }
}
