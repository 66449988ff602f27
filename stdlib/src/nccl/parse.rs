//! Reads nccl-tests output line by line into [`NcclTests`]. The lines nccl-tests prints are
//! its `src/util.cu` (`writeDeviceReport`, `writeResultHeader`, the row printers,
//! `writeResultFooter`) and `src/common.h` (`CUDACHECK`, `NCCLCHECK`, `TESTCHECK`); older
//! versions print the same lines with fewer settings, without `Group`, `redop` or `root`, with an
//! `error` column instead of `#wrong`, and without the `#` before the table and its footer. A
//! launcher's `--tag-output` prefix (`[1,0]<stdout>:`) is dropped before a line is read.

use std::str::FromStr;

use super::types::{Measurement, NcclTests, RankDevice, Settings, SizeResult};
use crate::ParseError;
use crate::grammar::transcript::{Line, lines};
use crate::grammar::{ToolError, named_number};

const TOOL: &str = "nccl-tests";

/// One whitespace-separated word of a line and its byte offset in the output.
#[derive(Clone, Copy)]
struct Word<'t> {
    at: usize,
    text: &'t str,
}

/// The words of `body`, which starts at byte `at` of the output.
fn words(body: &str, at: usize) -> Vec<Word<'_>> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in body.char_indices() {
        match (c == ' ' || c == '\t', start) {
            (true, Some(s)) => {
                out.push(Word {
                    at: at + s,
                    text: &body[s..i],
                });
                start = None;
            }
            (false, None) => start = Some(i),
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push(Word {
            at: at + s,
            text: &body[s..],
        });
    }
    out
}

/// The size table's layout, from its `size count type ...` title line.
#[derive(Clone, Copy)]
struct Layout {
    /// Cells before the first measurement: `size`, `count`, `type`, then `redop` and `root`
    /// where printed.
    leading: usize,
    /// Whether `redop` and `root` are among them.
    redop: bool,
    root: bool,
    /// Cells of one measurement (4, or 8 with `-I`'s per-iteration cells).
    side: usize,
}

impl Layout {
    /// From the title line's words (without its `#`).
    fn of_titles(titles: &[&str]) -> Option<Self> {
        let times: Vec<usize> = titles
            .iter()
            .enumerate()
            .filter(|(_, t)| matches!(**t, "time" | "cputime"))
            .map(|(i, _)| i)
            .collect();
        let leading = *times.first()?;
        let side = match times.get(1) {
            Some(second) => second - leading,
            None => titles.len() - leading,
        };
        let before = titles.get(..leading).unwrap_or_default();
        Some(Self {
            leading,
            redop: before.contains(&"redop"),
            root: before.contains(&"root"),
            side,
        })
    }

    /// From a row of `cells` words when no title line was printed (a pasted table).
    fn of_row(cells: usize) -> Self {
        let leading = cells.saturating_sub(8).max(3);
        Self {
            leading,
            redop: leading >= 4,
            root: leading >= 5,
            side: 4,
        }
    }
}

/// What the walk has seen so far.
struct Walk<'t> {
    text: &'t str,
    out: NcclTests,
    layout: Option<Layout>,
    in_table: bool,
    own: bool,
}

/// Parses an nccl-tests binary's output.
pub(super) fn parse(text: &str) -> Result<NcclTests, ParseError> {
    let mut walk = Walk {
        text,
        out: NcclTests {
            version: None,
            test: None,
            settings: None,
            devices: Vec::new(),
            results: Vec::new(),
            out_of_bounds_values: None,
            out_of_bounds_ok: None,
            avg_bus_bandwidth_gbytes_sec: None,
            warnings: Vec::new(),
            error: None,
            messages: Vec::new(),
        },
        layout: None,
        in_table: false,
        own: false,
    };
    for line in lines(text).filter(|l| !l.is_blank()) {
        walk.line(&line)?;
    }
    if !walk.own {
        let at = text.len() - text.trim_start().len();
        return Err(ParseError::at(
            TOOL,
            text,
            at,
            0,
            "expected nccl-tests output (`# nThread 1 nGpus 1 minBytes ...`, its size table or its `Avg bus bandwidth` line)",
        ));
    }
    Ok(walk.out)
}

