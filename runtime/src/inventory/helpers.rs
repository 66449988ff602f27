//! Helpers: the hosts a run's selected hosts name in their vars (`vhpc_host = "vcenter"`, the
//! management host vCenter is reached through). A `--limit` or `cairn debug --host` run takes
//! them along as Ansible's `delegate_to` ignores `--limit`: their transports are there for
//! what a selected host asks of them, but they run no stage of their own.

use super::HostSpec;

/// The hosts of `hosts` outside `selected` that a selected host's string var names, in
/// inventory order.
pub fn helpers(hosts: &[HostSpec], selected: &[String]) -> Vec<String> {
    let named = |name: &str| {
        hosts
            .iter()
            .filter(|host| selected.contains(&host.name))
            .flat_map(|host| host.vars.values())
            .any(|value| value.as_str() == Some(name))
    };
    hosts
        .iter()
        .map(|host| host.name.clone())
        .filter(|name| !selected.contains(name) && named(name))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inventory::Inventory;

    #[test]
    fn a_selected_host_brings_the_management_host_its_vars_name_and_no_other() {
        let text = r#"
[groups.esxi.vars]
vhpc_host = "vcenter"

[hosts.esx01]
address = "sim:esxi7"
groups = ["esxi"]

[hosts.esx02]
address = "sim:esxi7"
groups = ["esxi"]

[hosts.vcenter]
address = "sim:esxi7?role=vcenter"
groups = ["management"]
"#;
        let inventory = Inventory::parse("lab.toml", text).unwrap_or_else(|e| panic!("{e:?}"));
        let hosts = inventory.hosts();
        assert_eq!(helpers(hosts, &["esx01".into()]), ["vcenter"]);
        assert!(helpers(hosts, &["esx01".into(), "vcenter".into()]).is_empty());
        assert!(helpers(hosts, &["vcenter".into()]).is_empty());
    }
}
