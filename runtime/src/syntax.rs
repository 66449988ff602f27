//! The runbook syntax rhai lacks: `stage "NAME" on GROUP { ... }`, its rolling form
//! `stage "NAME" on GROUP serial N { ... }`, its pipelined form `stage "NAME" on GROUP after
//! VAR { ... }` (`pipeline.rs`), and `param NAME = DEFAULT;`.

use rhai::{Dynamic, Engine, EvalAltResult, EvalContext, Expression, Position};

use crate::{ActionError, HostContext, vocabulary::Secret};

/// Registers `stage` and `param` on `engine`.
pub(crate) fn register(engine: &mut Engine) -> Result<(), Box<rhai::ParseError>> {
    engine.register_custom_syntax_with_state_raw("stage", stage_tokens, false, stage);
    engine.register_custom_syntax(["param", "$ident$", "=", "$expr$"], true, param)?;
    Ok(())
}

/// The tokens of `stage "NAME" on GROUP [serial N | after VAR] { ... }`, one at a time
/// (`symbols` holds what was read so far, values for `$string$`/`$ident$`, markers for the
/// rest). A pipelined stage (`after VAR`) leaves `"after"` in `state`, since its inputs look
/// like a rolling one's (`serial rolling` is a variable too).
fn stage_tokens(
    symbols: &[rhai::ImmutableString],
    look_ahead: &str,
    state: &mut Dynamic,
) -> Result<Option<rhai::ImmutableString>, rhai::ParseError> {
    let next = match symbols.len() {
        1 => "$string$",
        2 => "on",
        3 => "$ident$",
        4 if look_ahead == "serial" => "serial",
        4 if look_ahead == "after" => {
            *state = Dynamic::from(rhai::ImmutableString::from("after"));
            "after"
        }
        4 if look_ahead == "{" => "$block$",
        4 => {
            return Err(expected(
                "`{`, `serial N` or `after VAR`",
                look_ahead,
                &["serial", "after"],
            ));
        }
        5 if symbols[4] == "serial" => "$expr$",
        5 if symbols[4] == "after" => "$ident$",
        6 if symbols[4] == "after" && look_ahead != "{" => {
            // A pipelined stage does not roll: its batches would wait for hosts it does not.
            return Err(expected(
                "`{` (a pipelined stage cannot also roll)",
                look_ahead,
                &[],
            ));
        }
        6 => "$block$",
        _ => return Ok(None),
    };
    Ok(Some(next.into()))
}

/// A parse error for `found` where the stage syntax expected `what`, with a did-you-mean.
fn expected(what: &str, found: &str, near: &[&str]) -> rhai::ParseError {
    let hint = match crate::inventory::closest(found, near.iter().copied()) {
        Some(near) => format!(": did you mean `{near}`?"),
        None => String::new(),
    };
    rhai::ParseError(
        Box::new(rhai::ParseErrorType::BadInput(
            rhai::LexError::ImproperSymbol(
                found.to_owned(),
                format!("expected {what} after the stage's group, found `{found}`{hint}"),
            ),
        )),
        Position::NONE,
    )
}

fn host_of(context: &EvalContext) -> Result<std::sync::Arc<HostContext>, Box<EvalAltResult>> {
    context
        .tag()
        .read_lock::<crate::host_context::HostHandle>()
        .map(|handle| handle.0.clone())
        .ok_or_else(|| "stages need a host: this engine was built without one".into())
}

fn stage(
    context: &mut EvalContext,
    inputs: &[Expression],
    state: &Dynamic,
) -> Result<Dynamic, Box<EvalAltResult>> {
    let host = host_of(context)?;
    let name = inputs
        .first()
        .and_then(|e| e.get_literal_value::<rhai::ImmutableString>())
        .unwrap_or_default();
    let group = inputs
        .get(1)
        .and_then(|e| e.get_string_value())
        .unwrap_or_default()
        .to_owned();
    let position = inputs.first().map_or(Position::NONE, Expression::position);
    let pipelined = state
        .clone()
        .try_cast::<rhai::ImmutableString>()
        .is_some_and(|s| s == "after");
    // `serial N` or `after VAR` sits between the group and the block.
    let (between, block) = match inputs {
        [_, _, between, block] => (Some(between), Some(block)),
        [_, _, block] => (None, Some(block)),
        _ => (None, None),
    };
    let (serial, after) = match between {
        Some(var) if pipelined => (None, var.get_string_value().map(str::to_owned)),
        serial => (serial, None),
    };
    let member = host
        .enter_stage_after(&name, &group, after.as_deref())
        .map_err(|e| host.fail(e, position))?;
    let result = match (member, block) {
        (true, Some(block)) => rolling_block(context, &host, &name, position, serial, block),
        _ => Ok(()),
    };
    // `unavailable()` lasts at most to the end of its stage's block, when the block went
    // through; a host that failed while down stays down.
    if result.is_ok() {
        host.release_budget(crate::Disruption::Declared);
    }
    host.exit_stage();
    result.map(|()| Dynamic::UNIT)
}

