//! What the stdlib installs into the runtime: builtins for runbooks, and simulator models.

use cairn_runtime::Installer;
use cairn_runtime::sim::SimRegistry;
use rhai::{Dynamic, Engine, EvalAltResult, NativeCallContext};

use crate::parsers::parser;

/// Every builtin library, as installers for the runtime's engine.
pub fn libraries() -> Vec<Installer> {
    vec![
        install_parse,
        crate::esxcli::install,
        crate::fabric::install,
        crate::flint::install,
        crate::ib::install,
        crate::mlxconfig::install,
        crate::mlxfwmanager::install,
        crate::mst::install,
        crate::net::install,
        crate::ofed::install,
        crate::perftest::install,
        crate::sockperf::install,
        crate::vhpc::install,
    ]
}

/// The simulator models: the runtime's own, and the ESXi host and Linux guest with the vendor
/// tools' models.
pub fn sim_models() -> SimRegistry {
    let mut registry = SimRegistry::with_builtin_models();
    registry.insert(crate::sim_esxi::esxi7());
    registry.insert(crate::sim_guest::rhel8());
    registry
}

/// `parse(TOOL, text)`: any output parser from a runbook, e.g.
/// `parse("ibstatus", run(["ibstatus"]).stdout)`; the result is a map (see `docs/parsers.md`).
fn install_parse(engine: &mut Engine) {
    engine.register_fn(
        "parse",
        |ctx: NativeCallContext, tool: &str, text: &str| -> Result<Dynamic, Box<EvalAltResult>> {
            let Some(parser) = parser(tool) else {
                let known: Vec<&str> = crate::parsers::parsers().iter().map(|p| p.name).collect();
                return Err(Box::new(EvalAltResult::ErrorRuntime(
                    format!("no parser named `{tool}`; known: {}", known.join(", ")).into(),
                    ctx.call_position(),
                )));
            };
            match (parser.parse)(text) {
                Ok(value) => rhai::serde::to_dynamic(value),
                Err(error) => {
                    let line = text
                        .get(..error.span.offset())
                        .map_or(0, |t| t.lines().count().max(1));
                    Err(Box::new(EvalAltResult::ErrorRuntime(
                        format!("{error} (output line {line})").into(),
                        ctx.call_position(),
                    )))
                }
            }
        },
    );
}
