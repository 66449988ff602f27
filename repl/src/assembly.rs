//! The composition root: the one place the stdlib's builtins and simulator models are put into
//! the runtime's launcher. Subcommands and the prompt take their launcher from here, so neither
//! imports the other to get one.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use cairn_runtime::RunFolders;
use cairn_runtime::launch::Launcher;

/// `--lib` folders, then CAIRN_PATH's: where imports are looked up last.
static LIB_PATH: OnceLock<Vec<PathBuf>> = OnceLock::new();

/// Sets the import search path from `--lib` and CAIRN_PATH, once, before any launcher.
pub(crate) fn set_lib_path(mut dirs: Vec<PathBuf>) {
    if let Some(path) = std::env::var_os("CAIRN_PATH") {
        dirs.extend(std::env::split_paths(&path).filter(|dir| !dir.as_os_str().is_empty()));
    }
    let _ = LIB_PATH.set(dirs);
}

/// The import search path `set_lib_path` set.
pub(crate) fn lib_path() -> Vec<PathBuf> {
    LIB_PATH.get().cloned().unwrap_or_default()
}

/// The launcher with every builtin and simulator model, over the state folder `state`.
pub(crate) fn launcher(state: &Path) -> Launcher {
    Launcher {
        lib_path: lib_path(),
        libraries: cairn_stdlib::libraries(),
        sim_models: Arc::new(cairn_stdlib::sim_models()),
        runs: RunFolders::new(state),
    }
}

/// The launcher over `state`'s own runs, or (`shared`) over its working copies of a shared
/// store's runs (`<state>/store/runs/`); simulated hosts stay under `state` either way.
pub(crate) fn launcher_for(state: &Path, shared: bool) -> Launcher {
    let mut launcher = launcher(state);
    if shared {
        launcher.runs = RunFolders::shared_copy(state);
    }
    launcher
}

/// The same builtins and models over another state folder (the prompt's simulated hosts keep
/// their state in a scratch folder of their own).
pub(crate) fn over(launcher: &Launcher, state: &Path) -> Launcher {
    Launcher {
        lib_path: launcher.lib_path.clone(),
        libraries: launcher.libraries.clone(),
        sim_models: Arc::clone(&launcher.sim_models),
        runs: RunFolders::new(state),
    }
}
