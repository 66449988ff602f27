//! A `sim:` address checked when the inventory is read: the model exists, and its options are
//! ones the simulator or the model's tools know, with values they take. Found then, a typo
//! (`reboot_sec` for `reboot_secs`) points at the inventory line and no run is created.

use super::{SimError, SimRegistry};
use crate::inventory::{Address, AddressProblem, closest};

/// Checks one inventory address; addresses that are not `sim:` pass.
pub fn check_address(registry: &SimRegistry, address: &Address) -> Result<(), AddressProblem> {
    let Address::Sim { model, options } = address else {
        return Ok(());
    };
    let model = registry
        .model(model)
        .map_err(|error| problem(&error, model.clone()))?;
    model.check_options(options).map_err(|error| {
        let part = match &error {
            SimError::UnknownOption { key, .. } => key.clone(),
            SimError::BadOption { key, value, .. } => format!("{key}={value}"),
            _ => String::new(),
        };
        problem(&error, part)
    })
}

fn problem(error: &SimError, part: String) -> AddressProblem {
    let (word, known) = match error {
        SimError::UnknownModel { known, name } => (name.as_str(), Some(known.as_str())),
        SimError::UnknownOption { known, key } => (key.as_str(), Some(known.as_str())),
        _ => ("", None),
    };
    let help = known.map(|known| {
        let names: Vec<&str> = known.split(", ").map(|k| k.trim_matches('`')).collect();
        match closest(word, names.iter().copied()) {
            Some(near) => format!("did you mean `{near}`? known: {known}"),
            None => format!("known: {known}"),
        }
    });
    AddressProblem {
        help,
        part,
        reason: error.to_string(),
    }
}
