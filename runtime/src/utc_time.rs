//! UTC calendar time from milliseconds since the Unix epoch: the one civil-date conversion
//! (run ids, the report's times, the simulated tools' timestamps all read it). Howard Hinnant's
//! `civil_from_days` (<https://howardhinnant.github.io/date_algorithms.html#civil_from_days>),
//! rather than a date crate, because only this one direction is ever needed.

/// Weekdays from 1970-01-01, a Thursday.
const WEEKDAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];

/// Month abbreviations, as `date` and the C library print them.
const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

/// A broken-down UTC time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UtcTime {
    pub year: i64,
    /// 1 to 12.
    pub month: u32,
    /// 1 to 31.
    pub day: u32,
    pub hour: u64,
    pub minute: u64,
    pub second: u64,
    pub millis: u64,
    /// `Thu` for 1970-01-01.
    pub weekday: &'static str,
}

impl UtcTime {
    /// The time `millis` milliseconds after 1970-01-01T00:00:00Z.
    pub fn from_millis(millis: u64) -> Self {
        let days = millis / 86_400_000;
        let of_day = millis % 86_400_000;
        let (year, month, day) = civil_from_days(i64::try_from(days).unwrap_or(i64::MAX / 2));
        Self {
            year,
            month,
            day,
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

    /// `Jan` for January.
    pub fn month_name(&self) -> &'static str {
        MONTHS
            .get(usize::try_from(self.month.saturating_sub(1)).unwrap_or(0))
            .copied()
            .unwrap_or("Jan")
    }
}

/// Days since 1970-01-01 → (year, month, day).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = u32::try_from(doy - (153 * mp + 2) / 5 + 1).unwrap_or(1);
    let month = u32::try_from(if mp < 10 { mp + 3 } else { mp - 9 }).unwrap_or(1);
    (yoe + era * 400 + i64::from(month <= 2), month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(20_787), (2026, 11, 30));
    }

    #[test]
    fn a_leap_day_and_its_weekday() {
        // 2024-02-29T12:00:00.250Z, a Thursday.
        let t = UtcTime::from_millis(1_709_208_000_250);
        assert_eq!(
            (t.year, t.month, t.day, t.hour, t.millis),
            (2024, 2, 29, 12, 250)
        );
        assert_eq!((t.weekday, t.month_name()), ("Thu", "Feb"));
        assert_eq!(UtcTime::from_millis(1_796_014_800_000).weekday, "Mon");
    }
}
