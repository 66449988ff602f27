//! `fabric::all_pairs`' matrix as a heatmap: hosts × hosts, one cell a pair, its bandwidth (or
//! latency) as colour, flagged pairs outlined, pairs still bad after their retests crossed.
//!
//! Read from the journal's `fabric::all_pairs` records, as the stdlib's types: each round
//! (`phase: "matrix"`) holds its pairs' results ([`PairResult`]s), each retest round
//! (`phase: "retest"`) the retests', and the closing record (`phase: "verdict"`, a
//! [`MatrixVerdict`]) the tolerance, the flagged and bad pairs and the suspects. A run stopped
//! before its verdict still draws what its rounds measured, with only failed tests marked; a
//! record of another shape is named in the section, never read as an empty default.
//!
//! Drawn as plain SVG `<rect>`s (one per tested pair, in the lower triangle: a pair is tested
//! once, in one direction) so a 100-host matrix is 4950 small elements, each with a `<title>`
//! the browser shows on hover; past 65 hosts (cells under 11 px) only every second or third
//! host is labelled, and every suspect.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use cairn_stdlib::fabric::{MatrixVerdict, PairResult};
use serde_json::Value;

use crate::html::escape;
use crate::report_error::ReportError;
use crate::run_model::RunModel;
use crate::section::Section;
use crate::unread::Unread;

/// One tested pair.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Cell {
    pub(crate) server: String,
    pub(crate) client: String,
    /// Gb/s or µs; `None` when the test failed.
    pub(crate) value: Option<f64>,
    pub(crate) error: Option<String>,
    /// The retests' values, in order.
    pub(crate) retests: Vec<Option<f64>>,
    pub(crate) flagged: bool,
    pub(crate) bad: bool,
}

/// One `fabric::all_pairs` call's matrix.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Matrix {
    /// The host whose journal recorded it (the controller).
    pub(crate) recorded_by: String,
    /// `send_bw`, `send_lat`, ...
    pub(crate) test: String,
    /// Lower is better (a latency test).
    pub(crate) latency: bool,
    /// The hosts in the call's order (rows and columns).
    pub(crate) hosts: Vec<String>,
    pub(crate) cells: Vec<Cell>,
    /// Whether the verdict record was found and read (else flags are only the failed tests).
    pub(crate) judged: bool,
    /// The verdict record was there but did not read as its type (the section names it).
    pub(crate) unread_verdict: bool,
    pub(crate) reference: Option<f64>,
    pub(crate) limit: Option<f64>,
    pub(crate) passed: Option<bool>,
    /// Leaf switches whose way to the spine the bad pairs point at.
    pub(crate) suspect_uplinks: Vec<String>,
    pub(crate) suspect_hosts: Vec<String>,
    pub(crate) suspect_pairs: Vec<(String, String)>,
    /// Hosts of the matrix that were not tested, with the reason: greyed rows.
    pub(crate) excluded: Vec<(String, String)>,
}

impl Matrix {
    fn new(recorded_by: &str, test: &str) -> Self {
        Self {
            recorded_by: recorded_by.to_owned(),
            test: test.to_owned(),
            latency: test.ends_with("_lat"),
            hosts: Vec::new(),
            cells: Vec::new(),
            judged: false,
            unread_verdict: false,
            reference: None,
            limit: None,
            passed: None,
            suspect_uplinks: Vec::new(),
            suspect_hosts: Vec::new(),
            suspect_pairs: Vec::new(),
            excluded: Vec::new(),
        }
    }

    fn value(&self, r: &PairResult) -> Option<f64> {
        if !r.ok {
            None
        } else if self.latency {
            r.typical_us
        } else {
            r.gbps
        }
    }

    fn add_round(&mut self, records: Vec<PairResult>) {
        for r in records {
            for host in [&r.server, &r.client] {
                if !self.hosts.contains(host) {
                    self.hosts.push(host.clone());
                }
            }
            let value = self.value(&r);
            self.cells.push(Cell {
                flagged: value.is_none(),
                bad: value.is_none(),
                server: r.server,
                client: r.client,
                value,
                error: r.error,
                retests: Vec::new(),
            });
        }
    }

    fn add_retests(&mut self, records: Vec<PairResult>) {
        for r in records {
            let value = self.value(&r);
            if let Some(cell) = self
                .cells
                .iter_mut()
                .find(|c| c.server == r.server && c.client == r.client)
            {
                cell.retests.push(value);
            }
        }
    }

