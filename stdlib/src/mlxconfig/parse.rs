//! The walk from the `mlxconfig` parse trees to [`MlxconfigQuery`] and [`MlxconfigSet`].

use std::collections::BTreeMap;

use pest::Parser;
use pest::iterators::Pair;

use super::types::{
    ConfigValue, DeviceHeader, Messages, MlxconfigQuery, MlxconfigSet, Parameter, QueryDevice,
    SetParameter,
};
use crate::ParseError;

/// The pest parser of `mlxconfig.pest`.
#[derive(pest_derive::Parser)]
#[grammar = "src/mlxconfig/mlxconfig.pest"]
struct MlxconfigParser;

/// A parsed `Configurations:` block: its column titles and its rows of cells.
struct Block<'i> {
    /// Where `Configurations:` starts.
    start: usize,
    columns: Vec<&'i str>,
    rows: Vec<Row<'i>>,
}

/// One parameter line: its name, its `*` and its cells with their spans.
struct Row<'i> {
    line: Pair<'i, Rule>,
    modified: bool,
    name: String,
    values: Vec<Pair<'i, Rule>>,
}

/// Parses `mlxconfig [-e] query` output.
pub(super) fn parse_query(text: &str) -> Result<MlxconfigQuery, ParseError> {
    const TOOL: &str = "mlxconfig-query";
    let pairs = MlxconfigParser::parse(Rule::mlxconfig_query, text)
        .map_err(|error| ParseError::from_pest(TOOL, text, &error))?;
    let mut query = MlxconfigQuery {
        devices: Vec::new(),
        messages: Messages::default(),
    };
    for pair in pairs {
        match pair.as_rule() {
            Rule::device => {
                let mut device = QueryDevice {
                    header: DeviceHeader::default(),
                    configurations: Vec::new(),
                    messages: Messages::default(),
                };
                for part in pair.into_inner() {
                    match part.as_rule() {
                        Rule::configurations => {
                            let block = block(part, &mut device.messages);
                            device.configurations = parameters(TOOL, text, block)?;
                        }
                        _ => header_part(TOOL, text, part, &mut device.header)?,
                    }
                }
                query.devices.push(device);
            }
            Rule::configurations => {
                let mut messages = Messages::default();
                let block = block(pair, &mut messages);
                query.devices.push(QueryDevice {
                    header: DeviceHeader::default(),
                    configurations: parameters(TOOL, text, block)?,
                    messages,
                });
            }
            Rule::message => message(pair, &mut query.messages),
            _ => {}
        }
    }
    Ok(query)
}

