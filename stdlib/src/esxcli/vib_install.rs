//! `esxcli software vib install|update`: the `Installation Result` record, or an error.

use super::grammar::{self, Rule};
use super::types::{EsxcliError, VibInstall};
use crate::ParseError;

const TOOL: &str = "esxcli-vib-install";

/// Parses `esxcli software vib install|update` output.
pub(super) fn parse(text: &str) -> Result<VibInstall, ParseError> {
    let mut result = VibInstall::default();
    for pair in grammar::parse(TOOL, Rule::vib_install, text)? {
        match pair.as_rule() {
            Rule::installation_result => {
                for field in pair.into_inner() {
                    let (label, value) = crate::grammar::label_value(field.clone());
                    let value = value.unwrap_or_default();
                    match label {
                        "Message" => result.message = Some(value),
                        "Reboot Required" => {
                            result.reboot_required = Some(match value.as_str() {
                                "true" => true,
                                "false" => false,
                                _ => {
                                    return Err(grammar::error_at(
                                        TOOL,
                                        text,
                                        &field,
                                        "expected `true` or `false`",
                                    ));
                                }
                            });
                        }
                        "VIBs Installed" => result.vibs_installed = ids(&value),
                        "VIBs Removed" => result.vibs_removed = ids(&value),
                        "VIBs Skipped" => result.vibs_skipped = ids(&value),
                        "Components Installed" => result.components_installed = ids(&value),
                        "Components Removed" => result.components_removed = ids(&value),
                        "Components Skipped" => result.components_skipped = ids(&value),
                        other => {
                            result.other.insert(other.to_owned(), value);
                        }
                    }
                }
            }
            Rule::esxcli_error => {
                let mut error = EsxcliError {
                    kind: String::new(),
                    lines: Vec::new(),
                };
                for part in pair.into_inner() {
                    match part.as_rule() {
                        Rule::error_kind => error.kind = part.as_str().to_owned(),
                        Rule::error_line => error
                            .lines
                            .extend(part.into_inner().map(|t| t.as_str().to_owned())),
                        _ => {}
                    }
                }
                result.error = Some(error);
            }
            _ => {}
        }
    }
    Ok(result)
}

/// `A, B, C` → `[A, B, C]`; an empty field → `[]`.
fn ids(value: &str) -> Vec<String> {
    value
        .split(',')
        .map(str::trim)
        .filter(|id| !id.is_empty())
        .map(str::to_owned)
        .collect()
}