    fn judge(&mut self, verdict: MatrixVerdict) {
        let has = |list: &[(String, String)], c: &Cell| {
            list.iter().any(|(s, k)| *s == c.server && *k == c.client)
        };
        for cell in &mut self.cells {
            cell.flagged = has(&verdict.flagged, cell);
            cell.bad = has(&verdict.bad, cell);
        }
        // The call's own order; hosts no pair reached (a failed round) keep their place.
        if !verdict.hosts.is_empty() {
            let mut hosts = verdict.hosts.clone();
            hosts.extend(
                self.hosts
                    .iter()
                    .filter(|h| !verdict.hosts.contains(h))
                    .cloned(),
            );
            self.hosts = hosts;
        }
        // Every host asked for keeps a row: one not tested is greyed with its reason.
        for e in &verdict.excluded {
            if !self.hosts.contains(&e.host) {
                self.hosts.push(e.host.clone());
            }
        }
        self.excluded = verdict
            .excluded
            .iter()
            .map(|e| (e.host.clone(), e.reason.clone()))
            .collect();
        self.judged = true;
        self.reference = verdict.reference;
        self.limit = verdict.limit;
        self.passed = Some(verdict.passed);
        self.suspect_uplinks = verdict.suspects.uplinks;
        self.suspect_hosts = verdict.suspects.hosts;
        self.suspect_pairs = verdict.suspects.pairs;
    }

    fn unit(&self) -> &'static str {
        if self.latency { "µs" } else { "Gb/s" }
    }
}

/// Every `fabric::all_pairs` matrix of the run, in the order they were recorded; the rounds and
/// the verdict records that did not read as their types are noted in `rounds` and `verdicts`.
pub(crate) fn matrices(
    model: &RunModel,
    rounds: &mut Unread,
    verdicts: &mut Unread,
) -> Vec<Matrix> {
    let mut found = Vec::new();
    for host in &model.hosts {
        // The matrix being filled, per test: rounds until its verdict closes it.
        let mut open: BTreeMap<String, Matrix> = BTreeMap::new();
        for action in host.actions.iter().filter(|a| a.ok) {
            if action.builtin != "fabric::all_pairs" {
                continue;
            }
            let arg = |key: &str| action.args.get(key).and_then(Value::as_str);
            let (Some(phase), Some(test)) = (arg("phase"), arg("test")) else {
                continue;
            };
            // A round of another shape is named by the section (`rounds`) and adds no cell.
            match phase {
                "matrix" => {
                    let m = open
                        .entry(test.to_owned())
                        .or_insert_with(|| Matrix::new(&host.name, test));
                    if let Some(records) = rounds.read_whole(&host.name, action) {
                        m.add_round(records);
                    }
                }
                "retest" => {
                    if let Some(m) = open.get_mut(test)
                        && let Some(records) = rounds.read_whole(&host.name, action)
                    {
                        m.add_retests(records);
                    }
                }
                "verdict" => {
                    if let Some(mut m) = open.remove(test) {
                        match verdicts.read_whole::<MatrixVerdict>(&host.name, action) {
                            Some(verdict) => m.judge(verdict),
                            None => m.unread_verdict = true,
                        }
                        found.push(m);
                    }
                }
                _ => {}
            }
        }
        found.extend(open.into_values());
    }
    found
}

/// A colour ramp from poor (dark purple) to good (yellow), viridis' stops: readable by the
/// colour-blind and in greyscale.
const RAMP: [(u8, u8, u8); 5] = [
    (68, 1, 84),
    (59, 82, 139),
    (33, 145, 140),
    (94, 201, 98),
    (253, 231, 37),
];

