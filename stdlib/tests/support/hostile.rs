//! Hostile inputs made from real outputs, shared by the parser fuzz test and the parser bench:
//! 1 MB shapes that catch super-linear grammars, and the mutations a captured output suffers
//! (CRLF, truncation, repeated lines, huge numbers, long runs).

#![allow(dead_code, unreachable_pub)]

/// A small seeded generator (xorshift64*), so a failing case can be replayed from its seed.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Self(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number below `n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

/// The largest char boundary at or before `at`.
pub fn floor_boundary(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// `text` repeated until it is at least `size` bytes.
fn repeated(text: &str, size: usize) -> String {
    let unit = if text.is_empty() { "\n" } else { text };
    let mut out = String::with_capacity(size + unit.len());
    while out.len() < size {
        out.push_str(unit);
        if !unit.ends_with('\n') {
            out.push('\n');
        }
    }
    out
}

/// Every line of `text` with `run` inserted after its first word (or at its start).
fn in_every_line(text: &str, run: &str) -> String {
    text.split_inclusive('\n')
        .map(|line| {
            let at = line
                .trim_start()
                .find([' ', '\t'])
                .map_or(0, |i| i + line.len() - line.trim_start().len());
            format!("{}{run}{}", &line[..at], &line[at..])
        })
        .collect()
}

/// `text` with `run` inserted after the first word of its first non-blank line.
fn in_first_line(text: &str, run: &str) -> String {
    let start = text
        .split_inclusive('\n')
        .take_while(|line| line.trim().is_empty())
        .map(str::len)
        .sum::<usize>();
    let line = &text[start..];
    let at = start
        + line
            .find([' ', '\t', ':'])
            .unwrap_or(line.find('\n').unwrap_or(line.len()));
    format!("{}{run}{}", &text[..at], &text[at..])
}

/// The shapes of a `size`-byte input made from `seed`, by name: the output repeated, one run of
/// spaces the size of the input, 20,000 tabs in every line, a 70,000-letter line, one huge
/// number, blank lines only, CRLF line ends, CR-only line ends (a terminal capture, a serial
/// console), and one line of single-spaced short words.
pub fn shapes(seed: &str, size: usize) -> Vec<(&'static str, String)> {
    let first_digit = seed.find(|c: char| c.is_ascii_digit()).unwrap_or(0);
    vec![
        ("repeated", repeated(seed, size)),
        ("space-run", in_first_line(seed, &" ".repeat(size))),
        (
            "tabs-20k",
            repeated(&in_every_line(seed, &"\t".repeat(20_000)), size),
        ),
        (
            "letters-70k",
            repeated(&in_first_line(seed, &"x".repeat(70_000)), size),
        ),
        (
            "huge-number",
            format!(
                "{}{}{}",
                &seed[..first_digit],
                "9".repeat(size),
                &seed[first_digit..]
            ),
        ),
        ("blank-lines", format!("{seed}{}", " \t\n".repeat(size / 3))),
        ("words", in_first_line(seed, &" ab".repeat(size / 3))),
        ("crlf", repeated(&seed.replace('\n', "\r\n"), size)),
        ("cr", repeated(&seed.replace('\n', "\r"), size)),
    ]
}

/// One mutation of `text`, of the kinds a captured output suffers.
pub fn mutate(text: &str, rng: &mut Rng) -> String {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let line = rng.below(lines.len().max(1));
    let at = floor_boundary(text, rng.below(text.len() + 1));
    match rng.below(9) {
        // CRLF, or CR alone, as a terminal capture or a serial console gives them.
        0 => text.replace('\n', ["\r\n", "\r"][rng.below(2)]),
        1 => text[..at].to_owned(),
        2 => {
            let mut out: Vec<&str> = lines.clone();
            for _ in 0..=rng.below(3) {
                if let Some(&l) = lines.get(line) {
                    out.insert(line, l);
                }
            }
            out.concat()
        }
        3 => {
            let mut out = lines.clone();
            if line < out.len() {
                out.remove(line);
            }
            out.concat()
        }
        4 => {
            // A number made huge, or a huge number where one was.
            let digits = "9".repeat(1 + rng.below(40));
            match text[at..].find(|c: char| c.is_ascii_digit()) {
                Some(i) => format!("{}{digits}{}", &text[..at + i], &text[at + i..]),
                None => format!("{}{digits}{}", &text[..at], &text[at..]),
            }
        }
        5 => {
            let run = [" ", "\t", "x", "0", ":", "-", "\n"][rng.below(7)];
            let len = [1_000, 20_000, 70_000][rng.below(3)];
            format!("{}{}{}", &text[..at], run.repeat(len), &text[at..])
        }
        6 => {
            let pieces = [
                "\u{0}", "\u{feff}", "é", "\r", ":", "  ", "\t", "[", "]", "0x", "-1",
            ];
            format!(
                "{}{}{}",
                &text[..at],
                pieces[rng.below(pieces.len())],
                &text[at..]
            )
        }
        7 => {
            // Two outputs glued at a random cut, as from a redraw or a split capture.
            let other = floor_boundary(text, rng.below(text.len() + 1));
            format!("{}{}", &text[..at], &text[other..])
        }
        _ => text.trim_end_matches('\n').to_owned(),
    }
}
