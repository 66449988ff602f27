//! A kind of simulated host: how it shows a boot, and which tools it has.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::sim_options::SimOptions;
use super::{BootMarker, SimError, SimTool};

/// A kind of simulated host (`linux`, and the vendor stdlib's `esxi`, ...).
#[derive(Clone)]
pub struct SimModel {
    /// How a boot shows on the host.
    pub boot_marker: BootMarker,
    /// The model's name, as written in `sim:NAME` addresses.
    pub name: String,
    /// The tools, consulted in order; the first that answers a program runs it.
    pub tools: Vec<Arc<dyn SimTool>>,
}

impl SimModel {
    /// A model with no tools: only the simulator's generic commands.
    pub fn new(name: impl Into<String>, boot_marker: BootMarker) -> Self {
        Self {
            boot_marker,
            name: name.into(),
            tools: Vec::new(),
        }
    }

    /// The model with `tool` added after the others.
    #[must_use]
    pub fn with_tool(mut self, tool: impl SimTool + 'static) -> Self {
        self.tools.push(Arc::new(tool));
        self
    }

    /// Checks a `sim:` address's options against the simulator's and this model's tools' own,
    /// names and values; the inventory calls it when it is loaded, before any run starts.
    pub fn check_options(&self, options: &BTreeMap<String, String>) -> Result<(), SimError> {
        self.options(options).map(|_| ())
    }

    /// The typed options of a `sim:` address, checked.
    pub(crate) fn options(
        &self,
        options: &BTreeMap<String, String>,
    ) -> Result<SimOptions, SimError> {
        for tool in &self.tools {
            for key in tool.options() {
                if let Some(value) = options.get(*key) {
                    tool.check_option(key, value)
                        .map_err(|expected| SimError::BadOption {
                            expected,
                            key: (*key).to_owned(),
                            value: value.clone(),
                        })?;
                }
            }
        }
        let tool_options = self
            .tools
            .iter()
            .flat_map(|tool| tool.options().iter().copied());
        SimOptions::parse(options, tool_options)
    }

    /// The tool that answers `program`: exact name first, then its base name.
    pub(crate) fn tool_for(&self, program: &str) -> Option<&Arc<dyn SimTool>> {
        let exact = self
            .tools
            .iter()
            .find(|tool| tool.commands().contains(&program));
        exact.or_else(|| {
            let base = base_name(program);
            self.tools
                .iter()
                .find(|tool| tool.commands().iter().any(|c| base_name(c) == base))
        })
    }
}

impl std::fmt::Debug for SimModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let tools: Vec<&str> = self.tools.iter().map(|tool| tool.name()).collect();
        f.debug_struct("SimModel")
            .field("boot_marker", &self.boot_marker)
            .field("name", &self.name)
            .field("tools", &tools)
            .finish()
    }
}

/// `mlxconfig` for `/opt/mellanox/bin/mlxconfig`.
pub(crate) fn base_name(program: &str) -> &str {
    program.rsplit('/').next().unwrap_or(program)
}
