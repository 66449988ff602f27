//! How long a simulated operation takes: a `*_secs` address option per slow operation (a VIB
//! install, a firmware burn, an OFED install, a VM power change), so a benchmark can give a
//! lab the durations of real hardware while tests keep them at zero. The values real hardware
//! shows, and where they come from, are in docs/simulator.md ("Operation durations").

use std::time::Duration;

use cairn_runtime::sim::SimContext;

/// The longest duration an option takes (a day): a typo such as `60000` stays visible.
const MAX_SECS: f64 = 86_400.0;

/// Checks a `*_secs` option: seconds, fractions allowed, from 0 to a day.
pub(crate) fn check(value: &str) -> Result<(), String> {
    match value.trim().parse::<f64>() {
        Ok(secs) if secs.is_finite() && (0.0..=MAX_SECS).contains(&secs) => Ok(()),
        _ => Err(format!(
            "`{value}`: seconds from 0 to {MAX_SECS} (fractions allowed, such as 0.5)"
        )),
    }
}

/// Lets the operation's `key` duration pass on the host's clock (nothing when the option is
/// absent). Returns `false` when the command's timeout cut it short: the operation then did
/// not happen, as a real command killed by its timeout.
pub(crate) fn take(host: &mut SimContext<'_>, key: &str) -> bool {
    let secs = host
        .option(key)
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s > 0.0)
        .map_or(0.0, |s| s.min(MAX_SECS));
    if secs == 0.0 {
        return true;
    }
    host.sleep(Duration::from_secs_f64(secs))
}

#[cfg(test)]
mod tests {
    use super::check;

    #[test]
    fn seconds_from_zero_to_a_day_are_taken_and_others_refused() {
        assert!(check("0").is_ok());
        assert!(check("0.25").is_ok());
        assert!(check("86400").is_ok());
        for bad in ["-1", "abc", "", "NaN", "86401", "inf"] {
            assert!(check(bad).is_err(), "{bad} was accepted");
        }
    }
}

#[cfg(test)]
mod tests_through_a_host;