/// Parses `mlxconfig [-y] set KEY=VALUE...` output: one device's, or several printed one
/// after the other (each `Device #N:` block after a prompt starts the next device's).
pub(super) fn parse_set(text: &str) -> Result<MlxconfigSet, ParseError> {
    const TOOL: &str = "mlxconfig-set";
    let pairs = MlxconfigParser::parse(Rule::mlxconfig_set, text)
        .map_err(|error| ParseError::from_pest(TOOL, text, &error))?;
    let mut runs: Vec<(MlxconfigSet, Vec<Block<'_>>)> = vec![(empty_set(), Vec::new())];
    let mut lines = crate::grammar::transcript::LineCounter::new(text);
    for pair in pairs {
        if pair.as_rule() == Rule::device
            && runs
                .last()
                .is_some_and(|(run, blocks)| run.header.number.is_some() || !blocks.is_empty())
        {
            runs.push((empty_set(), Vec::new()));
        }
        let Some((set, blocks)) = runs.last_mut() else {
            continue;
        };
        match pair.as_rule() {
            Rule::device => {
                for part in pair.into_inner() {
                    match part.as_rule() {
                        Rule::configurations => blocks.push(block(part, &mut set.messages)),
                        _ => header_part(TOOL, text, part, &mut set.header)?,
                    }
                }
            }
            Rule::configurations => blocks.push(block(pair, &mut set.messages)),
            Rule::apply_prompt => {
                set.answer = pair.into_inner().next().map(|a| a.as_str().to_owned());
            }
            Rule::answer_line if set.answer.is_none() => {
                set.answer = Some(pair.as_str().trim().to_owned());
            }
            Rule::applying => {
                set.applying = pair.into_inner().next().map(|r| r.as_str().to_owned());
            }
            Rule::message => {
                let line = lines.line_of(pair.as_span().start());
                let text = pair.as_str().trim();
                if set.error.is_none()
                    && let Some(words) = text.strip_prefix("-E-")
                {
                    let words = words.trim();
                    set.error = Some(crate::grammar::ToolError {
                        kind: if words.starts_with("Aborted by user") {
                            "aborted"
                        } else {
                            "tool"
                        }
                        .into(),
                        message: words.to_owned(),
                        line,
                    });
                }
                message(pair, &mut set.messages);
            }
            Rule::answer_line | Rule::other_line => set.other.push(crate::grammar::Message {
                line: lines.line_of(pair.as_span().start()),
                text: pair.as_str().trim().to_owned(),
            }),
            _ => {}
        }
    }
    let devices = runs
        .into_iter()
        .map(|(set, blocks)| finish_device(text, set, blocks))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(whole_output(devices))
}

/// One device's part of a set output, its table read and its outcome judged from its own
/// answer, `Applying` line and messages.
fn finish_device(
    text: &str,
    mut set: MlxconfigSet,
    blocks: Vec<Block<'_>>,
) -> Result<MlxconfigSet, ParseError> {
    const TOOL: &str = "mlxconfig-set";
    for block in blocks {
        // A query prints `Next Boot` alone; `set` always prints the `New` column.
        if !block.columns.contains(&"New") {
            return Err(ParseError::at(
                TOOL,
                text,
                block.start,
                "Configurations:".len(),
                "expected the `Next Boot  New` columns of `mlxconfig set` (this is a query)",
            ));
        }
        for (row, mut cells) in rows(TOOL, text, block, &["Next Boot", "New"])? {
            let next_boot = cells.remove("Next Boot");
            let new = cells.remove("New");
            set.configurations.push(SetParameter {
                name: row.name,
                next_boot,
                new,
            });
        }
    }
    let yes = set
        .answer
        .as_deref()
        .is_some_and(|a| a.eq_ignore_ascii_case("y") || a.eq_ignore_ascii_case("yes"));
    set.applied = yes
        && set
            .applying
            .as_deref()
            .is_some_and(|r| r.starts_with("Done"));
    set.reboot_required = set
        .messages
        .info
        .iter()
        .any(|line| line.to_ascii_lowercase().contains("reboot"));
    Ok(set)
}

/// The result of the whole output: the first device's fields, each device's output in
/// `devices`, and the outcome over all of them.
fn whole_output(devices: Vec<MlxconfigSet>) -> MlxconfigSet {
    let mut whole = devices.first().cloned().unwrap_or_else(empty_set);
    whole.applied = !devices.is_empty() && devices.iter().all(|d| d.applied);
    whole.reboot_required = devices.iter().any(|d| d.reboot_required);
    whole.error = devices.iter().find_map(|d| d.error.clone());
    whole.other = devices.iter().flat_map(|d| d.other.clone()).collect();
    whole.messages = Messages::default();
    for device in &devices {
        whole
            .messages
            .errors
            .extend(device.messages.errors.iter().cloned());
        whole
            .messages
            .warnings
            .extend(device.messages.warnings.iter().cloned());
        whole
            .messages
            .info
            .extend(device.messages.info.iter().cloned());
    }
    whole.devices = devices;
    whole
}

/// A set output before anything is read.
fn empty_set() -> MlxconfigSet {
    MlxconfigSet {
        header: DeviceHeader::default(),
        configurations: Vec::new(),
        answer: None,
        applying: None,
        applied: false,
        error: None,
        other: Vec::new(),
        reboot_required: false,
        messages: Messages::default(),
        devices: Vec::new(),
    }
}

/// Fills `header` from a `device_number` or `device_field` pair.
fn header_part(
    tool: &'static str,
    text: &str,
    part: Pair<'_, Rule>,
    header: &mut DeviceHeader,
) -> Result<(), ParseError> {
    match part.as_rule() {
        Rule::device_number => {
            let span = part.as_span();
            let number = span.as_str().parse().map_err(|_| {
                ParseError::at(
                    tool,
                    text,
                    span.start(),
                    span.as_str().len(),
                    "device number out of range",
                )
            })?;
            header.number = Some(number);
        }
        Rule::device_field => {
            let (label, value) = crate::grammar::label_value(part);
            let value = value.unwrap_or_default();
            match label {
                "Device type" => header.device_type = Some(value),
                "Name" => header.name = Some(value),
                "Description" => header.description = Some(value),
                "Device" => header.device = Some(value),
                other => {
                    header.other.insert(other.to_owned(), value);
                }
            }
        }
        _ => {}
    }
    Ok(())
}

/// Splits a `configurations` pair into its column titles, its rows and its messages.
fn block<'i>(pair: Pair<'i, Rule>, messages: &mut Messages) -> Block<'i> {
    let mut block = Block {
        start: pair.as_span().start() + (pair.as_str().len() - pair.as_str().trim_start().len()),
        columns: Vec::new(),
        rows: Vec::new(),
    };
    for part in pair.into_inner() {
        match part.as_rule() {
            Rule::column_title => block.columns.push(part.as_str()),
            Rule::parameter => {
                let line = part.clone();
                let mut row = Row {
                    line,
                    modified: false,
                    name: String::new(),
                    values: Vec::new(),
                };
                for cell in part.into_inner() {
                    match cell.as_rule() {
                        Rule::modified => row.modified = true,
                        Rule::parameter_name => row.name = cell.as_str().to_owned(),
                        Rule::value => row.values.push(cell),
                        _ => {}
                    }
                }
                block.rows.push(row);
            }
            Rule::message => message(part, messages),
            _ => {}
        }
    }
    block
}