/// A member's run of the block: in a rolling stage, only once its batch's turn has come, and
/// the batch is left (done or failed) whatever the block did.
fn rolling_block(
    context: &mut EvalContext,
    host: &HostContext,
    name: &str,
    position: Position,
    serial: Option<&Expression>,
    block: &Expression,
) -> Result<(), Box<EvalAltResult>> {
    let Some(serial) = serial else {
        return run_block(context, host, name, position, block);
    };
    let value = context.eval_expression_tree(serial)?;
    let serial = crate::Serial::parse(&value)
        .map_err(|message| host.fail(ActionError::Runbook(message), serial.position()))?;
    host.enter_batch(serial)
        .map_err(|e| host.fail(e, position))?;
    let result = run_block(context, host, name, position, block);
    host.leave_batch(result.is_ok());
    result
}

/// Runs a stage's block. Under a debugger it may stop first, and a `:retry` of a failed action
/// runs the block again from the scope it started with: the actions that finished answer with
/// what they returned, as on a resume, so only the failed one touches the host again.
fn run_block(
    context: &mut EvalContext,
    host: &HostContext,
    name: &str,
    position: Position,
    block: &Expression,
) -> Result<(), Box<EvalAltResult>> {
    if host.debugger().is_none() {
        return context.eval_expression_tree(block).map(|_| ());
    }
    host.debug_stage(name, position, context.scope())
        .map_err(|e| host.fail(e, position))?;
    let start = context.scope().clone();
    loop {
        let result = context.eval_expression_tree(block).map(|_| ());
        if !host.take_retry() {
            return result;
        }
        *context.scope_mut() = start.clone();
        host.rerun_stage();
    }
}

fn param(context: &mut EvalContext, inputs: &[Expression]) -> Result<Dynamic, Box<EvalAltResult>> {
    let host = host_of(context)?;
    let name = inputs
        .first()
        .and_then(Expression::get_string_value)
        .unwrap_or_default()
        .to_owned();
    let position = inputs.first().map_or(Position::NONE, Expression::position);
    let Some(default_expr) = inputs.get(1) else {
        return Ok(Dynamic::UNIT);
    };
    let default = context.eval_expression_tree(default_expr)?;
    let (default, choices) = match default.clone().try_cast::<crate::param_choice::Choice>() {
        Some(choice) => (choice.default, Some(choice.choices)),
        None => (default, None),
    };
    let (default, secret) = match default.clone().try_cast::<Secret>() {
        Some(Secret(inner)) => (inner, true),
        None => (default, false),
    };
    let value = match host.shared.params.get(&name) {
        // Converted before the run, from the literal default.
        Some(crate::run_params::RunParam {
            typed: Some(value), ..
        }) => value.clone(),
        Some(given) => crate::param_value::convert(&given.given, &default).map_err(|expected| {
            let shown = crate::param_value::shown(&given.given, secret);
            let message = crate::param_value::wrong_type(&name, &shown, expected, &default);
            host.fail(ActionError::Failed(message), position)
        })?,
        None => default,
    };
    let text = value.to_string();
    let shown = crate::param_value::shown(&text, secret);
    if let Some((message, help)) = choices
        .as_deref()
        .and_then(|c| crate::param_choice::refuse(&name, &text, &shown, c))
    {
        return Err(host.fail(ActionError::Runbook(format!("{message}: {help}")), position));
    }
    if secret {
        // A default only known as the runbook runs (not a literal) is checked here.
        let refused = if text.is_empty() {
            Some("it has no value (--param, --vault)".to_owned())
        } else {
            crate::secrets::too_short(&text)
        };
        if let Some(why) = refused {
            let message = format!("secret param `{name}` is refused: {why}");
            return Err(host.fail(ActionError::Runbook(message), position));
        }
        host.add_secret(&name, &text);
    }
    if context.scope().contains(&name) {
        return Err(host.fail(
            ActionError::Runbook(format!("param `{name}` is declared twice")),
            position,
        ));
    }
    context.scope_mut().push_constant_dynamic(name, value);
    Ok(Dynamic::UNIT)
}
