//! An inventory: the hosts a run may reach, in file order, with their groups.

use std::path::Path;

use super::inventory_builder::InventoryBuilder;
use super::{AddressCheck, HostSpec, InventoryError};

/// Hosts and groups read from a TOML inventory (see `docs/inventory.md`).
///
/// ```
/// use cairn_runtime::inventory::{Address, Inventory};
///
/// let inventory = Inventory::parse(
///     "lab.toml",
///     r#"
///     [hosts."node[01-08]"]
///     address = "sim:linux?reboot_secs=2"
///     groups = ["compute"]
///     "#,
/// )?;
/// assert_eq!(inventory.group("compute").len(), 8);
/// assert_eq!(inventory.hosts()[0].name, "node01");
/// assert!(matches!(&inventory.hosts()[7].address, Address::Sim { model, .. } if model == "linux"));
/// # Ok::<(), cairn_runtime::inventory::InventoryError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Inventory {
    groups: Vec<String>,
    hosts: Vec<HostSpec>,
}

impl Inventory {
    /// Reads and resolves the inventory at `path`.
    pub fn load(path: impl AsRef<Path>) -> Result<Self, InventoryError> {
        Self::load_checked(path, None)
    }

    /// Reads and resolves the inventory at `path`, checking each address with `check`.
    pub fn load_checked(
        path: impl AsRef<Path>,
        check: Option<AddressCheck<'_>>,
    ) -> Result<Self, InventoryError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|source| InventoryError::Io {
            path: path.display().to_string(),
            source,
        })?;
        Self::parse_checked(&path.display().to_string(), &text, check)
    }

    /// Resolves the inventory `text`; `name` names the file in error messages.
    pub fn parse(name: &str, text: &str) -> Result<Self, InventoryError> {
        Self::parse_checked(name, text, None)
    }

    /// Resolves the inventory `text`, checking each address with `check`.
    pub fn parse_checked(
        name: &str,
        text: &str,
        check: Option<AddressCheck<'_>>,
    ) -> Result<Self, InventoryError> {
        let (hosts, groups) = InventoryBuilder::new(name, text, check).build()?;
        Ok(Self { groups, hosts })
    }

    /// An inventory of the given hosts (for example a single host given on the command line);
    /// the caller keeps names unique. Groups are those the hosts list, `all` first.
    pub fn from_hosts(hosts: Vec<HostSpec>) -> Self {
        let mut groups = vec!["all".to_owned()];
        for group in hosts.iter().flat_map(|host| &host.groups) {
            if !groups.contains(group) {
                groups.push(group.clone());
            }
        }
        Self { groups, hosts }
    }

    /// Every host, in file order (a range in its order).
    pub fn hosts(&self) -> &[HostSpec] {
        &self.hosts
    }

    /// The host called `name`.
    pub fn host(&self, name: &str) -> Option<&HostSpec> {
        self.hosts.iter().find(|host| host.name == name)
    }

    /// The hosts in `group` (`all` for every host), in file order; none for an unknown group.
    pub fn group(&self, group: &str) -> Vec<&HostSpec> {
        self.hosts
            .iter()
            .filter(|host| host.in_group(group))
            .collect()
    }

    /// Every group name, `all` first, then in declaration order.
    pub fn group_names(&self) -> &[String] {
        &self.groups
    }
}
