//! `vhpc::` builtins: vCenter through `vhpc_toolkit` on a management host, and the simulated
//! vCenter (`sim:vcenter`).

pub mod builtins;
mod command;
mod remote;
pub(crate) mod sim;
mod view;

pub(crate) use sim::VhpcToolkit;

/// The namespace the builtins are registered under; with the name a script calls, it is
/// each builtin's journal name (`vhpc::...`), so no name is typed twice.
pub(crate) const NAMESPACE: &str = "vhpc";

/// Registers the `vhpc::` builtins as a static module, built once and shared by every host's
/// engine.
pub fn install(engine: &mut rhai::Engine) {
    static MODULE: std::sync::OnceLock<rhai::Shared<rhai::Module>> = std::sync::OnceLock::new();
    let module =
        MODULE.get_or_init(|| rhai::Shared::new(rhai::exported_module!(builtins::vhpc_builtins)));
    cairn_runtime::declare_options(&builtins::RESERVE_OPTIONS);
    engine.register_static_module(NAMESPACE, module.clone());
}
