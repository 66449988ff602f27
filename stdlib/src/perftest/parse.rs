//! Walks the perftest parse tree into [`PerftestRun`].

use std::collections::BTreeMap;

use pest::Parser as _;
use pest::iterators::Pair;

use super::types::{PerftestError, PerftestHeader, PerftestRow, PerftestRun, QpAddress};
use crate::ParseError;

const TOOL: &str = "perftest";

#[derive(pest_derive::Parser)]
#[grammar = "src/perftest/perftest.pest"]
struct PerftestParser;

/// Parses the output of one perftest run.
///
/// What makes an output perftest's: its banner (a `... BW Test` or `... Latency Test` title);
/// or, without one, an error line together with a line of its own (the server's `Waiting for
/// client to connect...` box, a set-up line such as `initializing CUDA`, or an error of a kind
/// perftest is known to print: `Couldn't allocate MR`, `Couldn't connect to host:port`, ...).
/// Other lines of such an output are messages; anything else is refused.
pub(super) fn parse(text: &str) -> Result<PerftestRun, ParseError> {
    let refused = || {
        let first_line = text.find('\n').unwrap_or(text.len());
        ParseError::at(
            TOOL,
            text,
            0,
            first_line,
            "expected perftest output: a dashed rule and a `... BW Test` or `... Latency Test` \
             title, or perftest error messages",
        )
    };
    let mut pairs = PerftestParser::parse(Rule::perftest, text).map_err(|_| refused())?;
    let mut walk = Walk::new(text);
    let mut failure = false;
    if let Some(root) = pairs.next() {
        for part in root.into_inner() {
            failure |= part.as_rule() == Rule::failure;
            for pair in part.into_inner() {
                walk.line(pair)?;
            }
        }
    }
    let run = walk.finish();
    // Without a banner, an error and a line of perftest's own make it perftest's.
    let own = |run: &PerftestRun| {
        run.error.as_ref().is_some_and(|error| {
            run.side.is_some()
                || run.messages.iter().any(|m| is_setup(m))
                || error.lines.iter().any(|line| is_own_error(line))
        })
    };
    if failure && !own(&run) {
        return Err(refused());
    }
    Ok(run)
}

/// Whether an error line is one perftest prints: of a kind only a verbs test meets (a connection,
/// the QP states, rdma_cm, memory registration, the GPU, completions), or its device lookup
/// (`src/perftest_resources.c`, `src/perftest_parameters.c`). "device" and "other" alone are
/// any tool's words (`-E- Failed to query device`, `ibpanic: ... stat of IB device`).
fn is_own_error(line: &str) -> bool {
    const DEVICE: [&str; 3] = [
        "No IB devices found",
        "Unable to find the Infiniband/RoCE device",
        "Couldn't get context for the device",
    ];
    let kind = error_kind(line);
    (kind != "other" && kind != "device")
        || DEVICE.iter().any(|words| line.contains(words))
        || line.starts_with("IB device ") && line.ends_with(" not found")
}

/// Whether a message is one of the set-up lines perftest prints before its banner.
fn is_setup(message: &str) -> bool {
    PerftestParser::parse(Rule::setup_line, message).is_ok()
}

/// What a column of the results table holds.
#[derive(Clone, Copy)]
enum Column {
    Bytes,
    Sl,
    Iterations,
    BwPeak(Unit),
    BwAverage(Unit),
    BwPort(u8, Unit),
    MsgRate,
    MsgRatePort(u8),
    TMin,
    TMax,
    TTypical,
    TAvg,
    TStdev,
    P99,
    P99_9,
    Tps,
    CpuUtil,
}

/// A bandwidth unit.
#[derive(Clone, Copy)]
enum Unit {
    Gbps,
    Mbps,
    Mibps,
}

impl Unit {
    fn suffix(self) -> &'static str {
        match self {
            Unit::Gbps => "gbps",
            Unit::Mbps => "mbps",
            Unit::Mibps => "mibps",
        }
    }
}

