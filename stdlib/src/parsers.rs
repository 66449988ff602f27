//! Every output parser, by the name `cairn parse` knows it: the parsers of the table of tools
//! ([`crate::tools::TOOLS`]), in its order.

pub use crate::tools::ToolParser;

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
