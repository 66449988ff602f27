//! Every output parser, by the name `cairn parse` knows it: the parsers of the table of tools
//! ([`crate::tools::TOOLS`]), in its order.

use serde::Serialize;

use crate::ParseError;

/// One vendor tool output parser.
#[derive(Debug, Clone, Copy)]
pub struct ToolParser {
    /// The command whose output it reads.
    pub command: &'static str,
    /// The name `cairn parse` knows it by.
    pub name: &'static str,
    /// Parses the output into its typed result, as JSON.
    pub parse: fn(&str) -> Result<serde_json::Value, ParseError>,
}

/// All parsers, in the order `cairn parse --list` prints them.
pub fn parsers() -> &'static [ToolParser] {
    static ALL: std::sync::OnceLock<Vec<ToolParser>> = std::sync::OnceLock::new();
    ALL.get_or_init(|| {
        crate::tools::TOOLS
            .iter()
            .flat_map(|tool| tool.parsers.iter().copied())
            .collect()
    })
}

/// The parser called `name`.
pub fn parser(name: &str) -> Option<&'static ToolParser> {
    parsers().iter().find(|parser| parser.name == name)
}

pub(crate) fn json<T: Serialize>(
    parsed: Result<T, ParseError>,
) -> Result<serde_json::Value, ParseError> {
    // Serializing plain derived structs into a JSON value cannot fail.
    parsed.map(|value| serde_json::to_value(value).unwrap_or(serde_json::Value::Null))
}
