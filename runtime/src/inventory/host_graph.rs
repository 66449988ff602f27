//! `cairn hosts`: the hosts a pattern selects, under each group they are in, drawn as
//! `ansible-inventory --graph` draws an inventory (`@all:`, then `|--@group:` and
//! `|  |--host`), one level of groups deep: a host in a nested group is listed under its parent
//! group too, since its groups include every parent.

use super::{HostSpec, Inventory};

/// The graph of `selected` (hosts of `inventory`), one line each, groups in declaration order;
/// groups with none of the selected hosts are left out.
pub fn host_graph(inventory: &Inventory, selected: &[&HostSpec]) -> Vec<String> {
    let mut lines = vec!["@all:".to_owned()];
    for group in inventory.group_names().iter().filter(|g| *g != "all") {
        let members: Vec<&&HostSpec> = selected.iter().filter(|h| h.in_group(group)).collect();
        if members.is_empty() {
            continue;
        }
        lines.push(format!("  |--@{group}:"));
        lines.extend(members.iter().map(|h| format!("  |  |--{}", h.name)));
    }
    // Hosts in no group but `all`, as Ansible's `ungrouped`.
    let ungrouped: Vec<&&HostSpec> = selected.iter().filter(|h| h.groups.len() <= 1).collect();
    if !ungrouped.is_empty() {
        lines.push("  |--@ungrouped:".to_owned());
        lines.extend(ungrouped.iter().map(|h| format!("  |  |--{}", h.name)));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_groups_with_their_selected_hosts() {
        let text = r#"
            [hosts."esx[01-02]"]
            address = "sim:esxi7"
            groups = ["esxi"]
            [hosts.lone]
            address = "sim:linux"
        "#;
        let inventory = Inventory::parse("lab.toml", text).unwrap_or_else(|e| panic!("{e:?}"));
        let hosts: Vec<&HostSpec> = inventory.hosts().iter().skip(1).collect();
        assert_eq!(
            host_graph(&inventory, &hosts),
            [
                "@all:",
                "  |--@esxi:",
                "  |  |--esx02",
                "  |--@ungrouped:",
                "  |  |--lone"
            ]
        );
    }
}