/// The query parameters of a block: each cell goes to the column its title names.
fn parameters(
    tool: &'static str,
    text: &str,
    block: Block<'_>,
) -> Result<Vec<Parameter>, ParseError> {
    let mut parameters = Vec::new();
    for (row, mut cells) in rows(tool, text, block, &["Default", "Current", "Next Boot"])? {
        parameters.push(Parameter {
            name: row.name,
            modified: row.modified,
            default: cells.remove("Default"),
            current: cells.remove("Current"),
            next_boot: cells.remove("Next Boot"),
        });
    }
    Ok(parameters)
}

type Cells = BTreeMap<&'static str, ConfigValue>;

/// Pairs each row's cells with the block's column titles, which must all be in `allowed`.
fn rows<'i>(
    tool: &'static str,
    text: &str,
    block: Block<'i>,
    allowed: &[&'static str],
) -> Result<Vec<(Row<'i>, Cells)>, ParseError> {
    let mut titles = Vec::new();
    for title in &block.columns {
        match allowed.iter().find(|known| *known == title) {
            Some(known) => titles.push(*known),
            None => {
                let start = text.find("Configurations:").unwrap_or_default();
                return Err(ParseError::at(
                    tool,
                    text,
                    start,
                    "Configurations:".len(),
                    format!("this output cannot have a `{title}` column"),
                ));
            }
        }
    }
    let mut rows = Vec::new();
    for mut row in block.rows {
        if row.values.len() != titles.len() {
            let span = row.line.as_span();
            return Err(ParseError::at(
                tool,
                text,
                span.start(),
                span.as_str().trim_end().len(),
                format!(
                    "expected {} value(s) under `{}`, found {}",
                    titles.len(),
                    block.columns.join("`, `"),
                    row.values.len()
                ),
            ));
        }
        let mut cells = Cells::new();
        for (title, cell) in titles.iter().zip(std::mem::take(&mut row.values)) {
            cells.insert(title, config_value(tool, text, cell)?);
        }
        rows.push((row, cells));
    }
    Ok(rows)
}

