//! The pest parser of `esxcli.pest`, and the split of table rows at the columns of the dashes.

use pest::Parser;
use pest::iterators::{Pair, Pairs};

use crate::ParseError;
use crate::grammar::column_cursor::ColumnCursor;

/// The pest parser of `esxcli.pest`.
#[derive(pest_derive::Parser)]
#[grammar = "src/grammar/esxcli/esxcli.pest"]
pub(crate) struct EsxcliParser;

/// Parses `text` from `rule`, or says where it stops being `tool`'s output.
pub(crate) fn parse<'i>(
    tool: &'static str,
    rule: Rule,
    text: &'i str,
) -> Result<Pairs<'i, Rule>, ParseError> {
    EsxcliParser::parse(rule, text).map_err(|error| ParseError::from_pest(tool, text, &error))
}

/// An error about the text of `pair`, found after the grammar matched.
pub(crate) fn error_at(
    tool: &'static str,
    text: &str,
    pair: &Pair<'_, Rule>,
    message: impl Into<String>,
) -> ParseError {
    let span = pair.as_span();
    ParseError::at(tool, text, span.start(), span.as_str().len(), message)
}

/// A table: its column titles, where its columns start, and its rows.
pub(crate) struct Table<'i> {
    /// The titles, in order.
    pub(crate) titles: Vec<&'i str>,
    /// The first character of each column (0-based, in characters from the start of a line).
    pub(crate) columns: Vec<usize>,
    /// The rows, from the start of their lines.
    pub(crate) rows: Vec<Pair<'i, Rule>>,
}

impl Table<'_> {
    /// The cells of `row`, one per column, trimmed.
    pub(crate) fn cells(&self, row: &Pair<'_, Rule>) -> Vec<String> {
        split_row(row.as_str(), &self.columns)
    }
}

/// Reads a `*_table` pair: columns start at the dash runs, or at the titles when a `grep`
/// dropped the dashes.
pub(crate) fn table<'i>(
    tool: &'static str,
    text: &str,
    pair: Pair<'i, Rule>,
) -> Result<Table<'i>, ParseError> {
    let mut cursor = ColumnCursor::new(text);
    let mut table = Table {
        titles: Vec::new(),
        columns: Vec::new(),
        rows: Vec::new(),
    };
    for part in pair.into_inner() {
        match part.as_rule() {
            Rule::dashes => {
                let runs: Vec<usize> = part
                    .clone()
                    .into_inner()
                    .map(|run| cursor.column(run.as_span().start()))
                    .collect();
                if runs.len() != table.titles.len() {
                    return Err(error_at(
                        tool,
                        text,
                        &part,
                        format!(
                            "expected {} runs of dashes, one per column title",
                            table.titles.len()
                        ),
                    ));
                }
                table.columns = runs;
            }
            Rule::table_row => table.rows.push(part),
            Rule::vib_titles
            | Rule::parameters_titles
            | Rule::nic_titles
            | Rule::pcipassthru_titles => {
                for title in part.into_inner() {
                    table.columns.push(cursor.column(title.as_span().start()));
                    table.titles.push(title.as_str());
                }
            }
            _ => {}
        }
    }
    Ok(table)
}

/// Splits a row (from the start of its line) into one trimmed cell per column. A cell wider
/// than its dashes pushes the next boundary right, to the next blank, rather than be cut.
fn split_row(row: &str, columns: &[usize]) -> Vec<String> {
    let chars: Vec<char> = row.chars().collect();
    let mut bounds = Vec::with_capacity(columns.len() + 1);
    for (index, &column) in columns.iter().enumerate() {
        let mut at = if index == 0 {
            0
        } else {
            column.min(chars.len())
        };
        while at > 0
            && at < chars.len()
            && !chars.get(at - 1).is_some_and(|c| c.is_whitespace())
            && !chars.get(at).is_some_and(|c| c.is_whitespace())
        {
            at += 1;
        }
        let floor = bounds.last().copied().unwrap_or(0);
        bounds.push(at.max(floor));
    }
    bounds.push(chars.len());
    bounds
        .windows(2)
        .map(|pair| match pair {
            [start, end] => chars
                .get(*start..*end)
                .unwrap_or_default()
                .iter()
                .collect::<String>(),
            _ => String::new(),
        })
        .map(|cell| cell.trim().to_owned())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::split_row;

    #[test]
    fn cells_follow_the_dash_columns_and_may_be_empty() {
        let cells = split_row(
            "DRSS    int                 Number of queues",
            &[0, 8, 21, 28],
        );
        assert_eq!(cells, ["DRSS", "int", "", "Number of queues"]);
    }

    #[test]
    fn a_cell_wider_than_its_dashes_is_not_cut() {
        let cells = split_row("0000:02:00.0    true", &[0, 14]);
        assert_eq!(cells, ["0000:02:00.0", "true"]);
        let cells = split_row("abcdefgh xy", &[0, 4]);
        assert_eq!(cells, ["abcdefgh", "xy"]);
    }

    #[test]
    fn line_ends_and_indentation_do_not_change_the_result() {
        let fixture = include_str!(
            "../../../../tests/fixtures/esxcli-nic-list/esxi-cx4lx-nmlx5-dell-asm-util.txt"
        );
        let text = fixture.split_once('\n').map_or(fixture, |(_, rest)| rest);
        let expected = super::super::nic_list::parse(text).ok();
        assert!(expected.as_ref().is_some_and(|nics| nics.len() == 9));
        let variants = [
            text.replace('\n', "\r\n"),
            text.trim_end_matches('\n').to_owned(),
            text.lines()
                .map(|line| format!(" {line}\n"))
                .collect::<String>(),
        ];
        for variant in variants {
            assert_eq!(
                super::super::nic_list::parse(&variant).ok(),
                expected,
                "{variant:?}"
            );
        }
    }
}