/// The ramp's colour at `t` in `[0, 1]` (1 is good).
fn ramp(t: f64) -> String {
    let t = if t.is_finite() {
        t.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let scaled = t * (RAMP.len() - 1) as f64;
    let i = (scaled.floor() as usize).min(RAMP.len() - 2);
    let f = scaled - i as f64;
    let mix = |a: u8, b: u8| (f64::from(a) + (f64::from(b) - f64::from(a)) * f).round() as u8;
    let (a, b) = (RAMP[i], RAMP[i + 1]);
    format!(
        "#{:02x}{:02x}{:02x}",
        mix(a.0, b.0),
        mix(a.1, b.1),
        mix(a.2, b.2)
    )
}

/// How values map to the ramp: bandwidth from 0 (poor) to the best pair's; latency from the
/// best pair's (good) to the worst measured or the limit, whichever is higher.
#[derive(Debug, Clone, Copy)]
struct Domain {
    good: f64,
    poor: f64,
}

impl Domain {
    fn of(m: &Matrix) -> Self {
        let values = m.cells.iter().filter_map(|c| c.value);
        if m.latency {
            let best = m
                .reference
                .unwrap_or_else(|| values.clone().fold(f64::MAX, f64::min));
            let worst = values.fold(m.limit.unwrap_or(best), f64::max);
            Self {
                good: best,
                poor: if worst > best { worst } else { best * 2.0 },
            }
        } else {
            let best = m.reference.unwrap_or_else(|| values.fold(0.0, f64::max));
            Self {
                good: if best > 0.0 { best } else { 1.0 },
                poor: 0.0,
            }
        }
    }

    fn t(self, value: f64) -> f64 {
        (value - self.poor) / (self.good - self.poor)
    }
}

/// Numbers as the page shows them: two decimals at most.
fn num(value: f64) -> String {
    format!("{}", (value * 100.0).round() / 100.0)
}

/// The geometry: a cell's side in pixels, and every how many hosts a label is drawn.
fn layout(hosts: usize) -> (usize, usize) {
    let cell = (720 / hosts.max(1)).clamp(6, 28);
    // A label needs about 11 px of height.
    let every = 11usize.div_ceil(cell).max(1);
    (cell, every)
}

const MARGIN_TOP: usize = 8;

/// Room for the longest host name at the 10 px font (about 6 px a character), so the column
/// labels under the grid and the row labels left of it are not cut.
fn label_room(hosts: &[String]) -> usize {
    let longest = hosts.iter().map(|h| h.chars().count()).max().unwrap_or(0);
    (longest * 6 + 12).clamp(40, 180)
}

/// The heatmap's `<svg>`: rows are the later host of a pair in the call's order, columns the
/// earlier, so every pair is one cell of the lower triangle.
pub(crate) fn svg(m: &Matrix) -> String {
    let grid = Grid::of(m);
    let (left, side) = (grid.left, grid.side);
    let (width, height) = (left + side + 8, MARGIN_TOP + side + grid.room);
    let mut out = String::new();
    let _ = write!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"heatmap\" width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\" font-family=\"sans-serif\" font-size=\"10\">"
    );
    // The untested upper triangle and diagonal, faint.
    let _ = write!(
        out,
        "<rect x=\"{left}\" y=\"{MARGIN_TOP}\" width=\"{side}\" height=\"{side}\" fill=\"#f4f4f6\"/>"
    );
    cells(&mut out, m, &grid);
    excluded(&mut out, m, &grid);
    labels(&mut out, m, &grid);
    out.push_str("</svg>");
    out
}

/// Where the heatmap's parts go.
struct Grid<'a> {
    /// A cell's side in pixels.
    cell: usize,
    /// Every how many hosts a label is drawn.
    every: usize,
    /// Each host's row and column.
    index: BTreeMap<&'a str, usize>,
    /// The grid's left edge: the row labels' room.
    left: usize,
    /// The room for labels under the grid and left of it.
    room: usize,
    /// The grid's side in pixels.
    side: usize,
}

impl<'a> Grid<'a> {
    fn of(m: &'a Matrix) -> Self {
        let n = m.hosts.len();
        let (cell, every) = layout(n);
        let room = label_room(&m.hosts);
        let index = m
            .hosts
            .iter()
            .enumerate()
            .map(|(i, h)| (h.as_str(), i))
            .collect();
        Self {
            cell,
            every,
            index,
            left: room,
            room,
            side: cell * n,
        }
    }
}

/// Every tested pair's cell, coloured by its value, then the marks of those not ok.
fn cells(out: &mut String, m: &Matrix, grid: &Grid<'_>) {
    let (cell, left) = (grid.cell, grid.left);
    let domain = Domain::of(m);
    let mut marks = String::new();
    for c in &m.cells {
        let (Some(&a), Some(&b)) = (
            grid.index.get(c.server.as_str()),
            grid.index.get(c.client.as_str()),
        ) else {
            continue;
        };
        let (row, col) = (a.max(b), a.min(b));
        let (x, y) = (left + col * cell, MARGIN_TOP + row * cell);
        let fill = c
            .value
            .map_or_else(|| "#333333".to_owned(), |v| ramp(domain.t(v)));
        let state = match (c.value.is_none(), c.bad, c.flagged) {
            (true, _, _) => "failed",
            (false, true, _) => "bad",
            (false, false, true) => "flagged",
            _ => "ok",
        };
        let _ = write!(
            out,
            "<rect class=\"cell {state}\" data-server=\"{}\" data-client=\"{}\" x=\"{x}\" y=\"{y}\" width=\"{cell}\" height=\"{cell}\" fill=\"{fill}\"><title>{} ({state})</title></rect>",
            escape(&c.server),
            escape(&c.client),
            cell_title(m, c),
        );
        if state != "ok" {
            // Drawn after every cell so no neighbour covers the outline.
            marks.push_str(&mark(x, y, cell, state != "flagged"));
        }
    }
    out.push_str(&marks);
}

