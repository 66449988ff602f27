//! The `ibdiagnet2.db_csv` reader: one pass over the lines. The file is a run of sections, each
//! `START_<NAME>`, a header row naming the columns, data rows, `END_<NAME>`. Columns are found
//! by their header name (ibdiagnet versions add columns), so a missing column the check needs
//! is an error at the header row, a cell that is not a number an error at the cell.

use std::collections::BTreeMap;

use super::types::{
    DbCsv, Link, Node, Port, PortCounters, SmInfo, Span, node_kind, phys_state, port_state,
    sm_state, speed_name, width_name,
};
use crate::ParseError;

/// The name `cairn parse` knows the parser by.
pub(crate) const TOOL: &str = "ibdiagnet-db-csv";

/// One cell: its text (quotes removed) and where it was.
struct Cell<'a> {
    text: &'a str,
    offset: usize,
}

/// One section as read: its header cells and rows, each row's cells and span.
struct Section<'a> {
    header: Vec<Cell<'a>>,
    header_span: Span,
    rows: Vec<(Vec<Cell<'a>>, Span)>,
}

/// Splits one line (at `offset` in the file) at commas outside double quotes.
fn cells(line: &str, offset: usize) -> Vec<Cell<'_>> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut quoted = false;
    for (i, c) in line.char_indices() {
        match c {
            '"' => quoted = !quoted,
            ',' if !quoted => {
                out.push(cell(line, start, i, offset));
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(cell(line, start, line.len(), offset));
    out
}

fn cell(line: &str, start: usize, end: usize, offset: usize) -> Cell<'_> {
    let raw = &line[start..end];
    let trimmed = raw.trim();
    let lead = raw.len() - raw.trim_start().len();
    let text = trimmed
        .strip_prefix('"')
        .and_then(|t| t.strip_suffix('"'))
        .unwrap_or(trimmed);
    Cell {
        text,
        offset: offset + start + lead,
    }
}

/// Reads a whole `ibdiagnet2.db_csv`.
///
/// Claims: `START_<NAME>` ... `END_<NAME>` sections, each with its header row; a line outside a
/// section that is not one is refused.
pub fn parse(text: &str) -> Result<DbCsv, ParseError> {
    // Why long: one state machine over the file's lines (outside a section, its header, its rows, its END_), each state's error at its line.
    let mut sections: BTreeMap<&str, Section<'_>> = BTreeMap::new();
    let mut names = Vec::new();
    // The open section: its name, where START_ was, and what it has so far.
    let mut open: Option<(&str, Span, Option<Section<'_>>)> = None;
    let mut offset = 0;
    for raw in text.split_inclusive('\n') {
        let line_offset = offset;
        offset += raw.len();
        let line = raw.trim_end_matches(['\n', '\r']);
        let span = Span {
            offset: line_offset,
            len: line.len(),
        };
        if line.trim().is_empty() {
            continue;
        }
        match &mut open {
            None => {
                if let Some(name) = line.trim().strip_prefix("START_") {
                    open = Some((name, span, None));
                    names.push(name.to_owned());
                } else if !line.starts_with('#') {
                    return Err(at(text, span, "expected `START_<SECTION>`"));
                }
            }
            Some((name, start, section)) => {
                if let Some(end) = line.trim().strip_prefix("END_") {
                    if end != *name {
                        return Err(at(text, span, format!("expected `END_{name}`")));
                    }
                    let Some(done) = section.take() else {
                        return Err(at(
                            text,
                            *start,
                            format!("section {name} has no header row"),
                        ));
                    };
                    sections.insert(*name, done);
                    open = None;
                } else if line.starts_with("START_") {
                    return Err(at(text, span, format!("expected `END_{name}` first")));
                } else if let Some(section) = section {
                    section.rows.push((cells(line, line_offset), span));
                } else {
                    *section = Some(Section {
                        header: cells(line, line_offset),
                        header_span: span,
                        rows: Vec::new(),
                    });
                }
            }
        }
    }
    if let Some((name, start, _)) = open {
        return Err(at(
            text,
            start,
            format!("section {name} has no `END_{name}`"),
        ));
    }
    let Some(nodes) = sections.get("NODES") else {
        return Err(ParseError::at(
            TOOL,
            text,
            0,
            text.lines().next().map_or(0, str::len),
            "no START_NODES section: not an ibdiagnet2.db_csv",
        ));
    };
    let mut db = DbCsv {
        sections: names,
        ..DbCsv::default()
    };
    let table = Table::new(text, "NODES", nodes);
    let [desc, count, kind, guid] =
        table.columns(["NodeDesc", "NumPorts", "NodeType", "NodeGUID"])?;
    for row in table.rows() {
        let code = row.number(kind)?;
        db.nodes.push(Node {
            guid: row.guid(guid)?,
            description: row.text(desc)?.to_owned(),
            kind: node_kind(code)
                .ok_or_else(|| row.bad(kind, "a NodeType of 1, 2 or 3"))?
                .to_owned(),
            port_count: row.small(count)?,
            span: row.span,
        });
    }
    if let Some(section) = sections.get("PORTS") {
        let table = Table::new(text, "PORTS", section);
        let [node, pguid, num, lid, width, speed, state, phys] = table.columns([
            "NodeGuid",
            "PortGuid",
            "PortNum",
            "LID",
            "LinkWidthActv",
            "LinkSpeedActv",
            "PortState",
            "PortPhyState",
        ])?;
        for row in table.rows() {
            db.ports.push(Port {
                node_guid: row.guid(node)?,
                port_guid: row.guid(pguid)?,
                port: row.small(num)?,
                lid: row.small(lid)?,
                width: width_name(row.number(width)?).map(str::to_owned),
                speed: speed_name(row.number(speed)?).map(str::to_owned),
                state: port_state(row.number(state)?).to_owned(),
                phys_state: phys_state(row.number(phys)?).to_owned(),
                span: row.span,
            });
        }
    }
    if let Some(section) = sections.get("LINKS") {
        let table = Table::new(text, "LINKS", section);
        let [g1, p1, g2, p2] = table.columns(["NodeGuid1", "PortNum1", "NodeGuid2", "PortNum2"])?;
        for row in table.rows() {
            db.links.push(Link {
                node_guid1: row.guid(g1)?,
                port1: row.small(p1)?,
                node_guid2: row.guid(g2)?,
                port2: row.small(p2)?,
                span: row.span,
            });
        }
    }
    if let Some(section) = sections.get("SM_INFO") {
        let table = Table::new(text, "SM_INFO", section);
        let [guid, port, state, priority] =
            table.columns(["NodeGUID", "PortNumber", "SmState", "Priority"])?;
        for row in table.rows() {
            let code = row.number(state)?;
            db.subnet_managers.push(SmInfo {
                node_guid: row.guid(guid)?,
                port: row.small(port)?,
                state: sm_state(code)
                    .ok_or_else(|| row.bad(state, "an SmState of 0 to 3"))?
                    .to_owned(),
                priority: row.small(priority)?,
                span: row.span,
            });
        }
    }
    if let Some(section) = sections.get("PM_INFO") {
        let table = Table::new(text, "PM_INFO", section);
        let [guid, port] = table.columns(["NodeGUID", "PortNumber"])?;
        let skip = table.index_of("PortGUID");
        for row in table.rows() {
            let mut values = BTreeMap::new();
            for (i, name) in section.header.iter().enumerate() {
                if i == guid || i == port || Some(i) == skip {
                    continue;
                }
                let cell = row.cell(i)?;
                if cell.text == "N/A" || cell.text.is_empty() {
                    continue;
                }
                values.insert(name.text.to_owned(), row.number(i)?);
            }
            db.counters.push(PortCounters {
                node_guid: row.guid(guid)?,
                port: row.small(port)?,
                values,
                span: row.span,
            });
        }
    }
    Ok(db)
}

fn at(text: &str, span: Span, message: impl Into<String>) -> ParseError {
    ParseError::at(TOOL, text, span.offset, span.len.max(1), message)
}

/// A section with its column lookup.
struct Table<'s, 'a> {
    text: &'a str,
    name: &'static str,
    section: &'s Section<'a>,
}

impl<'s, 'a> Table<'s, 'a> {
    fn new(text: &'a str, name: &'static str, section: &'s Section<'a>) -> Self {
        Self {
            text,
            name,
            section,
        }
    }

    fn index_of(&self, column: &str) -> Option<usize> {
        self.section.header.iter().position(|c| c.text == column)
    }

    /// The indexes of the named columns; a missing one is an error at the header row.
    fn columns<const N: usize>(&self, names: [&str; N]) -> Result<[usize; N], ParseError> {
        let mut out = [0; N];
        for (slot, name) in out.iter_mut().zip(names) {
            *slot = self.index_of(name).ok_or_else(|| {
                at(
                    self.text,
                    self.section.header_span,
                    format!("the {} header has no column `{name}`", self.name),
                )
            })?;
        }
        Ok(out)
    }

    fn rows(&self) -> impl Iterator<Item = Row<'_, 'a>> {
        self.section.rows.iter().map(|(cells, span)| Row {
            text: self.text,
            section: self.name,
            cells,
            span: *span,
            width: self.section.header.len(),
        })
    }
}

/// One data row.
struct Row<'r, 'a> {
    text: &'a str,
    section: &'static str,
    cells: &'r [Cell<'a>],
    span: Span,
    width: usize,
}

impl<'a> Row<'_, 'a> {
    fn cell(&self, i: usize) -> Result<&Cell<'a>, ParseError> {
        self.cells.get(i).ok_or_else(|| {
            at(
                self.text,
                self.span,
                format!(
                    "a {} row of {} cells, as its header has (this one has {})",
                    self.section,
                    self.width,
                    self.cells.len()
                ),
            )
        })
    }

    fn text(&self, i: usize) -> Result<&'a str, ParseError> {
        Ok(self.cell(i)?.text)
    }

    fn bad(&self, i: usize, expected: &str) -> ParseError {
        match self.cells.get(i) {
            Some(c) => ParseError::at(
                TOOL,
                self.text,
                c.offset,
                c.text.len().max(1),
                format!("expected {expected} in {}", self.section),
            ),
            None => at(self.text, self.span, format!("expected {expected}")),
        }
    }

    /// A decimal or `0x` hexadecimal number.
    fn number(&self, i: usize) -> Result<u64, ParseError> {
        let t = self.text(i)?;
        let parsed = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
            Some(hex) => u64::from_str_radix(hex, 16).ok(),
            None => t.parse().ok(),
        };
        parsed.ok_or_else(|| self.bad(i, "a number"))
    }

    fn small(&self, i: usize) -> Result<u32, ParseError> {
        let n = self.number(i)?;
        u32::try_from(n).map_err(|_| self.bad(i, "a number under 2^32"))
    }

    /// A GUID, `0x` and 16 hex digits at most, kept as 16 lowercase digits.
    fn guid(&self, i: usize) -> Result<String, ParseError> {
        let t = self.text(i)?;
        let hex = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X"));
        match hex {
            Some(h)
                if !h.is_empty() && h.len() <= 16 && h.chars().all(|c| c.is_ascii_hexdigit()) =>
            {
                Ok(format!("{:0>16}", h.to_ascii_lowercase()))
            }
            _ => Err(self.bad(i, "a GUID (0x and hex digits)")),
        }
    }
}
