//! `esxcli network nic list`.

use std::str::FromStr;

use pest::iterators::Pair;

use super::grammar::{self, Rule, Table};
use super::types::Nic;
use crate::ParseError;

const TOOL: &str = "esxcli-nic-list";

/// Parses `esxcli network nic list` output.
pub(super) fn parse(text: &str) -> Result<Vec<Nic>, ParseError> {
    let mut nics = Vec::new();
    let tables = grammar::parse(TOOL, Rule::nic_list, text)?;
    for table in tables.filter(|p| p.as_rule() == Rule::nic_table) {
        let table = grammar::table(TOOL, text, table)?;
        for row in &table.rows {
            nics.push(nic(text, row, &table)?);
        }
    }
    Ok(nics)
}

fn nic(text: &str, row: &Pair<'_, Rule>, table: &Table<'_>) -> Result<Nic, ParseError> {
    let mut nic = Nic {
        name: String::new(),
        pci_device: None,
        driver: None,
        admin_status: None,
        link_status: None,
        speed: None,
        duplex: None,
        mac_address: None,
        mtu: None,
        description: None,
    };
    for (title, cell) in table.titles.iter().zip(table.cells(row)) {
        let value = Some(cell.clone()).filter(|c| !c.is_empty());
        match *title {
            "Name" => nic.name = cell,
            "PCI Device" => nic.pci_device = value,
            "Driver" => nic.driver = value,
            "Admin Status" => nic.admin_status = value,
            "Link Status" | "Link" => nic.link_status = value,
            "Speed" => nic.speed = number(text, row, title, value)?,
            "Duplex" => nic.duplex = value,
            "MAC Address" => nic.mac_address = value,
            "MTU" => nic.mtu = number(text, row, title, value)?,
            _ => nic.description = value,
        }
    }
    if nic.name.is_empty() {
        return Err(grammar::error_at(
            TOOL,
            text,
            row,
            "expected a NIC name in the first column",
        ));
    }
    Ok(nic)
}

fn number<T: FromStr>(
    text: &str,
    row: &Pair<'_, Rule>,
    title: &str,
    cell: Option<String>,
) -> Result<Option<T>, ParseError> {
    cell.map(|cell| {
        cell.parse().map_err(|_| {
            grammar::error_at(
                TOOL,
                text,
                row,
                format!("`{cell}` under `{title}` is not a number"),
            )
        })
    })
    .transpose()
}