impl Column {
    fn name(self) -> String {
        match self {
            Column::Bytes => "bytes".to_owned(),
            Column::Sl => "sl".to_owned(),
            Column::Iterations => "iterations".to_owned(),
            Column::BwPeak(unit) => format!("bw_peak_{}", unit.suffix()),
            Column::BwAverage(unit) => format!("bw_average_{}", unit.suffix()),
            Column::BwPort(port, unit) => format!("bw_port{port}_{}", unit.suffix()),
            Column::MsgRate => "msg_rate_mpps".to_owned(),
            Column::MsgRatePort(port) => format!("msg_rate_port{port}_mpps"),
            Column::TMin => "t_min_usec".to_owned(),
            Column::TMax => "t_max_usec".to_owned(),
            Column::TTypical => "t_typical_usec".to_owned(),
            Column::TAvg => "t_avg_usec".to_owned(),
            Column::TStdev => "t_stdev_usec".to_owned(),
            Column::P99 => "p99_usec".to_owned(),
            Column::P99_9 => "p99_9_usec".to_owned(),
            Column::Tps => "tps_average".to_owned(),
            Column::CpuUtil => "cpu_util_percent".to_owned(),
        }
    }
}

/// Which address line a `GID:` line belongs to.
#[derive(Clone, Copy, PartialEq)]
enum Side {
    Local,
    Remote,
}

struct Walk<'t> {
    text: &'t str,
    run: PerftestRun,
    columns: Vec<Column>,
    last_address: Option<Side>,
    waiting_for_client: bool,
    error_lines: Vec<String>,
    /// The line number of the first error line.
    first_error_line: Option<usize>,
}

impl<'t> Walk<'t> {
    fn new(text: &'t str) -> Self {
        Walk {
            text,
            run: PerftestRun {
                test: None,
                kind: None,
                side: None,
                header: empty_header(),
                local: Vec::new(),
                remote: Vec::new(),
                columns: Vec::new(),
                rows: Vec::new(),
                warnings: Vec::new(),
                messages: Vec::new(),
                error: None,
            },
            columns: Vec::new(),
            last_address: None,
            waiting_for_client: false,
            error_lines: Vec::new(),
            first_error_line: None,
        }
    }

    /// Takes one line-level pair of the run (or of the failure).
    fn line(&mut self, pair: Pair<'t, Rule>) -> Result<(), ParseError> {
        match pair.as_rule() {
            Rule::banner => {
                for inner in pair.into_inner() {
                    self.line(inner)?;
                }
            }
            Rule::title_line => {
                let title = pair.as_str().trim().to_owned();
                self.run.kind = if title.contains("BW") {
                    Some("bw".to_owned())
                } else if title.contains("Latency") {
                    Some("lat".to_owned())
                } else {
                    None
                };
                self.run.test = Some(title);
            }
            Rule::kv_line => {
                for kv in pair.into_inner() {
                    let mut inner = kv.into_inner();
                    if let (Some(key), Some(value)) = (inner.next(), inner.next()) {
                        self.setting(key.as_str(), &value)?;
                    }
                }
            }
            Rule::note_line => self.run.messages.push(pair.as_str().trim().to_owned()),
            Rule::address_line => self.address(pair)?,
            Rule::gid_line => {
                let gid = pair.into_inner().next().map(|p| p.as_str().to_owned());
                let list = match self.last_address {
                    Some(Side::Local) => self.run.local.last_mut(),
                    Some(Side::Remote) => self.run.remote.last_mut(),
                    None => None,
                };
                if let Some(address) = list {
                    address.gid = gid;
                }
            }
            Rule::table => self.table(pair)?,
            Rule::star_line if pair.as_str().contains("Waiting for client") => {
                self.waiting_for_client = true;
            }
            Rule::warning_line => self.run.warnings.push(pair.as_str().trim().to_owned()),
            Rule::error_line => {
                if self.error_lines.is_empty() {
                    self.first_error_line = Some(line_of(self.text, pair.as_span().start()));
                }
                self.error_lines.push(pair.as_str().trim().to_owned());
            }
            Rule::setup_line => self.run.messages.push(pair.as_str().trim().to_owned()),
            Rule::message_line => {
                let message = pair.as_str().trim().to_owned();
                if message.contains("Waiting for client") {
                    self.waiting_for_client = true;
                }
                self.run.messages.push(message);
            }
            _ => {}
        }
        Ok(())
    }

