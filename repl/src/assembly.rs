//! The composition root: the one place the stdlib's builtins and simulator models are put into
//! the runtime's launcher. Subcommands and the prompt take their launcher from here, so neither
//! imports the other to get one.

use std::path::Path;
use std::sync::Arc;

use cairn_runtime::RunStore;
use cairn_runtime::launch::Launcher;

/// The launcher with every builtin and simulator model, over the state folder `state`.
pub(crate) fn launcher(state: &Path) -> Launcher {
    Launcher {
        libraries: cairn_stdlib::libraries(),
        sim_models: Arc::new(cairn_stdlib::sim_models()),
        store: RunStore::new(state),
    }
}

/// The same builtins and models over another state folder (the prompt's simulated hosts keep
/// their state in a scratch folder of their own).
pub(crate) fn over(launcher: &Launcher, state: &Path) -> Launcher {
    Launcher {
        libraries: launcher.libraries.clone(),
        sim_models: Arc::clone(&launcher.sim_models),
        store: RunStore::new(state),
    }
}
