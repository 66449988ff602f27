//! The walk from the `mlxfwreset` parse trees to [`ResetQuery`] and [`ResetStatus`].

use pest::Parser;
use pest::iterators::Pair;

use super::types::{PendingParam, ResetOption, ResetQuery, ResetStatus};
use crate::ParseError;

const QUERY: &str = "mlxfwreset-query";
const STATUS: &str = "mlxfwreset-status";

#[derive(pest_derive::Parser)]
#[grammar = "src/mlxfwreset/mlxfwreset.pest"]
struct MlxfwresetParser;

/// Which list a section heading's rows belong to.
#[derive(Clone, Copy)]
enum Section {
    Levels,
    Types,
    Syncs,
    Methods,
    Other,
}

fn section_of(heading: &str) -> Section {
    let heading = heading.to_ascii_lowercase();
    if !heading.starts_with("reset") {
        return Section::Other;
    }
    let name = heading.split('(').next().unwrap_or_default();
    if name.contains("level") {
        Section::Levels
    } else if name.contains("type") {
        Section::Types
    } else if name.contains("sync") {
        Section::Syncs
    } else if name.contains("method") {
        Section::Methods
    } else {
        Section::Other
    }
}

/// Parses `mlxfwreset -d DEV query`.
pub(super) fn parse_query(text: &str) -> Result<ResetQuery, ParseError> {
    let root = MlxfwresetParser::parse(Rule::query, text)
        .map_err(|error| ParseError::from_pest(QUERY, text, &error))?;
    let mut query = ResetQuery::default();
    let mut claimed = false;
    let mut plain_notes = 0;
    for pair in root.flatten() {
        match pair.as_rule() {
            Rule::section => {
                let mut inner = pair.into_inner();
                let heading = inner.next().map(|h| h.as_str().trim()).unwrap_or_default();
                let section = section_of(heading);
                if matches!(section, Section::Other) {
                    query.notes.push(heading.to_owned());
                    plain_notes += 1;
                } else {
                    claimed = true;
                }
                for row in inner.filter(|p| p.as_rule() == Rule::row) {
                    let option = reset_option(text, row)?;
                    match section {
                        Section::Levels => query.levels.push(option),
                        Section::Types => query.types.push(option),
                        Section::Syncs => query.syncs.push(option),
                        Section::Methods => query.methods.push(option),
                        Section::Other => {}
                    }
                }
            }
            Rule::message => {
                let (tag, message) = message(pair);
                if tag == "-E-" {
                    query.errors.push(message);
                } else {
                    query.notes.push(format!("{tag} {message}"));
                }
            }
            Rule::note => {
                query.notes.push(pair.as_str().trim().to_owned());
                plain_notes += 1;
            }
            _ => {}
        }
    }
    // The query's own: a reset section, or the tool's failure alone (`-E-` lines with no
    // other text). Any other text is not this tool's query.
    if !claimed && (query.errors.is_empty() || plain_notes > 0) {
        return Err(not_this_tool(
            QUERY,
            text,
            "expected mlxfwreset's query: a `Reset-levels:` section, or the tool's `-E-` line",
        ));
    }
    Ok(query)
}

/// A refusal at the first line that is not blank (or at the end of an empty output).
fn not_this_tool(tool: &'static str, text: &str, expected: &str) -> ParseError {
    let start = text.len() - text.trim_start().len();
    let line = text[start..].lines().next().unwrap_or_default().trim_end();
    ParseError::at(tool, text, start, line.len(), expected)
}

fn reset_option(text: &str, row: Pair<'_, Rule>) -> Result<ResetOption, ParseError> {
    let mut option = ResetOption {
        number: 0,
        description: String::new(),
        supported: false,
        default: false,
    };
    for part in row.into_inner() {
        match part.as_rule() {
            Rule::number => {
                option.number = part.as_str().parse().map_err(|_| {
                    let span = part.as_span();
                    ParseError::at(
                        QUERY,
                        text,
                        span.start(),
                        span.end() - span.start(),
                        "a reset number that fits 32 bits",
                    )
                })?;
            }
            Rule::description => part.as_str().trim().clone_into(&mut option.description),
            Rule::support => {
                option.supported = part.as_str().eq_ignore_ascii_case("Supported");
            }
            Rule::default_mark => option.default = true,
            _ => {}
        }
    }
    Ok(option)
}

fn message(pair: Pair<'_, Rule>) -> (String, String) {
    let mut inner = pair.into_inner();
    let tag = inner
        .next()
        .map(|t| t.as_str().to_owned())
        .unwrap_or_default();
    let text = inner
        .next()
        .map(|t| t.as_str().trim().to_owned())
        .unwrap_or_default();
    (tag, text)
}

/// `N/A ...` as none.
fn value(text: &str) -> Option<String> {
    let text = text.trim();
    (!text.is_empty() && !text.starts_with("N/A")).then(|| text.to_owned())
}