    /// One `key : value` banner setting.
    fn setting(&mut self, key: &str, value: &Pair<'t, Rule>) -> Result<(), ParseError> {
        let raw = value.as_str();
        let header = &mut self.run.header;
        let text = Some(raw.to_owned());
        match snake_case(key).as_str() {
            "dual_port" => header.dual_port = text,
            "device" => header.device = text,
            "number_of_qps" => header.number_of_qps = Some(setting_number(self.text, value)?),
            "transport_type" => header.transport_type = text,
            "connection_type" => header.connection_type = text,
            "using_srq" => header.using_srq = text,
            "pcie_relax_order" => header.pcie_relax_order = text,
            "ibv_wr_api" => header.ibv_wr_api = text,
            "tx_depth" => header.tx_depth = Some(setting_number(self.text, value)?),
            "rx_depth" => header.rx_depth = Some(setting_number(self.text, value)?),
            "cq_moderation" => header.cq_moderation = Some(setting_number(self.text, value)?),
            "mtu" => header.mtu_bytes = Some(setting_number(self.text, value)?),
            "link_type" => header.link_type = text,
            "gid_index" => header.gid_index = Some(setting_number(self.text, value)?),
            "max_inline_data" => {
                header.max_inline_data_bytes = Some(setting_number(self.text, value)?);
            }
            "outstand_reads" => header.outstand_reads = Some(setting_number(self.text, value)?),
            "rdma_cm_qps" => header.rdma_cm_qps = text,
            "data_ex_method" => header.data_ex_method = text,
            "tos" => header.tos = Some(setting_number(self.text, value)?),
            other => {
                header.other.insert(other.to_owned(), raw.to_owned());
            }
        }
        Ok(())
    }

    fn address(&mut self, pair: Pair<'t, Rule>) -> Result<(), ParseError> {
        let mut address = QpAddress {
            lid: None,
            qpn: None,
            psn: None,
            out_reads: None,
            rkey: None,
            vaddr: None,
            gid: None,
        };
        let mut side = Side::Local;
        for part in pair.into_inner() {
            match part.as_rule() {
                Rule::address_side if part.as_str() == "remote" => side = Side::Remote,
                Rule::address_field => {
                    let mut inner = part.into_inner();
                    let (Some(key), Some(value)) = (inner.next(), inner.next()) else {
                        continue;
                    };
                    let owned = Some(value.as_str().to_owned());
                    match key.as_str() {
                        "LID" => address.lid = Some(hex_lid(self.text, &value)?),
                        "QPN" => address.qpn = owned,
                        "PSN" => address.psn = owned,
                        "OUT" => address.out_reads = owned,
                        "RKey" => address.rkey = owned,
                        "VAddr" => address.vaddr = owned,
                        _ => {}
                    }
                }
                _ => {}
            }
        }
        match side {
            Side::Local => self.run.local.push(address),
            Side::Remote => self.run.remote.push(address),
        }
        self.last_address = Some(side);
        Ok(())
    }

