//! The simulator faults that make a change staged for the next boot not take, one option per
//! tool (`fault_ignore_staged` for mlxconfig and its siblings), so the reboot-loop breaker can
//! be tested on every builtin that stages one: after the boot, the change is not there.
//! Which real causes each stands for is in docs/simulator.md ("Options and faults").

use cairn_runtime::sim::SimContext;

/// `NAME[,NAME...]` of an option: the names the fault applies to (empty when unset).
pub(crate) fn names(host: &SimContext<'_>, key: &str) -> Vec<String> {
    host.option(key)
        .unwrap_or("")
        .split(',')
        .map(|n| n.trim().to_owned())
        .filter(|n| !n.is_empty())
        .collect()
}

/// A yes/no fault: set (a bare key, `true`, `1`, `yes`).
pub(crate) fn flag(host: &SimContext<'_>, key: &str) -> bool {
    host.option(key)
        .is_some_and(|v| matches!(v, "true" | "1" | "yes"))
}

/// Checks a `NAME[,NAME...]` value.
pub(crate) fn check_names(value: &str) -> Result<(), String> {
    let bad = value
        .split(',')
        .any(|n| n.trim().is_empty() || n.trim().contains(char::is_whitespace));
    if bad {
        Err("NAME[,NAME...] such as nmlx5_core".into())
    } else {
        Ok(())
    }
}

/// Checks a yes/no value.
pub(crate) fn check_flag(value: &str) -> Result<(), String> {
    match value {
        "true" | "1" | "yes" | "false" | "0" | "no" => Ok(()),
        _ => Err("`true` or `false`".into()),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn values_are_checked() {
        assert!(super::check_names("mft,nmst").is_ok());
        assert!(super::check_names("mft,").is_err());
        assert!(super::check_flag("yes").is_ok());
        assert!(super::check_flag("maybe").is_err());
    }
}
