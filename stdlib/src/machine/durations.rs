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
    use std::collections::BTreeMap;
    use std::sync::Arc;

    use cairn_runtime::sim::SimTransport;
    use cairn_runtime::{ExecRequest, Transport};

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

    // Through a simulated host: the clock advances by the option's time when the operation
    // happens, not when nothing changes, and a bad value stops the host opening.
    fn esx(dir: &std::path::Path, extra: &[(&str, &str)]) -> Result<SimTransport, String> {
        let mut options = BTreeMap::from([("clock".to_owned(), "virtual".to_owned())]);
        for (k, v) in extra {
            options.insert((*k).to_owned(), (*v).to_owned());
        }
        let model = Arc::new(crate::models::esxi7::esxi7());
        SimTransport::new("esx01", dir, model, options).map_err(|e| e.to_string())
    }

    fn millis_after(host: &mut SimTransport, argv: &[&str]) -> u64 {
        let before = host.clock().now_millis();
        let out = host
            .exec(&ExecRequest::new(argv.iter().copied()))
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(out.code, 0, "{}", out.stderr);
        host.clock().now_millis() - before
    }

    const INSTALL: [&str; 7] = [
        "esxcli",
        "software",
        "vib",
        "install",
        "-v",
        "/n/mft-4.22.1.11-10EM-703.0.0.18644231.x86_64.vib",
        "-f",
    ];

    #[test]
    fn a_vib_install_takes_its_time_once_and_a_no_op_install_none() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let mut host =
            esx(dir.path(), &[("vib_install_secs", "60")]).unwrap_or_else(|e| panic!("{e}"));
        let mut dry = INSTALL.to_vec();
        dry.push("--dry-run");
        assert_eq!(millis_after(&mut host, &dry), 0);
        assert_eq!(millis_after(&mut host, &INSTALL), 60_000);
        assert_eq!(millis_after(&mut host, &INSTALL), 0, "Host is not changed");
    }

    #[test]
    fn without_the_option_an_install_takes_no_time() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let mut host = esx(dir.path(), &[]).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(millis_after(&mut host, &INSTALL), 0);
    }

    #[test]
    fn a_bad_duration_stops_the_host_opening_with_the_option_named() {
        for (key, bad) in [("vib_install_secs", "-5"), ("fw_burn_secs", "soon")] {
            let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
            let Err(message) = esx(dir.path(), &[(key, bad)]) else {
                panic!("{key}={bad} was accepted");
            };
            assert!(message.contains(key), "{message}");
        }
    }
}