/// A cell's hover text, escaped: the pair, its value, its retests, its error.
fn cell_title(m: &Matrix, c: &Cell) -> String {
    let value = c.value.map_or_else(
        || "failed".to_owned(),
        |v| format!("{} {}", num(v), m.unit()),
    );
    let retests = if c.retests.is_empty() {
        String::new()
    } else {
        let values: Vec<String> = c
            .retests
            .iter()
            .map(|v| v.map_or_else(|| "failed".into(), num))
            .collect();
        format!("; retests {}", values.join(", "))
    };
    let error = c
        .error
        .as_deref()
        .map_or_else(String::new, |e| format!(": {e}"));
    format!(
        "{} → {}: {}{}{}",
        escape(&c.client),
        escape(&c.server),
        escape(&value),
        escape(&retests),
        escape(&error),
    )
}

/// A host not tested: its row and column greyed, the reason on hover.
fn excluded(out: &mut String, m: &Matrix, grid: &Grid<'_>) {
    let (cell, left, side) = (grid.cell, grid.left, grid.side);
    for (host, reason) in &m.excluded {
        let Some(&i) = grid.index.get(host.as_str()) else {
            continue;
        };
        let title = format!(
            "<title>{}: not tested, {}</title>",
            escape(host),
            escape(reason)
        );
        let _ = write!(
            out,
            "<rect class=\"excluded\" data-host=\"{}\" x=\"{left}\" y=\"{}\" width=\"{side}\" height=\"{cell}\" fill=\"#b8b8b8\">{title}</rect><rect class=\"excluded-column\" x=\"{}\" y=\"{MARGIN_TOP}\" width=\"{cell}\" height=\"{side}\" fill=\"#b8b8b8\">{title}</rect>",
            escape(host),
            MARGIN_TOP + i * cell,
            left + i * cell,
        );
    }
}

/// Labels: the suspects (in red) first, then every `every`-th host, none closer than `every`
/// rows to another, on both axes.
fn labels(out: &mut String, m: &Matrix, grid: &Grid<'_>) {
    let (cell, left, side) = (grid.cell, grid.left, grid.side);
    let labelled = labelled(m, grid.every);
    for (i, host) in m.hosts.iter().enumerate() {
        let suspect = m.suspect_hosts.contains(host);
        if !labelled.contains(&i) {
            continue;
        }
        let fill = if suspect { "#c00000" } else { "#333333" };
        let weight = if suspect { " font-weight=\"bold\"" } else { "" };
        let middle = MARGIN_TOP + i * cell + cell / 2;
        let _ = write!(
            out,
            "<text class=\"row-label\" x=\"{}\" y=\"{}\" text-anchor=\"end\" fill=\"{fill}\"{weight}>{}</text>",
            left - 4,
            middle + 3,
            escape(host)
        );
        let centre = left + i * cell + cell / 2;
        let top = MARGIN_TOP + side + 4;
        let _ = write!(
            out,
            "<text class=\"col-label\" transform=\"translate({} {top}) rotate(-90)\" text-anchor=\"end\" fill=\"{fill}\"{weight}>{}</text>",
            centre + 3,
            escape(host)
        );
    }
}

/// A flagged cell's mark: large cells are outlined in red and, still bad, crossed; cells under
/// 12 px (a big matrix) keep their colour visible under a thin outline and, still bad, a red
/// dot in the middle.
fn mark(x: usize, y: usize, cell: usize, bad: bool) -> String {
    let side = cell as f64;
    let (xf, yf) = (x as f64, y as f64);
    if cell >= 12 {
        let mut out = format!(
            "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#e00000\" stroke-width=\"1.5\"/>",
            xf + 0.75,
            yf + 0.75,
            side - 1.5,
            side - 1.5,
        );
        if bad {
            let (x2, y2) = (x + cell, y + cell);
            out.push_str(&format!(
                "<path d=\"M{x} {y}L{x2} {y2}M{x2} {y}L{x} {y2}\" stroke=\"#e00000\" stroke-width=\"1.2\"/>"
            ));
        }
        return out;
    }
    if bad {
        let dot = (side / 2.5).max(2.0);
        format!(
            "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{dot:.1}\" height=\"{dot:.1}\" fill=\"#e00000\"/>",
            xf + (side - dot) / 2.0,
            yf + (side - dot) / 2.0,
        )
    } else {
        format!(
            "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#e00000\" stroke-width=\"1\"/>",
            xf + 0.5,
            yf + 0.5,
            side - 1.0,
            side - 1.0,
        )
    }
}

