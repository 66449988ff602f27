//! `fabric::`: acceptance tests of a whole InfiniBand fabric from a controller — every pair's
//! bandwidth and latency (`all_pairs`), scheduled, judged and retested as NVIDIA ClusterKit
//! does, in the run's journal so a resume continues where it stopped.

pub(crate) mod all_pairs;
pub mod builtins;
mod leaves;
mod manifest;
mod manifest_check;
mod options;
mod schedule;
mod verdict;

/// Registers the `fabric::` builtins.
pub fn install(engine: &mut rhai::Engine) {
    static MODULE: std::sync::OnceLock<rhai::Shared<rhai::Module>> = std::sync::OnceLock::new();
    let module = MODULE
        .get_or_init(|| rhai::Shared::new(rhai::exported_module!(builtins::fabric_builtins)))
        .clone();
    cairn_runtime::declare_options(&options::ALL_PAIRS_OPTIONS);
    engine.register_static_module("fabric", module);
}

#[cfg(test)]
mod tests;
