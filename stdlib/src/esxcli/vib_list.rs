//! `esxcli software vib list`, with its titles or `grep`ped.

use super::grammar::{self, Rule};
use super::types::Vib;
use crate::ParseError;

const TOOL: &str = "esxcli-vib-list";

/// Parses `esxcli software vib list` output, whole or `grep`ped (rows without titles).
pub(super) fn parse(text: &str) -> Result<Vec<Vib>, ParseError> {
    let mut vibs = Vec::new();
    for pair in grammar::parse(TOOL, Rule::vib_list, text)? {
        match pair.as_rule() {
            Rule::vib_table => {
                let table = grammar::table(TOOL, text, pair)?;
                for row in &table.rows {
                    vibs.push(vib(text, row, table.cells(row))?);
                }
            }
            Rule::vib_row => {
                let cells = pair
                    .clone()
                    .into_inner()
                    .map(|cell| cell.as_str().to_owned())
                    .collect();
                vibs.push(vib(text, &pair, cells)?);
            }
            _ => {}
        }
    }
    Ok(vibs)
}

fn vib(
    text: &str,
    row: &pest::iterators::Pair<'_, Rule>,
    cells: Vec<String>,
) -> Result<Vib, ParseError> {
    let mut cells = cells.into_iter();
    let mut next = || cells.next().filter(|cell| !cell.is_empty());
    let (Some(name), Some(version), Some(vendor), Some(acceptance_level), Some(install_date)) =
        (next(), next(), next(), next(), next())
    else {
        return Err(grammar::error_at(
            TOOL,
            text,
            row,
            "expected Name, Version, Vendor, Acceptance Level and Install Date in this row",
        ));
    };
    Ok(Vib {
        name,
        version,
        vendor,
        acceptance_level,
        install_date,
        platforms: next(),
    })
}
