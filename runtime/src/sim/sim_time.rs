//! Timestamps as the simulated tools print them, from milliseconds since the Unix epoch (UTC).

/// Where a virtual clock starts on a new host, so that simulated logs carry plausible,
/// reproducible dates.
pub(crate) const VIRTUAL_EPOCH_MILLIS: u64 = crate::clock::SIMULATED_EPOCH_MILLIS;

use crate::utc_time::UtcTime;

/// `Mon 2026-11-30 05:02:59 UTC`, as systemd prints a timestamp.
pub(crate) fn systemd_timestamp(millis: u64) -> String {
    let c = UtcTime::from_millis(millis);
    format!(
        "{} {:04}-{:02}-{:02} {:02}:{:02}:{:02} UTC",
        c.weekday, c.year, c.month, c.day, c.hour, c.minute, c.second
    )
}

/// `2026-11-30T05:02:59.000Z`, as ESXi logs print a timestamp.
pub(crate) fn esxi_timestamp(millis: u64) -> String {
    let c = UtcTime::from_millis(millis);
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
        c.year, c.month, c.day, c.hour, c.minute, c.second, c.millis
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_the_virtual_epoch() {
        assert_eq!(
            systemd_timestamp(VIRTUAL_EPOCH_MILLIS),
            "Mon 2026-11-30 05:00:00 UTC"
        );
        assert_eq!(
            esxi_timestamp(VIRTUAL_EPOCH_MILLIS + 179_250),
            "2026-11-30T05:02:59.250Z"
        );
    }

    #[test]
    fn formats_the_unix_epoch_and_a_leap_day() {
        assert_eq!(systemd_timestamp(0), "Thu 1970-01-01 00:00:00 UTC");
        // 2024-02-29T12:00:00Z
        assert_eq!(
            systemd_timestamp(1_709_208_000_000),
            "Thu 2024-02-29 12:00:00 UTC"
        );
    }
}
