//! `esxcli hardware pci pcipassthru list`.

use super::grammar::{self, Rule};
use super::types::PciPassthru;
use crate::ParseError;

const TOOL: &str = "esxcli-pcipassthru-list";

/// Parses `esxcli hardware pci pcipassthru list` output.
pub(super) fn parse(text: &str) -> Result<Vec<PciPassthru>, ParseError> {
    let mut devices = Vec::new();
    let tables = grammar::parse(TOOL, Rule::pcipassthru_list, text)?;
    for table in tables.filter(|p| p.as_rule() == Rule::pcipassthru_table) {
        let table = grammar::table(TOOL, text, table)?;
        for row in &table.rows {
            let mut cells = table.cells(row).into_iter();
            let device_id = cells.next().unwrap_or_default();
            let enabled = match cells.next().as_deref() {
                Some("true") => true,
                Some("false") => false,
                _ => {
                    return Err(grammar::error_at(
                        TOOL,
                        text,
                        row,
                        "expected `true` or `false` under `Enabled`",
                    ));
                }
            };
            if device_id.is_empty() {
                return Err(grammar::error_at(
                    TOOL,
                    text,
                    row,
                    "expected a PCI address under `Device ID`",
                ));
            }
            devices.push(PciPassthru { device_id, enabled });
        }
    }
    Ok(devices)
}
