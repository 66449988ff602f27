//! What the simulated `openibd` prints, in the script's own words (MLNX_OFED's
//! `ofed_scripts/openibd`): a step as `echo_success`/`echo_failure` print it without colours,
//! `stop()`'s refusal when an application still uses the InfiniBand devices (`openibd_held_by`),
//! and `rm_mod`'s failure when another module uses one of the stack's (`openibd_module_in_use`).

/// The application option: `PROGRAM` still has `/dev/infiniband/umad0` open.
pub(crate) const HELD_BY: &str = "openibd_held_by";
/// The module option: `MODULE:USER,USER` (`mlx_compat:nvme_core,nvme_fabrics`).
pub(crate) const MODULE_IN_USE: &str = "openibd_module_in_use";

/// A step line, the status at column 60 as `RES_COL=60` puts it on a terminal without colours.
pub(crate) fn step(name: &str, ok: bool) -> String {
    format!("{name:<59}[{}]\n", if ok { "  OK  " } else { "FAILED" })
}

/// Checks an option's value.
pub(crate) fn check_option(key: &str, value: &str) -> Result<(), String> {
    let word = |w: &str| !w.is_empty() && w.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
    match key {
        HELD_BY if word(value) => Ok(()),
        HELD_BY => Err("the name of a program (`opensm`)".into()),
        _ => match value.split_once(':') {
            Some((module, users)) if word(module) && users.split(',').all(word) => Ok(()),
            _ => Err("`MODULE:USER,USER` (`mlx_compat:nvme_core,nvme_fabrics`)".into()),
        },
    }
}

/// `stop()`'s refusal while `program` holds the devices: the services it names by name, the
/// `lsof` list, the error and the advice, ending with the command to run again (`$0
/// $ORIG_ACTION`). Exits 1.
pub(crate) fn held(program: &str, script: &str, action: &str) -> String {
    let mut text = String::new();
    if ["opensm", "osmtest", "ibbs", "ibns", "ibacm"].contains(&program) {
        text.push_str(&format!(
            "Please stop \"{program}\" and all applications running over InfiniBand.\n"
        ));
    }
    text.push_str("\nPlease stop the following applications still using Infiniband devices:\n");
    for device in ["issm0", "umad0"] {
        text.push_str(&format!(
            "{program}(1632) user root is using device {device}\n"
        ));
    }
    text.push_str(&format!(
        "\n\nError: Cannot unload the Infiniband driver stack due to the above issue(s)!\n\nOnce the above issue(s) resolved, run:\n# {script} {action}\n"
    ));
    text
}

/// `rm_mod`'s failure for `spec` (`MODULE:USER,USER`): the step, then `rmmod`'s own words.
/// Exits 1.
pub(crate) fn module_in_use(spec: &str) -> String {
    let (module, users) = spec.split_once(':').unwrap_or((spec, ""));
    format!(
        "{}rmmod: ERROR: Module {module} is in use by: {}\n",
        step(&format!("Unloading {module}"), false),
        users.replace(',', " ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_failure_paths_parse_as_the_script_means_them() {
        let held = super::super::parse(&held("opensm", "/etc/init.d/openibd", "restart"))
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(held.applications.len(), 2);
        assert_eq!(held.error.map(|e| e.kind).as_deref(), Some("blocked"));
        assert_eq!(held.next_steps, ["/etc/init.d/openibd restart"]);
        let in_use = super::super::parse(&module_in_use("mlx_compat:nvme_core,nvme_fabrics"))
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            in_use.modules_in_use[0].used_by,
            ["nvme_core", "nvme_fabrics"]
        );
        assert_eq!(
            in_use.error.map(|e| e.kind).as_deref(),
            Some("module_in_use")
        );
        assert!(check_option(MODULE_IN_USE, "mlx_compat").is_err());
        assert!(check_option(HELD_BY, "opensm").is_ok());
    }
}
