//! `ib::` builtins: RDMA ports (`ibstatus`, `ibstat`, `ibv_devinfo`), the InfiniBand fabric
//! (`ibnetdiscover`) and waiting for a port to come up; with the simulated guest's RDMA ports
//! and fabric.

pub mod builtins;
pub(crate) mod command;
pub mod ibdiagnet;
pub mod ibnetdiscover;
pub mod ibstat;
pub mod ibstatus;
pub mod ibv_devinfo;
pub(crate) mod sim;

/// The namespace the builtins are registered under; with the name a script calls, it is
/// each builtin's journal name (`ib::...`), so no name is typed twice.
pub(crate) const NAMESPACE: &str = "ib";

/// Registers the `ib::` builtins: `ib::status()`, `ib::stat()`, `ib::devinfo()`,
/// `ib::netdiscover()`, `ib::wait_active(dev, port, timeout)`.
pub fn install(engine: &mut rhai::Engine) {
    static MODULE: std::sync::OnceLock<rhai::Shared<rhai::Module>> = std::sync::OnceLock::new();
    let module = MODULE
        .get_or_init(|| rhai::Shared::new(rhai::exported_module!(builtins::ib_builtins)))
        .clone();
    cairn_runtime::declare_options(&ibdiagnet::options::IBDIAGNET_OPTIONS);
    engine.register_static_module(NAMESPACE, module);
}