/// The hosts that get a label: the suspects first, then every `every`-th host, each at least
/// `every` rows from the labels kept before it (so labels never overlap).
fn labelled(m: &Matrix, every: usize) -> std::collections::BTreeSet<usize> {
    let mut kept = std::collections::BTreeSet::new();
    let far = |kept: &std::collections::BTreeSet<usize>, i: usize| {
        kept.range(i.saturating_sub(every - 1)..=i + every - 1)
            .next()
            .is_none()
    };
    let suspects = m
        .hosts
        .iter()
        .enumerate()
        .filter(|(_, h)| m.suspect_hosts.contains(h))
        .map(|(i, _)| i);
    for i in suspects.chain((0..m.hosts.len()).step_by(every)) {
        if far(&kept, i) {
            kept.insert(i);
        }
    }
    kept
}

/// The legend: the ramp with its ends and the limit, and the marks.
fn legend(m: &Matrix, number: usize) -> String {
    let domain = Domain::of(m);
    let stops: String = (0..=10)
        .map(|i| {
            let t = f64::from(i) / 10.0;
            format!(
                "<stop offset=\"{t}\" stop-color=\"{}\"/>",
                ramp(if m.latency { 1.0 - t } else { t })
            )
        })
        .collect();
    let (low, high) = if m.latency {
        (domain.good, domain.poor)
    } else {
        (domain.poor, domain.good)
    };
    let id = format!("fabric-ramp-{number}");
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"320\" height=\"46\" font-family=\"sans-serif\" font-size=\"10\"><defs><linearGradient id=\"{id}\">{stops}</linearGradient></defs><rect x=\"20\" y=\"14\" width=\"280\" height=\"12\" fill=\"url(#{id})\"/><text x=\"20\" y=\"40\">{} {}</text><text x=\"300\" y=\"40\" text-anchor=\"end\">{} {}</text>",
        num(low),
        m.unit(),
        num(high),
        m.unit()
    );
    if let Some(limit) = m.limit.filter(|_| high > low) {
        // The limit's label above the bar, where the ends' labels below cannot cover it.
        let x = 20.0 + 280.0 * ((limit - low) / (high - low)).clamp(0.0, 1.0);
        let _ = write!(
            svg,
            "<line x1=\"{x:.1}\" y1=\"12\" x2=\"{x:.1}\" y2=\"28\" stroke=\"#e00000\" stroke-width=\"2\"/><text x=\"{x:.1}\" y=\"10\" text-anchor=\"middle\" fill=\"#c00000\">limit {}</text>",
            num(limit)
        );
    }
    svg.push_str("</svg>");
    format!(
        "<div class=\"legend\">{svg}<span><i style=\"background:#fff;outline:1.5px solid #e00000\"></i>flagged</span><span><i style=\"background:#fff;outline:1.5px solid #e00000;background-image:linear-gradient(45deg,transparent 45%,#e00000 45% 55%,transparent 55%)\"></i>still bad after its retests (small cells: a red dot)</span><span><i style=\"background:#333\"></i>test failed</span><span><i style=\"background:#f4f4f6\"></i>not a pair (each pair is one cell: row = the later host)</span></div>"
    )
}

