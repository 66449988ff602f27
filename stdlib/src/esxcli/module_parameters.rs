//! `esxcli system module parameters list -m MODULE`.

use super::grammar::{self, Rule};
use super::types::ModuleParameter;
use crate::ParseError;

const TOOL: &str = "esxcli-module-parameters";

/// Parses `esxcli system module parameters list -m MODULE` output, whole or `grep`ped.
pub(super) fn parse(text: &str) -> Result<Vec<ModuleParameter>, ParseError> {
    let mut parameters: Vec<ModuleParameter> = Vec::new();
    let tables = grammar::parse(TOOL, Rule::module_parameters, text)?;
    for table in tables.filter(|p| p.as_rule() == Rule::parameters_table) {
        let table = grammar::table(TOOL, text, table)?;
        for row in &table.rows {
            let mut cells = table.cells(row).into_iter();
            let name = cells.next().unwrap_or_default();
            let r#type = cells.next().unwrap_or_default();
            let value = cells.next().filter(|v| !v.is_empty());
            let description = cells.next().unwrap_or_default();
            if name.is_empty() && r#type.is_empty() && value.is_none() {
                // A description that goes on under the previous row.
                let Some(last) = parameters.last_mut() else {
                    return Err(grammar::error_at(
                        TOOL,
                        text,
                        row,
                        "expected a parameter name",
                    ));
                };
                last.description = format!("{} {description}", last.description)
                    .trim()
                    .to_owned();
                continue;
            }
            if name.is_empty() || r#type.is_empty() {
                return Err(grammar::error_at(
                    TOOL,
                    text,
                    row,
                    "expected a parameter name and type",
                ));
            }
            parameters.push(ModuleParameter {
                name,
                r#type,
                value,
                description,
            });
        }
    }
    Ok(parameters)
}

#[cfg(test)]
mod tests {
    use super::parse;

    /// Not a captured output (none with its dashes was found published): the layout of
    /// `esxcli`'s tables, to pin the split at the dash columns and the empty `Value` cells.
    #[test]
    fn empty_values_and_multi_word_types_split_at_the_dashes() {
        let text = "Name     Type          Value  Description\n\
                    -------  ------------  -----  -----------------------\n\
                    DRSS     int                  Number of RSS queues\n\
                    max_vfs  array of int  8,8    Number of VFs per port\n";
        let parameters = parse(text).unwrap_or_default();
        assert_eq!(parameters.len(), 2);
        assert_eq!(
            parameters
                .first()
                .map(|p| (p.r#type.as_str(), p.value.clone())),
            Some(("int", None))
        );
        assert_eq!(
            parameters
                .get(1)
                .map(|p| (p.r#type.as_str(), p.value.as_deref())),
            Some(("array of int", Some("8,8")))
        );
    }
}
