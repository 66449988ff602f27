//! Durations as people read them in a recap: `850 ms`, `12.3 s`, `4m05s`, `1h02m`.

/// `ms` milliseconds, short.
pub fn human_duration(ms: u64) -> String {
    let secs = ms / 1000;
    if ms < 1000 {
        format!("{ms} ms")
    } else if secs < 60 {
        format!("{:.1} s", ms as f64 / 1000.0)
    } else if secs < 3600 {
        format!("{}m{:02}s", secs / 60, secs % 60)
    } else {
        format!("{}h{:02}m", secs / 3600, (secs % 3600) / 60)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn each_magnitude_has_its_unit() {
        assert_eq!(super::human_duration(850), "850 ms");
        assert_eq!(super::human_duration(12_345), "12.3 s");
        assert_eq!(super::human_duration(245_000), "4m05s");
        assert_eq!(super::human_duration(3_720_000), "1h02m");
    }
}