/// The text under a heatmap: the verdict, the suspects, the flagged pairs.
fn summary(m: &Matrix) -> String {
    let tested = m.cells.len();
    let flagged: Vec<&Cell> = m.cells.iter().filter(|c| c.flagged).collect();
    let bad = m.cells.iter().filter(|c| c.bad).count();
    let mut html = String::new();
    let verdict = match m.passed {
        // Never PASS while a host was not tested (a verdict recorded before hosts were).
        _ if !m.excluded.is_empty() => format!(
            "<b class=\"failed\">FAIL</b> · {} of {} hosts not tested",
            m.excluded.len(),
            m.hosts.len()
        ),
        Some(true) => "<b>PASS</b>".to_owned(),
        Some(false) => "<b class=\"failed\">FAIL</b>".to_owned(),
        None if m.unread_verdict => "the verdict record could not be read (named above): only failed tests are marked".to_owned(),
        None => "no verdict recorded (the run stopped before the matrix ended): only failed tests are marked".to_owned(),
    };
    let reference = match (m.reference, m.limit) {
        (Some(r), Some(l)) => format!(
            "; best pair {} {u}, limit {} {u}",
            num(r),
            num(l),
            u = m.unit()
        ),
        _ => String::new(),
    };
    let _ = write!(
        html,
        "<p>{verdict} · {} hosts, {tested} pairs tested, {} flagged, {bad} bad after retests{reference}</p>",
        m.hosts.len(),
        flagged.len()
    );
    if !m.excluded.is_empty() {
        let rows: Vec<String> = m
            .excluded
            .iter()
            .map(|(h, r)| format!("<li><b>{}</b>: {}</li>", escape(h), escape(r)))
            .collect();
        let _ = write!(html, "<ul class=\"excluded\">{}</ul>", rows.join(""));
    }
    if !m.suspect_uplinks.is_empty() {
        let _ = write!(
            html,
            "<p class=\"suspects\">suspect uplinks (the pairs crossing from these leaf switches to the others): <b>{}</b></p>",
            escape(&m.suspect_uplinks.join(", "))
        );
    }
    if !m.suspect_hosts.is_empty() || !m.suspect_pairs.is_empty() {
        let pairs: Vec<String> = m
            .suspect_pairs
            .iter()
            .map(|(s, c)| format!("{c} → {s}"))
            .collect();
        let _ = write!(
            html,
            "<p class=\"suspects\">suspect hosts: <b>{}</b>; suspect links: {}</p>",
            escape(&m.suspect_hosts.join(", ")),
            escape(&if pairs.is_empty() {
                "none".into()
            } else {
                pairs.join(", ")
            })
        );
    }
    if !flagged.is_empty() {
        html.push_str("<details><summary>flagged pairs</summary><table class=\"flagged\"><tr><th>client → server</th><th>value</th><th>retests</th><th>bad</th></tr>");
        for c in flagged.iter().take(200) {
            let retests: Vec<String> = c
                .retests
                .iter()
                .map(|v| v.map_or_else(|| "failed".into(), num))
                .collect();
            let _ = write!(
                html,
                "<tr><td>{} → {}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                escape(&c.client),
                escape(&c.server),
                escape(&c.value.map_or_else(
                    || c.error.clone().unwrap_or_else(|| "failed".into()),
                    |v| format!("{} {}", num(v), m.unit())
                )),
                escape(&retests.join(", ")),
                if c.bad { "yes" } else { "no" }
            );
        }
        if flagged.len() > 200 {
            let _ = write!(
                html,
                "<tr><td colspan=\"4\">… and {} more</td></tr>",
                flagged.len() - 200
            );
        }
        html.push_str("</table></details>");
    }
    html
}

/// The section: a heatmap per `fabric::all_pairs` call.
pub(crate) struct FabricMatrixSection;

impl Section for FabricMatrixSection {
    fn id(&self) -> &'static str {
        "fabric-matrix"
    }

    fn title(&self) -> &'static str {
        "fabric: all-pairs matrix"
    }

    fn render(&self, model: &RunModel) -> Result<Option<String>, ReportError> {
        let mut rounds = Unread::of("fabric::all_pairs rounds");
        let mut verdicts = Unread::of("fabric::all_pairs verdicts");
        let found = matrices(model, &mut rounds, &mut verdicts);
        let mut html = rounds.html();
        html.push_str(&verdicts.html());
        if found.is_empty() {
            return Ok((!html.is_empty()).then_some(html));
        }
        for (number, m) in found.iter().enumerate() {
            let kind = if m.latency { "latency" } else { "bandwidth" };
            let _ = write!(
                html,
                "<figure class=\"heatmap\" data-test=\"{}\" data-kind=\"{kind}\" data-hosts=\"{}\" data-pairs=\"{}\" data-flagged=\"{}\" data-bad=\"{}\"><figcaption><b>{}</b> ({kind}, {}) · recorded by {}</figcaption>{}{}{}</figure>",
                escape(&m.test),
                m.hosts.len(),
                m.cells.len(),
                m.cells.iter().filter(|c| c.flagged).count(),
                m.cells.iter().filter(|c| c.bad).count(),
                escape(&m.test),
                m.unit(),
                escape(&m.recorded_by),
                svg(m),
                legend(m, number),
                summary(m),
            );
        }
        Ok(Some(html))
    }
}

#[cfg(test)]
mod tests {
    use cairn_stdlib::fabric::{Excluded, Suspects};

    use super::*;

    /// A passed verdict of `hosts` with no pair flagged, no reference and no suspect.
    fn verdict(hosts: Vec<String>) -> MatrixVerdict {
        MatrixVerdict {
            test: "send_bw".into(),
            unit: "Gb/s".into(),
            hosts,
            excluded: Vec::new(),
            reference: None,
            limit: None,
            min_fraction: 0.93,
            max_latency_factor: 2.1,
            flagged: Vec::new(),
            bad: Vec::new(),
            suspects: Suspects::default(),
            planned_s: 1.0,
            took_s: 1.0,
            passed: true,
        }
    }