    fn table(&mut self, table: Pair<'t, Rule>) -> Result<(), ParseError> {
        for part in table.into_inner() {
            match part.as_rule() {
                Rule::column_header => {
                    self.columns = part.into_inner().map(column).collect();
                    self.run.columns = self.columns.iter().map(|c| c.name()).collect();
                }
                Rule::row => {
                    let row = self.row(part)?;
                    self.run.rows.push(row);
                }
                Rule::table_note => {
                    let note = part.as_str().trim().to_owned();
                    if is_error(&note) {
                        if self.error_lines.is_empty() {
                            self.first_error_line =
                                Some(line_of(self.text, part.as_span().start()));
                        }
                        self.error_lines.push(note);
                    } else {
                        self.run.warnings.push(note);
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }

    fn row(&self, row: Pair<'t, Rule>) -> Result<PerftestRow, ParseError> {
        let span = row.as_span();
        // A last row without a final line break ends at `EOI`, which pest reports as a pair.
        let values: Vec<Pair<'t, Rule>> = row
            .into_inner()
            .filter(|pair| pair.as_rule() == Rule::value)
            .collect();
        if values.len() != self.columns.len() {
            let trimmed = span.as_str().trim_end();
            return Err(ParseError::at(
                TOOL,
                self.text,
                span.start(),
                trimmed.len(),
                format!(
                    "expected {} values ({}), found {}",
                    self.columns.len(),
                    self.run.columns.join(", "),
                    values.len()
                ),
            ));
        }
        let mut result = empty_row();
        for (column, value) in self.columns.iter().zip(&values) {
            match *column {
                Column::Bytes => result.bytes = integer(self.text, value)?,
                Column::Sl => result.sl = Some(integer(self.text, value)?),
                Column::Iterations => result.iterations = Some(integer(self.text, value)?),
                Column::BwPeak(unit) => {
                    let number = Some(decimal(self.text, value)?);
                    match unit {
                        Unit::Gbps => result.bw_peak_gbps = number,
                        Unit::Mbps => result.bw_peak_mbps = number,
                        Unit::Mibps => result.bw_peak_mibps = number,
                    }
                }
                Column::BwAverage(unit) => {
                    let number = Some(decimal(self.text, value)?);
                    match unit {
                        Unit::Gbps => result.bw_average_gbps = number,
                        Unit::Mbps => result.bw_average_mbps = number,
                        Unit::Mibps => result.bw_average_mibps = number,
                    }
                }
                Column::BwPort(..) | Column::MsgRatePort(_) => {
                    result
                        .per_port
                        .insert(column.name(), decimal(self.text, value)?);
                }
                Column::MsgRate => result.msg_rate_mpps = Some(decimal(self.text, value)?),
                Column::TMin => result.t_min_usec = Some(decimal(self.text, value)?),
                Column::TMax => result.t_max_usec = Some(decimal(self.text, value)?),
                Column::TTypical => result.t_typical_usec = Some(decimal(self.text, value)?),
                Column::TAvg => result.t_avg_usec = Some(decimal(self.text, value)?),
                Column::TStdev => result.t_stdev_usec = Some(decimal(self.text, value)?),
                Column::P99 => result.p99_usec = Some(decimal(self.text, value)?),
                Column::P99_9 => result.p99_9_usec = Some(decimal(self.text, value)?),
                Column::Tps => result.tps_average = Some(decimal(self.text, value)?),
                Column::CpuUtil => result.cpu_util_percent = Some(decimal(self.text, value)?),
            }
        }
        Ok(result)
    }

    fn finish(mut self) -> PerftestRun {
        self.run.side = if self.waiting_for_client {
            Some("server".to_owned())
        } else if self.run.header.tx_depth.is_some() {
            Some("client".to_owned())
        } else {
            None
        };
        if let Some(first) = self.error_lines.first().cloned() {
            let (host, port) = connect_target(&first);
            if self.run.side.is_none() && host.is_some() {
                self.run.side = Some("client".to_owned());
            }
            let (event, code) = cm_event(&self.error_lines);
            self.run.error = Some(PerftestError {
                kind: error_kind(&first).to_owned(),
                message: first,
                line: self.first_error_line,
                lines: self.error_lines,
                host,
                port,
                event,
                code,
            });
        }
        self.run
    }
}

fn empty_header() -> PerftestHeader {
    PerftestHeader {
        dual_port: None,
        device: None,
        number_of_qps: None,
        transport_type: None,
        connection_type: None,
        using_srq: None,
        pcie_relax_order: None,
        ibv_wr_api: None,
        tx_depth: None,
        rx_depth: None,
        cq_moderation: None,
        mtu_bytes: None,
        link_type: None,
        gid_index: None,
        max_inline_data_bytes: None,
        outstand_reads: None,
        rdma_cm_qps: None,
        data_ex_method: None,
        tos: None,
        other: BTreeMap::new(),
    }
}

fn empty_row() -> PerftestRow {
    PerftestRow {
        bytes: 0,
        sl: None,
        iterations: None,
        bw_peak_gbps: None,
        bw_average_gbps: None,
        bw_peak_mbps: None,
        bw_average_mbps: None,
        bw_peak_mibps: None,
        bw_average_mibps: None,
        msg_rate_mpps: None,
        per_port: BTreeMap::new(),
        t_min_usec: None,
        t_max_usec: None,
        t_typical_usec: None,
        t_avg_usec: None,
        t_stdev_usec: None,
        p99_usec: None,
        p99_9_usec: None,
        tps_average: None,
        cpu_util_percent: None,
    }
}

fn column(pair: Pair<'_, Rule>) -> Column {
    let rule = pair.as_rule();
    let mut unit = Unit::Gbps;
    let mut port = 0;
    for part in pair.into_inner() {
        match part.as_rule() {
            Rule::bw_unit => {
                unit = match part.as_str() {
                    "MB/sec" => Unit::Mbps,
                    "MiB/sec" => Unit::Mibps,
                    _ => Unit::Gbps,
                };
            }
            Rule::port_digit => port = part.as_str().parse().unwrap_or(0),
            _ => {}
        }
    }
    match rule {
        Rule::col_sl => Column::Sl,
        Rule::col_iterations => Column::Iterations,
        Rule::col_bw_peak => Column::BwPeak(unit),
        Rule::col_bw_average => Column::BwAverage(unit),
        Rule::col_bw_port => Column::BwPort(port, unit),
        Rule::col_msg_rate => Column::MsgRate,
        Rule::col_msg_rate_port => Column::MsgRatePort(port),
        Rule::col_t_min => Column::TMin,
        Rule::col_t_max => Column::TMax,
        Rule::col_t_typical => Column::TTypical,
        Rule::col_t_avg => Column::TAvg,
        Rule::col_t_stdev => Column::TStdev,
        Rule::col_p99 => Column::P99,
        Rule::col_p99_9 => Column::P99_9,
        Rule::col_tps => Column::Tps,
        Rule::col_cpu_util => Column::CpuUtil,
        _ => Column::Bytes,
    }
}

/// `Number of qps` → `number_of_qps`, `ibv_wr* API` → `ibv_wr_api`.
fn snake_case(key: &str) -> String {
    let mut out = String::new();
    for c in key.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.is_empty() && !out.ends_with('_') {
            out.push('_');
        }
    }
    out.trim_end_matches('_').to_owned()
}

/// The error for `value`, which does not read as what `message` says, at its place.
fn misread(text: &str, value: &Pair<'_, Rule>, message: String) -> ParseError {
    ParseError::at(
        TOOL,
        text,
        value.as_span().start(),
        value.as_str().len(),
        message,
    )
}

/// A numeric setting, with a `[B]` unit suffix allowed (`4096[B]`).
fn setting_number(text: &str, value: &Pair<'_, Rule>) -> Result<u32, ParseError> {
    let raw = value.as_str();
    let digits = raw.strip_suffix("[B]").unwrap_or(raw);
    digits
        .parse()
        .map_err(|_| misread(text, value, format!("setting `{raw}` is not a number")))
}

/// A LID as perftest prints it: hex, with or without `0x` (`0x14`, `0000`).
fn hex_lid(text: &str, value: &Pair<'_, Rule>) -> Result<u32, ParseError> {
    let raw = value.as_str();
    let digits = raw
        .strip_prefix("0x")
        .or_else(|| raw.strip_prefix("0X"))
        .unwrap_or(raw);
    u32::from_str_radix(digits, 16)
        .map_err(|_| misread(text, value, format!("LID `{raw}` is not a hex number")))
}

fn integer<T: std::str::FromStr>(text: &str, value: &Pair<'_, Rule>) -> Result<T, ParseError> {
    value.as_str().parse().map_err(|_| {
        let raw = value.as_str();
        misread(
            text,
            value,
            format!("`{raw}` is not a whole number in range"),
        )
    })
}

fn decimal(text: &str, value: &Pair<'_, Rule>) -> Result<f64, ParseError> {
    value.as_str().parse().map_err(|_| {
        let raw = value.as_str();
        misread(text, value, format!("`{raw}` is not a number"))
    })
}

/// Whether a line inside the table is an error rather than a warning.
fn is_error(line: &str) -> bool {
    const WORDS: [&str; 9] = [
        "Couldn't",
        "Unable to",
        "Failed",
        "failed",
        "Error",
        "error",
        "ERROR",
        "Completion with",
        "Bad wc",
    ];
    WORDS.iter().any(|word| line.contains(word))
}

/// The class of a perftest failure, from its first error line.
fn error_kind(line: &str) -> &'static str {
    let has = |needles: &[&str]| needles.iter().any(|needle| line.contains(needle));
    if has(&["Couldn't connect to"]) {
        "connection"
    } else if has(&[
        "exchange data",
        "read_keys",
        "read remote address",
        "send local address",
        "read reports",
        "socket/rdma_cm",
    ]) {
        "data_exchange"
    } else if has(&[
        "socket",
        "Couldn't listen",
        "accept()",
        "Problem in resolving",
    ]) {
        "socket"
    } else if has(&[
        "modify QP",
        "to RTR",
        "to RTS",
        "to INIT",
        "Connect the HCA",
    ]) {
        "qp_state"
    } else if has(&["rdma_", "CM event", "ADDR_ERROR", "RDMA CM"]) {
        "rdma_cm"
    } else if has(&[
        "GPU",
        "CUDA",
        "cuMem",
        "ROCm",
        "hipMalloc",
        "Neuron",
        "nrt_tensor",
        "DMA-BUF",
        "dmabuf",
    ]) {
        "accelerator"
    } else if has(&["allocate MR", "create MR", "register MR", "reg_mr"]) {
        "memory"
    } else if has(&["device", "not found", "No IB devices", "get context"]) {
        "device"
    } else if has(&["Completion", "wc status", "Failed status"]) {
        "completion"
    } else {
        "other"
    }
}

/// The line number (from 1) of byte `offset`, counted once per run's first error.
fn line_of(text: &str, offset: usize) -> usize {
    crate::grammar::transcript::LineCounter::new(text).line_of(offset)
}

/// The rdma_cm event and error code of `rdma_cm_event_error_handler`'s `Event:
/// RDMA_CM_EVENT_ADDR_ERROR; error: -19.`, or the number of `unexpected CM event 8`.
fn cm_event(lines: &[String]) -> (Option<String>, Option<i64>) {
    for line in lines {
        if let Some(rest) = line.strip_prefix("Event: ")
            && let Some((event, code)) = rest.split_once("; error:")
        {
            return (
                Some(event.trim().to_owned()),
                code.trim().trim_end_matches('.').parse().ok(),
            );
        }
        let lower = line.to_ascii_lowercase();
        if let Some(number) = lower.split("cm event").nth(1) {
            let digits = number.trim().trim_start_matches("bl blka").trim();
            if let Ok(code) = digits.parse() {
                return (None, Some(code));
            }
        }
    }
    (None, None)
}

/// `Couldn't connect to 192.168.125.211:18515` → host and port.
fn connect_target(line: &str) -> (Option<String>, Option<u16>) {
    let Some(target) = line.split("Couldn't connect to ").nth(1) else {
        return (None, None);
    };
    let target = target.split_whitespace().next().unwrap_or_default();
    match target.rsplit_once(':') {
        Some((host, port)) => (Some(host.to_owned()), port.parse().ok()),
        None => (Some(target.to_owned()), None),
    }
}

#[cfg(test)]
mod tests {
    use super::{parse, snake_case};

    #[test]
    fn setting_names_become_snake_case() {
        assert_eq!(snake_case("ibv_wr* API"), "ibv_wr_api");
        assert_eq!(snake_case("Data ex. method"), "data_ex_method");
        assert_eq!(snake_case("Dual-port"), "dual_port");
    }

    #[test]
    fn two_settings_on_one_line_with_single_spaces() {
        let out = "----------\n Send BW Test\n Dual-port : OFF Device : mlx5_2\n Connection type : RC Using SRQ : OFF\n----------\n";
        let run = parse(out).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(run.header.dual_port.as_deref(), Some("OFF"));
        assert_eq!(run.header.device.as_deref(), Some("mlx5_2"));
        assert_eq!(run.header.using_srq.as_deref(), Some("OFF"));
    }

    /// A capture that ends on its last result row, with no line break after it (the closing rule
    /// not printed yet, or cut off), reads that row like the complete output does.
    #[test]
    fn a_last_result_row_without_a_final_line_break() {
        let fixture = include_str!(
            "../../../tests/fixtures/perftest/kube-ansible-atomic-bw-fetch-and-add.txt"
        );
        let whole = fixture.split_once('\n').map_or("", |(_, rest)| rest);
        let complete = parse(whole).unwrap_or_else(|e| panic!("{e}"));
        let cut = whole.trim_end().trim_end_matches('-').trim_end();
        assert!(!cut.ends_with('\n') && cut.ends_with("2.129385"), "{cut}");
        let run = parse(cut).unwrap_or_else(|e| panic!("{e}"));
        assert!(!complete.rows.is_empty());
        assert_eq!(run.rows, complete.rows);
    }

    /// Each word of a setting's value looks ahead for the next setting's name; a line of
    /// 20,000 single-spaced words took 18 s (release) while names were unbounded.
    #[test]
    fn a_setting_line_of_many_words_parses_in_linear_time() {
        let line = format!(" Dual-port : OFF{}", " ab".repeat(20_000));
        let out = format!("----------\n Send BW Test\n{line}\n----------\n");
        let started = std::time::Instant::now();
        let run = parse(&out).unwrap_or_else(|e| panic!("{e}"));
        assert!(started.elapsed() < std::time::Duration::from_secs(3));
        let dual_port = run.header.dual_port.unwrap_or_default();
        assert!(dual_port.starts_with("OFF ab ab") && dual_port.len() > 60_000);
    }

    #[test]
    fn row_with_missing_value_is_an_error() {
        let out = "----------\n Send BW Test\n----------\n #bytes #iterations BW peak[Gb/sec] BW average[Gb/sec] MsgRate[Mpps]\n 2 1000 0.11 0.11\n";
        let error = parse(out).err();
        assert!(error.is_some_and(|e| e.message.starts_with("expected 5 values")));
    }

    #[test]
    fn connect_failure_keeps_host_and_port() {
        let run = parse("Couldn't connect to 10.0.0.2:18515\n").unwrap_or_else(|e| panic!("{e}"));
        let error = run.error.unwrap_or_else(|| panic!("no error"));
        assert_eq!(error.kind, "connection");
        assert_eq!(error.host.as_deref(), Some("10.0.0.2"));
        assert_eq!(error.port, Some(18515));
        assert_eq!(run.side.as_deref(), Some("client"));
    }

    #[test]
    fn crlf_and_missing_final_newline_read_the_same() {
        let lf = "---------------\n                    Send Latency Test \n Mtu             : 4096[B] \n---------------\n #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] \n 2       1000          1.61           4.19         1.68                1.70            0.10             2.00                          4.19\n---------------";
        let crlf = lf.replace('\n', "\r\n");
        let a = parse(lf).unwrap_or_else(|e| panic!("{e}"));
        let b = parse(&crlf).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(a, b);
        assert_eq!(a.rows[0].p99_9_usec, Some(4.19));
        assert_eq!(a.header.mtu_bytes, Some(4096));
    }

    #[test]
    fn latency_without_percentiles_and_mib_columns() {
        let lat = "------------------------------------------------------------------\n                    RDMA_Write Latency Test\n------------------------------------------------------------------\n #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]\n 2       1000          0.93           6.81         0.96\n------------------------------------------------------------------\n";
        let run = parse(lat).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(run.columns.len(), 5);
        assert_eq!(run.rows[0].t_typical_usec, Some(0.96));
        assert_eq!(run.rows[0].p99_usec, None);
        let bw = "---------------\n Send BW Test\n---------------\n #bytes     #iterations    BW peak[MiB/sec]    BW average[MiB/sec]   MsgRate[Mpps]\n 65536      1000             11555.13            11554.28                  0.184868\n";
        let run = parse(bw).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(run.rows[0].bw_average_mibps, Some(11554.28));
    }

    #[test]
    fn unrelated_text_is_refused() {
        assert!(parse("CA 'mlx5_0'\n\tCA type: MT4119\n").is_err());
        assert!(parse("").is_err());
        // An error line of no kind perftest prints, with nothing else of perftest's: another
        // tool's failure (mlnxofedinstall's), not perftest's.
        assert!(parse("hello world\n").is_err());
        assert!(parse("Device (01:00.0):\nFailed to update Firmware.\n").is_err());
        assert!(parse("-E- Failed to query device current configuration\n").is_err());
        // perftest's own device lookup failure (`src/perftest_resources.c`), alone.
        let lookup = "IB device rxe2 not found\n Unable to find the Infiniband/RoCE device\n";
        let run = parse(lookup).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(run.error.map(|e| e.kind).as_deref(), Some("device"));
        // The same line after perftest's server box is perftest's, the rest messages.
        let boxed = "* Waiting for client to connect... *\nhello\nFailed to update Firmware.\n";
        let run = parse(boxed).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(run.messages, ["hello"]);
        assert_eq!(run.error.map(|e| e.line), Some(Some(3)));
    }
}
