//! What the guest builtins share beyond `crate::action`: reading options, and turning parse
//! failures into action errors.

use cairn_runtime::ActionError;
use rhai::{Dynamic, Map};
use serde_json::Value;

pub(crate) use crate::action::{RhaiResult, act, fail, json, query};

/// A tool's output that does not parse, with the line it stops at.
pub(crate) fn parse_failure(tool: &str, error: &crate::ParseError, text: &str) -> ActionError {
    let offset = error.span.offset();
    let line_number = text.get(..offset).map_or(1, |t| t.lines().count().max(1));
    let line = text
        .lines()
        .nth(line_number.saturating_sub(1))
        .unwrap_or("");
    ActionError::Failed(format!(
        "`{tool}` output does not parse at line {line_number} (`{}`): {error}",
        line.trim_end()
    ))
}

/// An option of a builtin's `#{...}` map, as JSON.
pub(crate) fn options_json(options: &Map) -> RhaiResult<Value> {
    rhai::serde::from_dynamic(&Dynamic::from_map(options.clone()))
}

/// A boolean option.
pub(crate) fn flag(options: &Value, key: &str, default: bool) -> bool {
    options.get(key).and_then(Value::as_bool).unwrap_or(default)
}

/// An integer option.
pub(crate) fn int(options: &Value, key: &str) -> Option<i64> {
    options.get(key).and_then(|v| {
        v.as_i64()
            .or_else(|| v.as_str().and_then(|s| s.trim().parse().ok()))
    })
}

/// A text option.
pub(crate) fn text(options: &Value, key: &str) -> Option<String> {
    options.get(key).and_then(|v| match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    })
}
