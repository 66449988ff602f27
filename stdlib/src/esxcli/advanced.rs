//! `esxcli system settings advanced list [-o OPTION]`.

use pest::iterators::Pair;

use super::grammar::{self, Rule};
use super::types::AdvancedOption;
use crate::ParseError;

const TOOL: &str = "esxcli-advanced";

/// Parses `esxcli system settings advanced list [-o OPTION]` output: one entry per option.
pub(super) fn parse(text: &str) -> Result<Vec<AdvancedOption>, ParseError> {
    let mut options = Vec::new();
    let records = grammar::parse(TOOL, Rule::advanced_list, text)?;
    for record in records.filter(|p| p.as_rule() == Rule::advanced_option) {
        let mut option = AdvancedOption::default();
        for part in record.into_inner() {
            match part.as_rule() {
                Rule::option_path => option.path = part.as_str().to_owned(),
                Rule::record_field => field(text, part, &mut option)?,
                _ => {}
            }
        }
        options.push(option);
    }
    Ok(options)
}

fn field(text: &str, pair: Pair<'_, Rule>, option: &mut AdvancedOption) -> Result<(), ParseError> {
    let (label, value) = crate::grammar::label_value(pair.clone());
    let integer = |value: Option<String>| -> Result<Option<i64>, ParseError> {
        value
            .map(|v| {
                v.parse().map_err(|_| {
                    grammar::error_at(TOOL, text, &pair, format!("`{v}` is not an integer"))
                })
            })
            .transpose()
    };
    match label {
        "Type" => option.r#type = value,
        "Int Value" => option.int_value = integer(value)?,
        "Default Int Value" => option.default_int_value = integer(value)?,
        "Min Value" => option.min_value = integer(value)?,
        "Max Value" => option.max_value = integer(value)?,
        "String Value" => option.string_value = value,
        "Default String Value" => option.default_string_value = value,
        "Valid Characters" => option.valid_characters = value,
        "Description" => option.description = value,
        "Host Specific" => {
            option.host_specific = match value.as_deref() {
                None => None,
                Some("true") => Some(true),
                Some("false") => Some(false),
                Some(_) => {
                    return Err(grammar::error_at(
                        TOOL,
                        text,
                        &pair,
                        "expected `true` or `false`",
                    ));
                }
            };
        }
        "Impact" => option.impact = value,
        other => {
            option
                .other
                .insert(other.to_owned(), value.unwrap_or_default());
        }
    }
    Ok(())
}