impl<'t> Walk<'t> {
    fn line(&mut self, line: &Line<'t>) -> Result<(), ParseError> {
        let text = line.text;
        // mpirun --tag-output: `[1,0]<stdout>:`.
        let text = match text.split_once(">:") {
            Some((tag, rest)) if tag.starts_with('[') && tag.contains("]<std") => rest,
            _ => text,
        };
        let hashed = text.starts_with('#');
        let body = text.trim_start_matches('#').trim_start();
        let at = line.offset + (line.raw.len() - body.len());
        if body.is_empty() {
            return Ok(());
        }
        if let Some(rest) = body.strip_prefix("nccl-tests version ") {
            self.own = true;
            self.out.version = rest.split_whitespace().next().map(str::to_owned);
        } else if let Some(rest) = body
            .strip_prefix("Collective test starting:")
            .or_else(|| body.strip_prefix("Collective test concluded:"))
        {
            self.own = true;
            self.in_table = false;
            self.out.test.get_or_insert_with(|| rest.trim().to_owned());
        } else if body.starts_with("nThread ") && body.contains(" nGpus ") {
            self.own = true;
            self.out.settings = Some(self.settings(&words(body, at))?);
        } else if body == "Using devices" {
            self.own = true;
        } else if body.starts_with("Rank ") && body.contains(" Pid ") {
            self.out
                .devices
                .push(self.rank(&words(body, at), body, at)?);
        } else if body.starts_with("out-of-place") || body.starts_with("(B)") {
            self.own = true;
            self.in_table = true;
        } else if body.starts_with("size ") && body.contains(" time") {
            self.own = true;
            self.in_table = true;
            let titles: Vec<&str> = body.split_whitespace().collect();
            self.layout = Layout::of_titles(&titles);
        } else if let Some(rest) = body.strip_prefix("Out of bounds values") {
            self.own = true;
            self.in_table = false;
            let trimmed = rest.trim_start_matches([' ', ':']);
            let cells = words(trimmed, at + body.len() - trimmed.len());
            if let Some(value) = cells.first() {
                self.out.out_of_bounds_values = Some(self.number(*value, "out of bounds values")?);
            }
            self.out.out_of_bounds_ok = cells.get(1).map(|w| w.text == "OK");
        } else if let Some(rest) = body.strip_prefix("Avg bus bandwidth") {
            self.own = true;
            self.in_table = false;
            let trimmed = rest.trim_start_matches([' ', ':']);
            if let Some(value) = words(trimmed, at + body.len() - trimmed.len()).first() {
                self.out.avg_bus_bandwidth_gbytes_sec =
                    Some(self.number(*value, "average bus bandwidth")?);
            }
        } else if body.starts_with("Errors with asterisks") {
            self.own = true;
        } else if self.in_table && !hashed && body.starts_with(|c: char| c.is_ascii_digit()) {
            let row = self.row(&words(body, at), line)?;
            self.out.results.push(row);
        } else if text.contains(" NCCL WARN ") {
            self.out.warnings.push(line.message());
        } else if let Some(kind) = failure_kind(text) {
            self.own = true;
            if self.out.error.is_none() {
                self.out.error = Some(ToolError::new(kind, line));
            } else {
                self.out.messages.push(line.message());
            }
        } else {
            self.out.messages.push(line.message());
        }
        Ok(())
    }

    fn number<T: FromStr>(&self, word: Word<'_>, what: &str) -> Result<T, ParseError> {
        let span = pest::Span::new(self.text, word.at, word.at + word.text.len());
        match span {
            Some(span) => named_number(TOOL, self.text, &span, what),
            None => Err(ParseError::at(
                TOOL,
                self.text,
                word.at,
                word.text.len(),
                format!("`{}` is no {what}", word.text),
            )),
        }
    }