    fn matrix(n: usize, slow: &str) -> Matrix {
        let hosts: Vec<String> = (1..=n).map(|i| format!("node{i:03}")).collect();
        let mut m = Matrix::new("controller", "send_bw");
        let mut records = Vec::new();
        for (i, a) in hosts.iter().enumerate() {
            for b in &hosts[i + 1..] {
                let gbps = if a == slow || b == slow { 24.0 } else { 96.0 };
                records.push(PairResult {
                    server: a.clone(),
                    client: b.clone(),
                    ok: true,
                    error: None,
                    gbps: Some(gbps),
                    typical_us: None,
                    elapsed_ms: 0,
                });
            }
        }
        m.add_round(records);
        let flagged: Vec<(String, String)> = m
            .cells
            .iter()
            .filter(|c| c.value < Some(90.0))
            .map(|c| (c.server.clone(), c.client.clone()))
            .collect();
        m.judge(MatrixVerdict {
            reference: Some(96.0),
            limit: Some(89.28),
            bad: flagged.clone(),
            flagged,
            suspects: Suspects {
                uplinks: Vec::new(),
                hosts: vec![slow.to_owned()],
                pairs: Vec::new(),
            },
            passed: false,
            ..verdict(hosts)
        });
        m
    }

    #[test]
    fn a_host_not_tested_keeps_a_greyed_row_with_its_reason_and_the_matrix_is_not_pass() {
        let mut m = matrix(4, "node002");
        m.judge(MatrixVerdict {
            excluded: vec![Excluded {
                host: "node042".into(),
                reason: "failed: 1 difference(s) from the manifest".into(),
            }],
            ..verdict(m.hosts.clone())
        });
        assert_eq!(m.hosts.len(), 5);
        let drawn = svg(&m);
        assert!(
            drawn.contains("class=\"excluded\" data-host=\"node042\""),
            "{drawn}"
        );
        assert!(
            drawn.contains("node042: not tested, failed: 1 difference(s)"),
            "{drawn}"
        );
        let said = summary(&m);
        assert!(
            said.contains("FAIL</b> · 1 of 5 hosts not tested"),
            "{said}"
        );
    }

    #[test]
    fn a_100_host_matrix_is_one_cell_a_pair_with_thinned_labels_and_the_suspect_named() {
        let m = matrix(100, "node042");
        let svg = svg(&m);
        assert_eq!(svg.matches("<rect class=\"cell").count(), 4950);
        assert_eq!(svg.matches("class=\"cell bad\"").count(), 99);
        // Every other host labelled (7 px cells); the suspect (node042, index 41) takes the
        // place of its two neighbours.
        let rows = svg.matches("class=\"row-label\"").count();
        assert_eq!(rows, 49, "{rows} row labels");
        assert!(svg.contains("font-weight=\"bold\">node042</text>"));
        // Readable: the grid fits a laptop's screen.
        let width: usize = svg
            .split("width=\"")
            .nth(1)
            .and_then(|w| w.split('"').next())
            .and_then(|w| w.parse().ok())
            .unwrap_or(usize::MAX);
        assert!(width <= 900, "{width} px wide");
    }

    #[test]
    fn labels_never_overlap_even_when_many_hosts_are_suspects() {
        let mut m = matrix(100, "node042");
        m.suspect_hosts = (60..=100).map(|i| format!("node{i:03}")).collect();
        let (_, every) = layout(100);
        let kept: Vec<usize> = labelled(&m, every).into_iter().collect();
        assert!(kept.windows(2).all(|w| w[1] - w[0] >= every), "{kept:?}");
        assert!(
            kept.contains(&59),
            "the first suspect is labelled: {kept:?}"
        );
        // Small cells keep their colour: a bad one gets a dot, not a red cross over it.
        assert!(!mark(0, 0, 7, true).contains("<path"));
        assert!(mark(0, 0, 28, true).contains("<path"));
    }

    #[test]
    fn the_ramp_runs_from_poor_to_good_and_clamps() {
        assert_eq!(ramp(0.0), "#440154");
        assert_eq!(ramp(1.0), "#fde725");
        assert_eq!(ramp(7.0), ramp(1.0));
        assert_eq!(ramp(f64::NAN), ramp(0.0));
        let bw = Domain {
            good: 100.0,
            poor: 0.0,
        };
        assert!((bw.t(25.0) - 0.25).abs() < 1e-9);
        let lat = Domain {
            good: 1.0,
            poor: 3.0,
        };
        assert!((lat.t(1.0) - 1.0).abs() < 1e-9 && lat.t(3.0).abs() < 1e-9);
    }

