//! Escaping text for HTML, and small helpers the sections share.

use std::fmt::Write as _;

/// `text` with `&`, `<`, `>`, `"` and `'` escaped, safe in element content and quoted
/// attributes alike: everything in the page comes from journals, which hold what hosts printed.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A duration in milliseconds as a person reads it: `850 ms`, `12.4 s`, `3 min 05 s`,
/// `2 h 03 min`.
pub fn duration(ms: u64) -> String {
    let secs = ms / 1000;
    match ms {
        0..1_000 => format!("{ms} ms"),
        1_000..60_000 => format!("{:.1} s", ms as f64 / 1000.0),
        60_000..3_600_000 => format!("{} min {:02} s", secs / 60, secs % 60),
        _ => format!("{} h {:02} min", secs / 3600, secs % 3600 / 60),
    }
}

/// Milliseconds since the Unix epoch as UTC `YYYY-MM-DD HH:MM:SS`.
pub fn utc_time(ms: u64) -> String {
    let t = cairn_runtime::utc_time::UtcTime::from_millis(ms);
    let mut out = String::new();
    let _ = write!(
        out,
        "{:04}-{:02}-{:02} {:02}:{:02}:{:02} UTC",
        t.year, t.month, t.day, t.hour, t.minute, t.second
    );
    out
}

/// A message size in bytes as perftest's users say it: `2`, `64`, `4K`, `8M`.
pub fn bytes(size: f64) -> String {
    const UNITS: [(f64, &str); 3] = [(1_073_741_824.0, "G"), (1_048_576.0, "M"), (1024.0, "K")];
    for (unit, suffix) in UNITS {
        if size >= unit {
            let value = size / unit;
            return if (value - value.round()).abs() < 0.05 {
                format!("{}{suffix}", value.round())
            } else {
                format!("{value:.1}{suffix}")
            };
        }
    }
    format!("{}", size.round())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_in_host_output_is_escaped() {
        assert_eq!(
            escape("<script>alert('x') & \"y\"</script>"),
            "&lt;script&gt;alert(&#39;x&#39;) &amp; &quot;y&quot;&lt;/script&gt;"
        );
    }

    #[test]
    fn durations_and_sizes_read_as_people_say_them() {
        assert_eq!(duration(850), "850 ms");
        assert_eq!(duration(12_400), "12.4 s");
        assert_eq!(duration(185_000), "3 min 05 s");
        assert_eq!(duration(7_380_000), "2 h 03 min");
        assert_eq!(bytes(2.0), "2");
        assert_eq!(bytes(4096.0), "4K");
        assert_eq!(bytes(8_388_608.0), "8M");
    }

    #[test]
    fn epoch_milliseconds_are_shown_in_utc() {
        assert_eq!(utc_time(0), "1970-01-01 00:00:00 UTC");
        assert_eq!(utc_time(1_796_015_702_000), "2026-11-30 05:15:02 UTC");
    }
}
