//! `esxcli network nic list`: read by `esxcli::nic_list` and by `mst`'s check mode (the ports mst
//! would list before MFT is installed), so layer 1. Registered in `esxcli`'s row of the table.

use std::str::FromStr;

use pest::iterators::Pair;
use serde::{Deserialize, Serialize};

use super::grammar::{self, Rule, Table};
use crate::ParseError;

const TOOL: &str = "esxcli-nic-list";

/// `esxcli network nic list`: the command line whose output [`parse`] reads.
pub(crate) const COMMAND: &[&str] = &["esxcli", "network", "nic", "list"];

/// One row of `esxcli network nic list`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Nic {
    /// `Name` (`vmnic2`).
    pub name: String,
    /// `PCI Device` (`0000:5e:00.0`, or `Pseudo` for a software NIC).
    pub pci_device: Option<String>,
    /// `Driver` (`nmlx5_core`).
    pub driver: Option<String>,
    /// `Admin Status` (`Up`, `Down`).
    pub admin_status: Option<String>,
    /// `Link Status` (`Up`, `Down`); `Link` on older releases.
    pub link_status: Option<String>,
    /// `Speed`, in Mb/s (0 when the link is down).
    pub speed: Option<u64>,
    /// `Duplex` (`Full`, `Half`).
    pub duplex: Option<String>,
    /// `MAC Address` (`b8:ce:f6:dc:74:22`).
    pub mac_address: Option<String>,
    /// `MTU`, in bytes.
    pub mtu: Option<u32>,
    /// `Description` (`Mellanox Technologies ConnectX-4 Lx EN NIC; ...`).
    pub description: Option<String>,
}

/// Parses `esxcli network nic list` output.
pub(crate) fn parse(text: &str) -> Result<Vec<Nic>, ParseError> {
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
