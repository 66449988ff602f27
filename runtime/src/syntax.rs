//! The runbook syntax rhai lacks: `stage "NAME" on GROUP { ... }` and `param NAME = DEFAULT;`.

use rhai::{Dynamic, Engine, EvalAltResult, EvalContext, Expression, Position};

use crate::{ActionError, HostContext, vocabulary::Secret};

/// Registers `stage` and `param` on `engine`.
pub(crate) fn register(engine: &mut Engine) -> Result<(), Box<rhai::ParseError>> {
    engine.register_custom_syntax(
        ["stage", "$string$", "on", "$ident$", "$block$"],
        false,
        stage,
    )?;
    engine.register_custom_syntax(["param", "$ident$", "=", "$expr$"], true, param)?;
    Ok(())
}

fn host_of(context: &EvalContext) -> Result<std::sync::Arc<HostContext>, Box<EvalAltResult>> {
    context
        .tag()
        .read_lock::<crate::host_context::HostHandle>()
        .map(|handle| handle.0.clone())
        .ok_or_else(|| "stages need a host: this engine was built without one".into())
}

fn stage(context: &mut EvalContext, inputs: &[Expression]) -> Result<Dynamic, Box<EvalAltResult>> {
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
    let member = host
        .enter_stage(&name, &group)
        .map_err(|e| host.fail(e, position))?;
    let result = match (member, inputs.get(2)) {
        (true, Some(block)) => run_block(context, &host, &name, position, block),
        _ => Ok(()),
    };
    host.exit_stage();
    result.map(|()| Dynamic::UNIT)
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
        Some(given) => crate::param_value::convert(given, &default).map_err(|expected| {
            host.fail(
                ActionError::Failed(format!(
                    "--param {name}={given}: expected {expected}, like the default"
                )),
                position,
            )
        })?,
        None => default,
    };
    if let Some((message, help)) = choices
        .as_deref()
        .and_then(|c| crate::param_choice::refuse(&name, &value.to_string(), c))
    {
        return Err(host.fail(ActionError::Runbook(format!("{message}: {help}")), position));
    }
    if secret {
        host.add_secret(&value.to_string());
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