/// One value cell: `LABEL(N)` split into label and number, or a plain value.
fn config_value(
    tool: &'static str,
    text: &str,
    cell: Pair<'_, Rule>,
) -> Result<ConfigValue, ParseError> {
    let printed = cell.as_str().to_owned();
    let Some(inner) = cell.into_inner().next() else {
        return Ok(ConfigValue {
            text: printed,
            label: None,
            number: None,
        });
    };
    match inner.as_rule() {
        Rule::labelled => {
            let mut label = None;
            let mut number = None;
            for part in inner.into_inner() {
                match part.as_rule() {
                    Rule::value_label => label = Some(part.as_str().to_owned()),
                    Rule::value_number => {
                        let span = part.as_span();
                        number = Some(span.as_str().parse().map_err(|_| {
                            ParseError::at(
                                tool,
                                text,
                                span.start(),
                                span.as_str().len(),
                                "number out of range",
                            )
                        })?);
                    }
                    _ => {}
                }
            }
            Ok(ConfigValue {
                text: printed,
                label,
                number,
            })
        }
        _ => {
            let number = if printed.bytes().all(|b| b.is_ascii_digit()) {
                printed.parse().ok()
            } else {
                None
            };
            Ok(ConfigValue {
                text: printed,
                label: None,
                number,
            })
        }
    }
}

/// Files a `-E-`, `-W-` or `-I-` line.
fn message(pair: Pair<'_, Rule>, messages: &mut Messages) {
    let Messages {
        errors,
        warnings,
        info,
    } = messages;
    crate::grammar::file_message(pair, errors, warnings, info);
}

#[cfg(test)]
mod tests {
    use pest::{consumes_to, parses_to};

    use super::{MlxconfigParser, Rule};

    #[test]
    fn a_labelled_value_splits_into_label_and_number() {
        parses_to! {
            parser: MlxconfigParser,
            input: "PCI_ATOMIC_DISABLED_EXT_ATOMIC_ENABLED(0)",
            rule: Rule::value,
            tokens: [value(0, 41, [labelled(0, 41, [value_label(0, 38), value_number(39, 40)])])]
        };
    }

    #[test]
    fn an_array_value_is_plain() {
        parses_to! {
            parser: MlxconfigParser,
            input: "Array[0..7]",
            rule: Rule::value,
            tokens: [value(0, 11, [plain(0, 11)])]
        };
    }

    #[test]
    fn the_modified_star_comes_before_the_name() {
        parses_to! {
            parser: MlxconfigParser,
            input: "*        KEEP_IB_LINK_UP_P2   False(0)  True(1)\n",
            rule: Rule::parameter,
            tokens: [parameter(0, 48, [
                modified(0, 1),
                parameter_name(9, 27),
                value(30, 38, [labelled(30, 38, [value_label(30, 35), value_number(36, 37)])]),
                value(40, 47, [labelled(40, 47, [value_label(40, 44), value_number(45, 46)])])
            ])]
        };
    }

    #[test]
    fn the_apply_prompt_is_not_a_parameter() {
        assert!(
            <MlxconfigParser as pest::Parser<Rule>>::parse(
                Rule::parameter,
                " Apply new Configuration? (y/n) [n] : y\n"
            )
            .is_err()
        );
    }

    #[test]
    fn line_ends_and_indentation_do_not_change_the_result() {
        let fixture = include_str!(
            "../../../tests/fixtures/mlxconfig-query/e-query-cx4-modified-nic-configuration-operator.txt"
        );
        let expected =
            super::parse_query(fixture.split_once('\n').map_or(fixture, |(_, rest)| rest));
        assert!(expected.is_ok());
        for text in crate::test_support::variants(fixture) {
            assert_eq!(
                super::parse_query(&text).ok(),
                expected.as_ref().ok().cloned(),
                "{text:?}"
            );
        }
    }

