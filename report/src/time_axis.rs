//! The timeline's time axis: the attempts' spans side by side, the time between them (a run
//! stopped overnight and resumed) cut to a narrow break, so a gap does not squeeze the whole
//! run into a sliver; ticks in UTC at a round step.

use crate::html::{duration, utc_time};

/// Percent of the width a break between two attempts takes.
const BREAK: f64 = 2.0;

/// Round tick steps, in milliseconds.
const STEPS: [u64; 12] = [
    1_000, 5_000, 10_000, 30_000, 60_000, 300_000, 600_000, 1_800_000, 3_600_000, 7_200_000,
    21_600_000, 86_400_000,
];

/// Where a time goes on the page.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct TimeAxis {
    /// Disjoint `(start, end)` in order.
    segments: Vec<(u64, u64)>,
    /// Percent per millisecond inside a segment.
    scale: f64,
}

impl TimeAxis {
    /// An axis over `spans` (the attempts'), overlapping ones merged.
    pub(crate) fn new(mut spans: Vec<(u64, u64)>) -> Option<Self> {
        spans.sort_unstable();
        let mut segments: Vec<(u64, u64)> = Vec::new();
        for (start, end) in spans {
            match segments.last_mut() {
                Some(last) if start <= last.1 => last.1 = last.1.max(end),
                _ => segments.push((start, end.max(start))),
            }
        }
        let active: u64 = segments.iter().map(|(s, e)| e - s).sum();
        let breaks = segments.len().saturating_sub(1) as f64;
        (!segments.is_empty()).then(|| Self {
            scale: (100.0 - BREAK * breaks) / active.max(1) as f64,
            segments,
        })
    }

    /// `at` as a percent of the width.
    pub(crate) fn pos(&self, at: u64) -> f64 {
        let mut offset = 0.0;
        for (index, &(start, end)) in self.segments.iter().enumerate() {
            if at <= start {
                return offset;
            }
            if at <= end {
                return offset + (at - start) as f64 * self.scale;
            }
            offset += (end - start) as f64 * self.scale;
            if let Some(&(next, _)) = self.segments.get(index + 1) {
                if at < next {
                    return offset + BREAK * (at - end) as f64 / (next - end).max(1) as f64;
                }
                offset += BREAK;
            }
        }
        offset.min(100.0)
    }

    /// The breaks: where each is, and how long nothing ran.
    pub(crate) fn breaks(&self) -> Vec<(f64, String)> {
        self.segments
            .windows(2)
            .map(|pair| (self.pos(pair[0].1), duration(pair[1].0 - pair[0].1)))
            .collect()
    }

    /// Ticks at a round step (at most about eight over the run), and at each attempt's start;
    /// labels `HH:MM:SS` in UTC, the date at the first.
    pub(crate) fn ticks(&self) -> Vec<(f64, String)> {
        let active: u64 = self.segments.iter().map(|(s, e)| e - s).sum();
        let step = STEPS
            .iter()
            .copied()
            .find(|step| active / step <= 8)
            .unwrap_or(86_400_000);
        let mut ticks: Vec<(f64, String)> = Vec::new();
        for (index, &(start, end)) in self.segments.iter().enumerate() {
            let mut at = start;
            while at <= end {
                let pos = self.pos(at);
                // The first label holds the date too, so it needs twice the room.
                let close = |ticks: &Vec<(f64, String)>| {
                    let room = if ticks.len() == 1 { 14.0 } else { 7.0 };
                    ticks.last().is_some_and(|(last, _)| pos - last < room)
                };
                // An attempt's start after a break is always labelled.
                if at == start && index > 0 {
                    while ticks.len() > 1 && close(&ticks) {
                        ticks.pop();
                    }
                }
                if !close(&ticks) {
                    let label = utc_time(at);
                    let label = if ticks.is_empty() {
                        label
                    } else {
                        clock(&label)
                    };
                    ticks.push((pos, label));
                }
                at = (at / step + 1) * step;
            }
        }
        ticks
    }
}

/// `HH:MM:SS` of a `YYYY-MM-DD HH:MM:SS UTC` label.
fn clock(label: &str) -> String {
    label.split(' ').nth(1).unwrap_or(label).to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_stop_between_attempts_is_a_narrow_break() {
        let hour = 3_600_000;
        // Ten minutes, a night stopped, ten minutes.
        let axis = TimeAxis::new(vec![(0, 600_000), (12 * hour, 12 * hour + 600_000)])
            .unwrap_or_else(|| panic!("two spans"));
        assert!(
            (axis.pos(600_000) - 49.0).abs() < 1e-9,
            "{}",
            axis.pos(600_000)
        );
        assert!((axis.pos(12 * hour) - 51.0).abs() < 1e-9);
        assert!((axis.pos(12 * hour + 600_000) - 100.0).abs() < 1e-9);
        assert_eq!(axis.breaks(), vec![(49.0, "11 h 50 min".to_owned())]);
        let ticks = axis.ticks();
        assert_eq!(ticks[0].1, "1970-01-01 00:00:00 UTC");
        assert!(
            ticks.iter().any(|(_, label)| label == "12:00:00"),
            "{ticks:?}"
        );
        assert!(
            ticks.windows(2).all(|w| w[1].0 - w[0].0 >= 7.0),
            "{ticks:?}"
        );
    }

    #[test]
    fn overlapping_spans_are_one_segment_without_a_break() {
        let axis = TimeAxis::new(vec![(0, 100), (50, 200)]).unwrap_or_else(|| panic!("spans"));
        assert!(axis.breaks().is_empty());
        assert!((axis.pos(100) - 50.0).abs() < 1e-9);
        assert!(TimeAxis::new(Vec::new()).is_none());
    }
}
