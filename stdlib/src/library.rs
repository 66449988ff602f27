//! What the stdlib installs into the runtime: builtins for runbooks, and simulator models.

use cairn_runtime::Installer;
use cairn_runtime::sim::SimRegistry;
use rhai::{Dynamic, Engine, EvalAltResult, NativeCallContext};

use crate::parsers::parser;

/// Every builtin library, as installers for the runtime's engine: `parse`, then the table of
/// tools' namespaces.
pub fn libraries() -> Vec<Installer> {
    vec![install_parse, crate::tools::install_tools]
}

/// The simulator models: the runtime's own, and the ESXi host, the Linux guest and the
/// bare-metal Linux host with the vendor tools' models.
pub fn sim_models() -> SimRegistry {
    let mut registry = SimRegistry::with_builtin_models();
    registry.insert(crate::models::esxi7::esxi7());
    registry.insert(crate::models::rhel8::rhel8());
    registry.insert(crate::models::metal::rhel8_metal());
    registry.insert(crate::models::gpu_metal::gpu_metal());
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
                    let line = crate::action::line_of(text, error.span.offset());
                    Err(Box::new(EvalAltResult::ErrorRuntime(
                        format!("{error} (output line {line})").into(),
                        ctx.call_position(),
                    )))
                }
            }
        },
    );
}

#[cfg(test)]
mod tests {
    use rhai::Engine;

    /// Output whose parse stops at the very start of a line: the message must name that line,
    /// not the one before it.
    #[test]
    fn parse_names_the_line_a_failure_starts_on() {
        let mut engine = Engine::new();
        super::install_parse(&mut engine);
        let candidates = [
            (
                "ibstatus",
                "Infiniband device 'mlx5_0' port 1 status:\n\tstate:\t\t 4: ACTIVE\n}\n",
            ),
            ("ibstatus", "Infiniband device 'mlx5_0' port 1 status:\n!\n"),
            ("ofed-info", "MLNX_OFED_LINUX-5.8-1.0.1.1:\n!\n"),
            ("ibdev2netdev", "mlx5_0 port 1 ==> ib0 (Up)\n!\n"),
        ];
        let mut checked = 0;
        for (tool, text) in candidates {
            let Some(parser) = crate::parsers::parser(tool) else {
                continue;
            };
            let Err(error) = (parser.parse)(text) else {
                continue;
            };
            let offset = error.span.offset();
            if offset == 0 || text.as_bytes().get(offset - 1) != Some(&b'\n') {
                continue;
            }
            let line = text[..offset].matches('\n').count() + 1;
            let script = format!("parse({tool:?}, {text:?})");
            let message = engine
                .eval::<rhai::Dynamic>(&script)
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default();
            assert!(
                message.contains(&format!("(output line {line})")),
                "{tool}: failure at the start of line {line}: {message}"
            );
            checked += 1;
        }
        assert!(checked > 0, "no candidate fails at the start of a line");
    }
}
