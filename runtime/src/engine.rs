//! The one place an [`Engine`] is built: limits, module paths, the vocabulary, the libraries.

use std::sync::{Arc, OnceLock};

use rhai::packages::{Package, StandardPackage};
use rhai::{Dynamic, Engine, OptimizationLevel, Shared};

use crate::HostContext;
use crate::host_context::HostHandle;
use crate::imports::{ImportPath, ImportResolver};

/// Adds builtins to an engine: the vendor modules of `cairn-stdlib` are installers.
pub type Installer = fn(&mut Engine);

/// Builds an engine whose imports resolve along `imports`, with `libraries` installed.
///
/// `import "name"` looks beside the importing file, then in the pack's `lib/`, then along the
/// search path (`imports.rs`). The optimizer stays at `Simple`: at `Full` rhai would call
/// builtins with constant arguments while compiling.
pub fn build_engine(imports: &ImportPath, libraries: &[Installer], max_operations: u64) -> Engine {
    let mut engine = Engine::new_raw();
    engine.register_global_module(standard_library());
    // The interner's cache upkeep costs more than it saves on short runbook strings.
    engine.set_max_strings_interned(0);
    engine.set_optimization_level(OptimizationLevel::Simple);
    engine.set_max_operations(max_operations);
    engine.set_max_call_levels(64);
    engine.set_max_expr_depths(128, 64);
    engine.set_max_string_size(64 << 20);
    engine.set_module_resolver(ImportResolver::new(imports.clone()));
    crate::vocabulary::register(&mut engine);
    // The two forms are fixed and cannot clash with each other.
    let _ = crate::syntax::register(&mut engine);
    for install in libraries {
        install(&mut engine);
    }
    engine
}

/// Binds `engine` to one host's instance: builtins find it in the engine's tag, and `print` /
/// `debug` become `log`.
pub fn bind_host(engine: &mut Engine, host: &Arc<HostContext>) {
    engine.set_default_tag(Dynamic::from(HostHandle(host.clone())));
    let printer = host.clone();
    engine.on_print(move |text| {
        let _ = printer.log(text.to_owned());
    });
    if host.debugger().is_some() {
        crate::call_chain::track_calls(engine);
    }
    let debugger = host.clone();
    engine.on_debug(move |text, _, _| {
        let _ = debugger.log(text.to_owned());
    });
}

/// rhai's standard library, built once and shared by every engine: a fleet of 1,000 hosts has
/// 1,000 engines, and building it for each costs about half a megabyte.
fn standard_library() -> Shared<rhai::Module> {
    static LIBRARY: OnceLock<Shared<rhai::Module>> = OnceLock::new();
    LIBRARY
        .get_or_init(|| StandardPackage::new().as_shared_module())
        .clone()
}