/// Parses `mlxfwreset -d DEV status`.
pub(super) fn parse_status(text: &str) -> Result<ResetStatus, ParseError> {
    let root = MlxfwresetParser::parse(Rule::status, text)
        .map_err(|error| ParseError::from_pest(STATUS, text, &error))?;
    let mut status = ResetStatus::default();
    let mut claimed = false;
    for pair in root.flatten() {
        match pair.as_rule() {
            Rule::status_line | Rule::nvconfig => claimed = true,
            _ => {}
        }
        match pair.as_rule() {
            Rule::status_line => {
                let mut inner = pair.into_inner();
                let key = inner.next().map(|k| k.as_str()).unwrap_or_default();
                let text = inner.next().map(|v| v.as_str()).unwrap_or_default();
                match key {
                    "Status for device" => status.device = value(text),
                    "Pending FW version" => status.pending_fw_version = value(text),
                    "Running FW version" => status.running_fw_version = value(text),
                    "Description action" => status.description_action = value(text),
                    "Command required" => status.command_required = value(text),
                    "Reasons" => {
                        status.reasons = text
                            .split(',')
                            .map(str::trim)
                            .filter(|r| !r.is_empty())
                            .map(str::to_owned)
                            .collect();
                    }
                    _ => {}
                }
            }
            Rule::pending_param => {
                let cells: Vec<String> = pair.into_inner().map(|c| c.as_str().to_owned()).collect();
                if let [name, default, current, next_boot] = cells.as_slice() {
                    status.pending_nvconfig.push(PendingParam {
                        name: name.clone(),
                        default: default.clone(),
                        current: current.clone(),
                        next_boot: next_boot.clone(),
                    });
                }
            }
            Rule::message => {
                let (tag, message) = message(pair);
                if tag == "-E-" {
                    status.errors.push(message);
                }
            }
            _ => {}
        }
    }
    if !claimed && status.errors.is_empty() {
        return Err(not_this_tool(
            STATUS,
            text,
            "expected mlxfwreset's status: `Status for device:` and its lines, or the tool's `-E-` line",
        ));
    }
    Ok(status)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The query as `mstfwreset.py` prints it without MROQ: an empty line, `query_text()` and
    /// `reset_sync_query_text()`, each row `"{0}: {1:<62}-{2:<14}{3}"`.
    fn sample() -> String {
        let row = |n: u32, d: &str, s: &str, def: &str| format!("{n}: {d:<62}-{s:<14}{def}\n");
        let mut text = String::from("\nReset-levels:\n");
        text += &row(
            0,
            "Driver, PCI link, network link will remain up (\"live-Patch\")",
            "Not Supported",
            "",
        );
        text += &row(
            1,
            "Only ARM side will not remain up (\"Immediate reset\").",
            "Not Supported",
            "",
        );
        text += &row(3, "Driver restart and PCI reset", "Supported", "(default)");
        text += &row(4, "Warm Reboot", "Supported", "");
        text += "\nReset-types (relevant only for reset-levels 1,3,4):\n";
        text += &row(0, "Full chip reset", "Supported", "(default)");
        text += &row(
            1,
            "Phy-less reset (keep network port active during reset)",
            "Not Supported",
            "",
        );
        text += "\n\nReset-sync (relevant only for reset-level 3):\n";
        text += &row(0, "Tool is the owner", "Supported", "(default)");
        text += &row(1, "Driver is the owner", "Not supported", "");
        text += "\n";
        text
    }

    #[test]
    fn the_query_reads_levels_types_and_syncs_with_dashes_in_descriptions() {
        let query = parse_query(&sample()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(query.supported_levels(), [3, 4]);
        assert_eq!(query.levels.len(), 4);
        assert!(query.levels[2].default);
        assert_eq!(
            query.levels[0].description,
            "Driver, PCI link, network link will remain up (\"live-Patch\")"
        );
        assert_eq!(
            query.types[1].description,
            "Phy-less reset (keep network port active during reset)"
        );
        assert!(!query.types[1].supported);
        assert_eq!(query.syncs.len(), 2);
        assert!(!query.syncs[1].supported);
        assert!(query.errors.is_empty());
    }

    #[test]
    fn a_device_without_a_supported_level_is_an_error_line() {
        let query = parse_query("\n-E- There is no supported reset-level.\n")
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(query.errors, ["There is no supported reset-level."]);
        assert!(query.supported_levels().is_empty());
    }

    #[test]
    fn the_status_reads_the_pending_image_and_parameters() {
        let text = format!(
            "Status for device: 3b:00.0\n\nPending FW version : 16.35.2000\nRunning FW version : 16.32.1010\n\nPending NVCONFIG parameters:\n    {:<40} {:<12} {:<12} {:<12}\n    {:<40} {:<12} {:<12} {:<12}\n\nDescription action : Driver restart and PCI reset (Level 3)\nCommand required : mlxfwreset -d 3b:00.0 reset --level 3 --type 0\nReasons : Pending FW update, Pending NVCONFIG parameter change\n",
            "Name", "Default", "Current", "Next Boot", "LINK_TYPE_P1", "IB(1)", "ETH(2)", "IB(1)"
        );
        let status = parse_status(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert!(status.pending());
        assert_eq!(status.pending_fw_version.as_deref(), Some("16.35.2000"));
        assert_eq!(status.pending_nvconfig[0].next_boot, "IB(1)");
        assert_eq!(status.reasons.len(), 2);
        let clean = "Status for device: 3b:00.0\n\nPending FW version : N/A (FW is up to date)\nRunning FW version : 16.32.1010\n\nPending NVCONFIG parameters: N/A (No pending NVCONFIG parameters)\n\nDescription action : No action required\n";
        let status = parse_status(clean).unwrap_or_else(|e| panic!("{e}"));
        assert!(!status.pending());
        assert_eq!(status.running_fw_version.as_deref(), Some("16.32.1010"));
    }

    #[test]
    fn garbage_is_refused() {
        assert!(parse_status("Pending FW version 16.35\n").is_err());
    }
}
