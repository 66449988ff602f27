//! Vars are TOML in the file and JSON everywhere after (journal, rhai maps).

/// `value` as JSON: dates and times become their TOML text, and floats JSON cannot hold (NaN,
/// infinities) become strings.
pub(crate) fn to_json(value: toml::Value) -> serde_json::Value {
    match value {
        toml::Value::Array(items) => items.into_iter().map(to_json).collect(),
        toml::Value::Boolean(b) => b.into(),
        toml::Value::Datetime(datetime) => datetime.to_string().into(),
        toml::Value::Float(f) => serde_json::Number::from_f64(f)
            .map_or_else(|| f.to_string().into(), serde_json::Value::Number),
        toml::Value::Integer(i) => i.into(),
        toml::Value::String(s) => s.into(),
        toml::Value::Table(table) => table
            .into_iter()
            .map(|(key, value)| (key, to_json(value)))
            .collect::<serde_json::Map<_, _>>()
            .into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn converts_every_toml_type() {
        let table: toml::Table = toml::from_str(
            "a = 1\nb = 1.5\nc = nan\nd = 1979-05-27T07:32:00Z\ne = [true, 's']\nf = { g = 2 }\n",
        )
        .unwrap_or_default();
        assert_eq!(
            to_json(toml::Value::Table(table)),
            serde_json::json!({
                "a": 1, "b": 1.5, "c": "NaN", "d": "1979-05-27T07:32:00Z", "e": [true, "s"], "f": { "g": 2 }
            })
        );
    }
}
