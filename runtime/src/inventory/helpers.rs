//! Helpers: the hosts a run's selected hosts name in their vars (`vhpc_host = "vcenter"`, the
//! management host vCenter is reached through). A `--limit` or `cairn debug --host` run takes
//! them along as Ansible's `delegate_to` ignores `--limit`: their transports are there for
//! what a selected host asks of them, but they run no stage of their own.

use super::HostSpec;

/// The hosts of `hosts` outside `selected` that a selected host's string var names, in
/// inventory order. Sets, not scans: a share of a 10,000-host run selects 2,500 of them, and a
/// scan of every host's vars for each other host took minutes.
pub fn helpers(hosts: &[HostSpec], selected: &[String]) -> Vec<String> {
    let selected: std::collections::HashSet<&str> = selected.iter().map(String::as_str).collect();
    let named: std::collections::HashSet<&str> = hosts
        .iter()
        .filter(|host| selected.contains(host.name.as_str()))
        .flat_map(|host| host.vars.values())
        .filter_map(|value| value.as_str())
        .collect();
    hosts
        .iter()
        .map(|host| host.name.clone())
        .filter(|name| !selected.contains(name.as_str()) && named.contains(name.as_str()))
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