    /// The published `n` answer, changed only where a terminal session differs: the answer on a
    /// line of its own, then mlxconfig's `-E- Aborted by user.` (mstflint `mlxcfg_ui.cpp`,
    /// `askUser`), or `y` and the tool's apply lines.
    #[test]
    fn an_answer_on_its_own_line_and_an_answer_of_n() {
        let fixture = include_str!(
            "../../../tests/fixtures/mlxconfig-set/cx6dx-cqe-compression-answered-n.txt"
        );
        let head = fixture
            .split_once('\n')
            .map_or(fixture, |(_, rest)| rest)
            .trim_end_matches("n\n");
        let refused = super::parse_set(&format!("{head}\nn\n-E- Aborted by user.\n"))
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(refused.answer.as_deref(), Some("n"));
        assert!(!refused.applied);
        let error = refused.error.unwrap_or_else(|| panic!("no error"));
        assert_eq!((error.kind.as_str(), error.line), ("aborted", 16));
        let applied = super::parse_set(&format!(
            "{head}\ny\nApplying... Done!\n-I- Please reboot machine to load new configurations.\n"
        ))
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(applied.answer.as_deref(), Some("y"));
        assert!(applied.applied && applied.reboot_required && applied.error.is_none());
        let chatter = super::parse_set(&format!(
            "{head}\ny\nApplying... Done!\nConnection to host closed.\n"
        ))
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(chatter.other.len(), 1);
        assert_eq!(chatter.other[0].line, 17);
    }

    /// An admin's loop over devices: two published queries printed one after the other, each
    /// starting again at `Device #1:`, yield both devices.
    #[test]
    #[cfg_attr(not(shared_corpus), ignore = "skipped: ../shared/fixtures absent")]
    fn a_loop_over_devices_yields_every_query() {
        let first = include_str!(
            "../../../tests/fixtures/mlxconfig-query/e-query-cx4-modified-nic-configuration-operator.txt"
        );
        let second =
            crate::test_support::shared_fixture("mlxconfig", "query-cx3-error-failed-to-query");
        let body = |t: &str| crate::test_support::output_of(t).to_owned();
        let looped = format!("{}\n{}", body(first), body(&second));
        let query = super::parse_query(&looped).unwrap_or_else(|e| panic!("{e}"));
        let alone = super::parse_query(&body(first)).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(query.devices.len(), alone.devices.len() + 1);
        let last = query.devices.last().unwrap_or_else(|| panic!("no device"));
        assert_eq!(last.header.device_type.as_deref(), Some("ConnectX3"));
        assert_eq!(last.messages.errors.len(), 1);
    }

    /// A loop of `set` over two devices (the published Linux and ESXi transcripts one after the
    /// other): both devices' outputs, the first one's fields, and the outcome over both; and
    /// the ESXi prompt right after the last parameter, without a blank line before it.
    #[test]
    fn a_loop_of_set_yields_every_device_and_the_outcome_over_all() {
        let linux = include_str!(
            "../../../tests/fixtures/mlxconfig-set/cx6dx-cqe-compression-answered-n.txt"
        );
        let esxi = include_str!(
            "../../../tests/fixtures/mlxconfig-set/esxi-cx5-doubled-question-mark-smartx.txt"
        );
        let body = crate::test_support::output_of;
        let looped = format!("{}{}", body(esxi), body(linux));
        let set = super::parse_set(&looped).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(set.devices.len(), 2);
        assert_eq!(set.header.device.as_deref(), Some("mt4121_pciconf0"));
        assert!(set.devices[0].applied && !set.devices[1].applied);
        assert!(!set.applied, "the second device was answered n");
        assert_eq!(set.devices[1].answer.as_deref(), Some("n"));
        let tight = body(esxi).replace("NUM_OF_VFS 16 8\n \n", "NUM_OF_VFS 16 8\n");
        assert_ne!(tight, body(esxi));
        let set = super::parse_set(&tight).unwrap_or_else(|e| panic!("{e}"));
        assert!(set.applied && set.configurations.len() == 2, "{set:?}");
    }

    /// Before the prompt the device block stays strict: a stray line there is refused.
    #[test]
    fn a_stray_line_inside_the_device_block_is_refused() {
        let text = "Device #1:\n----------\n\nDevice type:    ConnectX6DX\nthis is not a field\n\nConfigurations:      Next Boot       New\n   CQE_COMPRESSION   AGGRESSIVE(1)   AGGRESSIVE(1)\n\n Apply new Configuration? (y/n) [n] : y\n";
        assert!(super::parse_set(text).is_err());
    }
}
