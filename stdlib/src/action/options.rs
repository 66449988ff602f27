//! Reading a builtin's script values: its `#{...}` options map and the values it passes on to a
//! command line.

use rhai::{Dynamic, Map};
use serde_json::Value;

use super::RhaiResult;

/// A script value as JSON.
pub(crate) fn from_dynamic(value: &Dynamic) -> RhaiResult<Value> {
    rhai::serde::from_dynamic(value)
}

/// A builtin's `#{...}` options map, as JSON.
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

/// A value given by the script as the text a command line takes: strings as they are, numbers
/// and booleans printed.
pub(crate) fn arg_text(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}
