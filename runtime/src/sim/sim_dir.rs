//! Where simulated hosts' states live: the folder [`SIM_DIR_VAR`] names, shared by every
//! working folder, else one under the state folder; and the checks a run makes of them before
//! it opens any host.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::sim_state::SimState;
use super::{STATE_FILE, SimError, SimHost};

/// The variable naming the folder of simulated hosts' states, shared by every working folder.
pub const SIM_DIR_VAR: &str = "CAIRN_SIM_DIR";

impl SimHost {
    /// Refuses a state directory made for another model than `model` (`esxi7` where the state
    /// says `linux`), or from other `sim:` options than `options` where its tools' initialisation
    /// read them (`vms=`, an adapter's model), before anything opens it; a missing state is fine
    /// (it will be created).
    pub fn check_state(
        dir: &Path,
        host: &str,
        model: &str,
        options: &BTreeMap<String, String>,
    ) -> Result<(), SimError> {
        let Some(state) = SimState::load(&dir.join(STATE_FILE))? else {
            return Ok(());
        };
        if state.model != model {
            return Err(SimError::StateMismatch {
                field: "model",
                found: state.model,
                path: dir.to_owned(),
                wanted: model.to_owned(),
            });
        }
        let shown = |key: &str, value: Option<&String>| match value {
            Some(value) => format!("`{key}={value}`"),
            None => format!("no `{key}`"),
        };
        let differences: Vec<String> = (state.made_from.iter())
            .filter(|(key, then)| options.get(*key) != then.as_ref())
            .map(|(key, then)| {
                format!(
                    "{} there, {} here",
                    shown(key, then.as_ref()),
                    shown(key, options.get(key))
                )
            })
            .collect();
        if differences.is_empty() {
            return Ok(());
        }
        Err(SimError::MadeFrom {
            host: host.to_owned(),
            path: dir.to_owned(),
            differences: differences.join("; "),
        })
    }

    /// Refuses a [`SIM_DIR_VAR`] that names no folder, before any run starts.
    pub fn check_sim_dir() -> Result<(), SimError> {
        match std::env::var_os(SIM_DIR_VAR).filter(|dir| !dir.is_empty()) {
            Some(dir) if !Path::new(&dir).is_dir() => Err(SimError::SimDirMissing {
                var: SIM_DIR_VAR,
                path: PathBuf::from(dir),
            }),
            _ => Ok(()),
        }
    }

    /// The state directory of `host`: `$CAIRN_SIM_DIR/<host>` when [`SIM_DIR_VAR`] names a
    /// folder (so that controllers in two working folders reach one simulated fleet), else
    /// `<state_dir>/sim/<host>`, so `.cairn/sim/<host>` with the default state folder `.cairn`.
    pub fn default_dir(state_dir: &Path, host: &str) -> PathBuf {
        match std::env::var_os(SIM_DIR_VAR).filter(|dir| !dir.is_empty()) {
            Some(dir) => PathBuf::from(dir).join(host),
            None => state_dir.join("sim").join(host),
        }
    }
}
