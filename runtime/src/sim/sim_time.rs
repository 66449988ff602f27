//! Timestamps as the simulated tools print them, from milliseconds since the Unix epoch (UTC).

/// Where a virtual clock starts on a new host, so that simulated logs carry plausible,
/// reproducible dates.
pub(crate) const VIRTUAL_EPOCH_MILLIS: u64 = crate::clock::SIMULATED_EPOCH_MILLIS;

const WEEKDAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];

/// A broken-down UTC time.
struct Civil {
    year: i64,
    month: u32,
    day: u32,
    hour: u64,
    minute: u64,
    second: u64,
    millis: u64,
    weekday: &'static str,
}

impl Civil {
    fn from_millis(millis: u64) -> Self {
        let days = millis / 86_400_000;
        let of_day = millis % 86_400_000;
        // Howard Hinnant's `civil_from_days`, for days since 1970-01-01.
        let z = i64::try_from(days).unwrap_or(i64::MAX / 2) + 719_468;
        let era = z.div_euclid(146_097);
        let doe = z.rem_euclid(146_097);
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let day = doy - (153 * mp + 2) / 5 + 1;
        let month = if mp < 10 { mp + 3 } else { mp - 9 };
        let year = yoe + era * 400 + i64::from(month <= 2);
        Self {
            year,
            month: u32::try_from(month).unwrap_or(1),
            day: u32::try_from(day).unwrap_or(1),
            hour: of_day / 3_600_000,
            minute: of_day / 60_000 % 60,
            second: of_day / 1000 % 60,
            millis: of_day % 1000,
            weekday: WEEKDAYS
                .get(usize::try_from(days % 7).unwrap_or(0))
                .copied()
                .unwrap_or("Thu"),
        }
    }
}

/// `Mon 2026-11-30 05:02:59 UTC`, as systemd prints a timestamp.
pub(crate) fn systemd_timestamp(millis: u64) -> String {
    let c = Civil::from_millis(millis);
    format!(
        "{} {:04}-{:02}-{:02} {:02}:{:02}:{:02} UTC",
        c.weekday, c.year, c.month, c.day, c.hour, c.minute, c.second
    )
}

/// `2026-11-30T05:02:59.000Z`, as ESXi logs print a timestamp.
pub(crate) fn esxi_timestamp(millis: u64) -> String {
    let c = Civil::from_millis(millis);
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
