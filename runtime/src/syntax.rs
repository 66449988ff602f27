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
        (true, Some(block)) => context.eval_expression_tree(block).map(|_| ()),
        _ => Ok(()),
    };
    host.exit_stage();
    result.map(|()| Dynamic::UNIT)
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
    let (default, secret) = match default.clone().try_cast::<Secret>() {
        Some(Secret(inner)) => (inner, true),
        None => (default, false),
    };
    let value = match host.shared.params.get(&name) {
        Some(given) => convert(given, &default).map_err(|expected| {
            host.fail(
                ActionError::Failed(format!(
                    "--param {name}={given}: expected {expected}, like the default"
                )),
                position,
            )
        })?,
        None => default,
    };
    if secret {
        host.add_secret(&value.to_string());
    }
    if context.scope().contains(&name) {
        return Err(host.fail(
            ActionError::Failed(format!("param `{name}` is declared twice")),
            position,
        ));
    }
    context.scope_mut().push_constant_dynamic(name, value);
    Ok(Dynamic::UNIT)
}

/// Converts a `--param` text to the type of the declared default.
fn convert(given: &str, default: &Dynamic) -> Result<Dynamic, &'static str> {
    if default.is_int() {
        given
            .trim()
            .parse::<rhai::INT>()
            .map(Dynamic::from)
            .map_err(|_| "an integer")
    } else if default.is_float() {
        given
            .trim()
            .parse::<rhai::FLOAT>()
            .map(Dynamic::from)
            .map_err(|_| "a number")
    } else if default.is_bool() {
        given
            .trim()
            .parse::<bool>()
            .map(Dynamic::from)
            .map_err(|_| "true or false")
    } else {
        Ok(Dynamic::from(given.to_owned()))
    }
}
