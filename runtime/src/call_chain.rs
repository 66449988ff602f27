//! The calls a builtin was reached through, so the debugger's `:where` can show the chain from
//! a module's line up to the recipe's (a failure report gets the same chain from rhai's nested
//! errors, `ending/failure.rs`).
//!
//! rhai keeps a call stack only while a debugger is registered on the engine (its `debugging`
//! feature), so [`track_calls`] registers one that never stops the script: cairn's own
//! debugger stops at actions and stages, rhai's only counts frames. A run without cairn's
//! debugger registers nothing and pays nothing.

use rhai::debugger::DebuggerCommand;
use rhai::{Engine, NativeCallContext, Position};

/// One call on the way to a builtin: the function called and where its caller called it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Caller {
    /// The function called (`set_link_types`, `retry`).
    pub function: String,
    /// The caller's file.
    pub file: String,
    /// 1-based line of the call.
    pub line: u32,
    /// 1-based column of the call.
    pub column: u32,
}

/// Makes `engine` keep rhai's call stack, for [`callers`]; it never pauses the script.
pub(crate) fn track_calls(engine: &mut Engine) {
    // rhai marks this API as volatile, not as going away.
    #[allow(deprecated)]
    engine.register_debugger(
        |_, debugger| debugger,
        // Asked once, as the script starts: go on, and stop at nothing.
        |_, _, _, _, _| Ok(DebuggerCommand::Continue),
    );
}

/// The calls that led to the builtin `ctx` is running, innermost first, each located in its
/// caller's file (`runbook_file` for the runbook's own source). Empty when the engine does not
/// track calls.
pub(crate) fn callers(ctx: &NativeCallContext, runbook_file: &str) -> Vec<Caller> {
    let Some(debugger) = ctx.debugger() else {
        return Vec::new();
    };
    let mut stack = debugger.call_stack();
    // A builtin called by its plain name has its own frame, at the call site the action
    // already has; one called through its namespace (`mlxconfig::set`) has none.
    if let Some((last, outer)) = stack.split_last()
        && last.fn_name == ctx.fn_name()
        && last.pos == ctx.call_position()
    {
        stack = outer;
    }
    // A frame's position is in its caller's file, and its source is the callee's own file
    // (rhai swaps the source in before it pushes a module function's frame); a native
    // function's frame keeps its caller's source or names its namespace, not a file.
    let mut file = runbook_file.to_owned();
    let mut chain = Vec::new();
    for frame in stack {
        let caller_file = file.clone();
        match frame.source.as_deref() {
            Some(source) if source.ends_with(".rhai") => {
                file = crate::runbook::source_file(runbook_file, source);
            }
            Some("") => file = runbook_file.to_owned(),
            _ => {}
        }
        if let Some((line, column)) = line_and_column(frame.pos) {
            chain.push(Caller {
                function: frame.fn_name.to_string(),
                file: caller_file,
                line,
                column,
            });
        }
    }
    chain.reverse();
    chain
}

/// A frame's position, when rhai knows it (a closure a builtin calls back has none).
fn line_and_column(position: Position) -> Option<(u32, u32)> {
    let line = u32::try_from(position.line()?).ok()?;
    let column = position
        .position()
        .and_then(|c| u32::try_from(c).ok())
        .unwrap_or(0);
    Some((line, column))
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use super::*;

    /// Runs `script` (named `book.rhai`) on an engine whose `probe()` records its callers.
    fn callers_of(script: &str, track: bool) -> Vec<Caller> {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let mut engine = Engine::new();
        if track {
            track_calls(&mut engine);
        }
        let sink = seen.clone();
        engine.register_fn("probe", move |ctx: NativeCallContext| {
            if let Ok(mut seen) = sink.lock() {
                *seen = callers(&ctx, "book.rhai");
            }
        });
        let mut tools = rhai::Module::new();
        let sink = seen.clone();
        tools.set_native_fn("probe", move |ctx: NativeCallContext| {
            if let Ok(mut seen) = sink.lock() {
                *seen = callers(&ctx, "book.rhai");
            }
            Ok(())
        });
        engine.register_static_module("tools", tools.into());
        let mut ast = engine.compile(script).unwrap_or_else(|e| panic!("{e}"));
        ast.set_source("book.rhai");
        engine.run_ast(&ast).unwrap_or_else(|e| panic!("{e}"));
        seen.lock().map(|s| s.clone()).unwrap_or_default()
    }

    #[test]
    fn each_function_on_the_way_is_named_at_its_callers_line_innermost_first() {
        let script = "fn inner() {\n    probe();\n}\nfn outer() {\n    inner();\n}\nouter();\n";
        let chain = callers_of(script, true);
        let shown: Vec<(&str, u32)> = chain
            .iter()
            .map(|c| (c.function.as_str(), c.line))
            .collect();
        assert_eq!(shown, [("inner", 5), ("outer", 7)]);
        assert!(chain.iter().all(|c| c.file == "book.rhai"), "{chain:?}");
    }

    #[test]
    fn an_engine_that_does_not_track_calls_gives_no_chain() {
        let script = "fn inner() {\n    probe();\n}\ninner();\n";
        assert!(callers_of(script, false).is_empty());
        assert_eq!(callers_of(script, true).len(), 1);
    }

    #[test]
    fn a_builtin_called_through_its_namespace_keeps_its_caller() {
        let script = "fn inner() {\n    tools::probe();\n}\ninner();\n";
        let chain = callers_of(script, true);
        let shown: Vec<(&str, u32)> = chain
            .iter()
            .map(|c| (c.function.as_str(), c.line))
            .collect();
        assert_eq!(shown, [("inner", 4)]);
    }
}