    #[test]
    fn a_small_matrix_gets_big_cells_and_every_label() {
        let m = matrix(4, "node002");
        let (cell, every) = layout(4);
        assert_eq!((cell, every), (28, 1));
        assert_eq!(svg(&m).matches("class=\"col-label\"").count(), 4);
        let html = summary(&m);
        assert!(html.contains("FAIL") && html.contains("node002"), "{html}");
    }

    /// The section of a run whose controller journaled `actions`, on three nodes.
    fn section_of(actions: &[crate::test_journals::Act]) -> String {
        use cairn_runtime::RunFolders;

        use crate::test_journals::{new_run, write_controller};

        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let store = RunFolders::new(dir.path());
        let hosts: Vec<String> = ["node001", "node002", "node003"]
            .map(str::to_owned)
            .to_vec();
        let id = new_run(&store, &hosts);
        write_controller(&store, &id, &hosts, actions);
        let model = RunModel::load(&store, Some(&id)).unwrap_or_else(|e| panic!("{e}"));
        FabricMatrixSection
            .render(&model)
            .unwrap_or_else(|e| panic!("{e}"))
            .unwrap_or_else(|| panic!("the section shows nothing"))
    }

    fn pair(server: &str, client: &str) -> PairResult {
        PairResult {
            server: server.into(),
            client: client.into(),
            ok: true,
            error: None,
            gbps: Some(96.0),
            typical_us: None,
            elapsed_ms: 1200,
        }
    }

    /// Two rounds, the second journaled with `gbps` renamed `bandwidth`: the heatmap draws the
    /// first round's pair and the section names the round it could not read, instead of a
    /// matrix that silently lacks its pairs.
    #[test]
    fn a_round_of_another_shape_is_named_not_dropped() {
        use serde_json::json;

        use crate::test_journals::Act;

        let good = json!([pair("node001", "node002")]);
        let mut renamed = json!([pair("node001", "node003")]);
        let gbps = renamed[0]["gbps"].take();
        renamed[0]["bandwidth"] = gbps;
        if let Some(map) = renamed[0].as_object_mut() {
            map.remove("gbps");
        }
        let args = json!({ "phase": "matrix", "test": "send_bw" });
        let html = section_of(&[
            Act::query("fabric::all_pairs", args.clone(), good),
            Act::query("fabric::all_pairs", args, renamed),
        ]);
        assert!(html.contains("data-pairs=\"1\""), "{html}");
        assert!(
            html.contains("1 result of fabric::all_pairs rounds could not be read: a field `[0].bandwidth` its type does not have (controller action 2"),
            "{html}"
        );
    }

    /// A round, then its verdict journaled with `bad` renamed `bad_pairs`: the matrix is drawn
    /// unjudged and the section names the record, instead of a verdict whose every list
    /// defaulted to empty (a matrix with no bad pair).
    #[test]
    fn a_verdict_of_another_shape_is_named_not_defaulted() {
        use serde_json::json;

        use crate::test_journals::Act;

        let round = json!([pair("node001", "node002")]);
        let hosts = vec!["node001".to_owned(), "node002".to_owned()];
        let mut renamed = serde_json::to_value(verdict(hosts.clone())).unwrap_or(Value::Null);
        if let Some(map) = renamed.as_object_mut()
            && let Some(bad) = map.remove("bad")
        {
            map.insert("bad_pairs".into(), bad);
        }
        let matrix = json!({ "phase": "matrix", "test": "send_bw" });
        let closing = json!({ "phase": "verdict", "test": "send_bw", "hosts": 2 });
        let html = section_of(&[
            Act::query("fabric::all_pairs", matrix.clone(), round.clone()),
            Act::query("fabric::all_pairs", closing.clone(), renamed),
        ]);
        assert!(
            html.contains("1 result of fabric::all_pairs verdicts could not be read: missing field `bad` (controller action 2, book.rhai:"),
            "{html}"
        );
        assert!(
            html.contains("the verdict record could not be read (named above)"),
            "{html}"
        );
        assert!(!html.contains("PASS"), "{html}");
        let whole = serde_json::to_value(verdict(hosts)).unwrap_or(Value::Null);
        let html = section_of(&[
            Act::query("fabric::all_pairs", matrix, round),
            Act::query("fabric::all_pairs", closing, whole),
        ]);
        assert!(!html.contains("could not be read"), "{html}");
        assert!(html.contains("<b>PASS</b>"), "{html}");
    }
}
