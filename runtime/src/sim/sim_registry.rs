//! The models a `sim:MODEL` address can name.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::{BootMarker, SimError, SimModel, SimTool};

/// Models by name. The runtime registers `linux`; the vendor stdlib adds its own models and
/// adds tools to existing ones.
#[derive(Debug, Clone, Default)]
pub struct SimRegistry {
    models: BTreeMap<String, Arc<SimModel>>,
}

impl SimRegistry {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// The runtime's own models: `linux`, a generic Linux host.
    pub fn with_builtin_models() -> Self {
        let mut registry = Self::new();
        registry.insert(SimModel::new("linux", BootMarker::ProcBootId));
        registry
    }

    /// Adds `model`, replacing any model of the same name.
    pub fn insert(&mut self, model: SimModel) {
        self.models.insert(model.name.clone(), Arc::new(model));
    }

    /// Adds `tool` to the model `name`.
    pub fn add_tool(&mut self, name: &str, tool: impl SimTool + 'static) -> Result<(), SimError> {
        let known = self.known();
        let model = self
            .models
            .get_mut(name)
            .ok_or_else(|| SimError::UnknownModel {
                known,
                name: name.into(),
            })?;
        Arc::make_mut(model).tools.push(Arc::new(tool));
        Ok(())
    }

    /// The model `name`, if registered.
    pub fn get(&self, name: &str) -> Option<Arc<SimModel>> {
        self.models.get(name).cloned()
    }

    /// The model `name`, or an error that lists the known models.
    pub fn model(&self, name: &str) -> Result<Arc<SimModel>, SimError> {
        self.get(name).ok_or_else(|| SimError::UnknownModel {
            known: self.known(),
            name: name.into(),
        })
    }

    /// The registered model names, sorted.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.models.keys().map(String::as_str)
    }

    fn known(&self) -> String {
        let names: Vec<String> = self.names().map(|name| format!("`{name}`")).collect();
        if names.is_empty() {
            "none".into()
        } else {
            names.join(", ")
        }
    }
}