    /// `nThread 1 nGpus 1 minBytes 8 maxBytes 8589934592 step: 2(factor) warmup iters: 5
    /// iters: 20 agg iters: 1 validation: 1 graph: 0 unalign: 0`
    fn settings(&self, words: &[Word<'_>]) -> Result<Settings, ParseError> {
        let mut settings = Settings {
            n_thread: 0,
            n_gpus: 0,
            min_bytes: 0,
            max_bytes: 0,
            step: 0,
            step_kind: String::new(),
            warmup_iters: 0,
            iters: 0,
            agg_iters: None,
            validation: 0,
            graph: None,
            unalign: None,
        };
        let mut previous = "";
        for (i, word) in words.iter().enumerate() {
            let Some(value) = words.get(i + 1).copied() else {
                break;
            };
            match (previous, word.text) {
                (_, "nThread") => settings.n_thread = self.number(value, "nThread")?,
                (_, "nGpus") => settings.n_gpus = self.number(value, "nGpus")?,
                (_, "minBytes") => settings.min_bytes = self.number(value, "minBytes")?,
                (_, "maxBytes") => settings.max_bytes = self.number(value, "maxBytes")?,
                (_, "step:") => {
                    let (step, kind) = value.text.split_once('(').unwrap_or((value.text, ""));
                    let step = Word {
                        at: value.at,
                        text: step,
                    };
                    settings.step = self.number(step, "step")?;
                    settings.step_kind = kind.trim_end_matches(')').to_owned();
                }
                ("warmup", "iters:") => {
                    settings.warmup_iters = self.number(value, "warmup iters")?
                }
                ("agg", "iters:") => settings.agg_iters = Some(self.number(value, "agg iters")?),
                (_, "iters:") => settings.iters = self.number(value, "iters")?,
                (_, "validation:") => settings.validation = self.number(value, "validation")?,
                (_, "graph:") => settings.graph = Some(self.number(value, "graph")?),
                (_, "unalign:") => settings.unalign = Some(self.number(value, "unalign")?),
                _ => {}
            }
            previous = word.text;
        }
        Ok(settings)
    }

    /// `Rank  0 Group  0 Pid   6899 on ztan-mig-235z device  0 [0000:04:00] NVIDIA H100 80GB HBM3`
    fn rank(&self, words: &[Word<'_>], body: &str, at: usize) -> Result<RankDevice, ParseError> {
        let after = |key: &str| {
            words
                .iter()
                .position(|w| w.text == key)
                .and_then(|i| words.get(i + 1).copied())
        };
        let missing = |what: &str| {
            ParseError::at(
                TOOL,
                self.text,
                at,
                body.len(),
                format!("a rank line without its {what}"),
            )
        };
        let rank = after("Rank").ok_or_else(|| missing("rank"))?;
        let pid = after("Pid").ok_or_else(|| missing("pid"))?;
        let host = after("on").ok_or_else(|| missing("host"))?;
        let device = after("device").ok_or_else(|| missing("device"))?;
        let pci_at = words
            .iter()
            .position(|w| w.text.starts_with('['))
            .ok_or_else(|| missing("PCI location"))?;
        let pci = words.get(pci_at).map_or("", |w| w.text);
        let name_at = words.get(pci_at + 1).map_or(body.len(), |w| w.at - at);
        Ok(RankDevice {
            rank: self.number(rank, "rank")?,
            group: after("Group")
                .map(|g| self.number(g, "group"))
                .transpose()?,
            pid: self.number(pid, "pid")?,
            host: host.text.to_owned(),
            device: self.number(device, "device")?,
            pci: pci.trim_start_matches('[').trim_end_matches(']').to_owned(),
            name: body.get(name_at..).unwrap_or_default().trim().to_owned(),
        })
    }

    /// One size table row, read by the table's layout.
    fn row(&self, cells: &[Word<'_>], line: &Line<'_>) -> Result<SizeResult, ParseError> {
        let layout = self.layout.unwrap_or_else(|| Layout::of_row(cells.len()));
        let width = layout.leading + 2 * layout.side;
        if cells.len() != width {
            return Err(ParseError::at(
                TOOL,
                self.text,
                line.offset,
                line.raw.len(),
                format!(
                    "a size row of {} cells where the table has {width}",
                    cells.len()
                ),
            ));
        }
        let cell = |i: usize| cells.get(i).copied().unwrap_or(Word { at: 0, text: "" });
        let mut next = 3;
        let redop = layout.redop.then(|| {
            next += 1;
            cell(next - 1).text.to_owned()
        });
        let root = if layout.root {
            next += 1;
            Some(self.number(cell(next - 1), "root")?)
        } else {
            None
        };
        let side = |start: usize| -> Result<Measurement, ParseError> {
            let wrong = cell(start + 3);
            let (count, max_error) = match wrong.text.trim_end_matches('*') {
                "N/A" => (None, None),
                t if t.bytes().all(|b| b.is_ascii_digit()) => {
                    (Some(self.number(wrong, "#wrong")?), None)
                }
                t => {
                    let error = Word {
                        at: wrong.at,
                        text: t,
                    };
                    (None, Some(self.number(error, "error")?))
                }
            };
            Ok(Measurement {
                time_usec: self.number(cell(start), "time")?,
                algbw_gbytes_sec: self.number(cell(start + 1), "algbw")?,
                busbw_gbytes_sec: self.number(cell(start + 2), "busbw")?,
                wrong: count,
                max_error,
            })
        };
        Ok(SizeResult {
            size_bytes: self.number(cell(0), "size")?,
            count: self.number(cell(1), "count")?,
            data_type: cell(2).text.to_owned(),
            redop,
            root,
            out_of_place: side(layout.leading)?,
            in_place: Some(side(layout.leading + layout.side)?),
        })
    }
}

/// The kind of a failure line of nccl-tests' own (`src/common.h`).
fn failure_kind(text: &str) -> Option<&'static str> {
    if text.contains(": Test NCCL failure ") {
        Some("nccl")
    } else if text.contains(": Test CUDA failure ") {
        Some("cuda")
    } else if text.contains(": Test failure ") {
        Some("test")
    } else {
        None
    }
}
