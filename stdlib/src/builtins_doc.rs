//! `docs/builtins.md`, section `## ESXi host`: rendered from the table of tools (its ESXi rows,
//! in order) and the builtins' own doc comments (rhai metadata), so the reference and the REPL's
//! help come from one source. The guest section is checked against the table's guest rows. A test keeps the
//! file in step; `CAIRN_BLESS=1 cargo test -p cairn-stdlib builtins_doc` rewrites the section.

use serde_json::Value;

use crate::tools::{Host, TOOLS};

/// The namespaces of one host that install builtins, in table order.
fn namespaces(host: Host) -> impl Iterator<Item = &'static crate::tools::Tool> {
    TOOLS
        .iter()
        .filter(move |tool| tool.host == host && tool.install.is_some())
}

/// The section's heading.
pub(crate) const HEADING: &str = "## ESXi host";

/// Renders the section from an engine's metadata.
pub(crate) fn render(engine: &rhai::Engine) -> String {
    let metadata: Value = engine
        .gen_fn_metadata_to_json(false)
        .ok()
        .and_then(|json| serde_json::from_str(&json).ok())
        .unwrap_or_default();
    let mut out = format!(
        "{HEADING}\n\nBuiltins for ESXi hosts and vCenter (reference 000 sections 2.2 to 2.3.1, 001, 003). Every one is an action: journaled, replayed on resume, and in check mode (`cairn run --check`) a query that reports what would change without changing it. Results are maps whose fields are the tools' own labels in snake_case (see `docs/parsers.md`). Arguments reach the host as one literal argument each, never through a shell.\n\nThe simulator's ESXi host is `sim:esxi7`: with no option, the reference guide's host (a ConnectX-4 Lx at 1a:00.0/1, a dual-port ConnectX-5 VPI at 3b:00.0/1 with FW 16.32.1010 and PSID MT_0000000008, MFT not installed, SR-IOV on in firmware and in `nmlx5_core`'s `max_vfs`). Options: `adapters=cx4lx@1a,cx5@3b`, `fw_version=16.32.1010`, `fw_available=16.35.2000` (an image `mlxfwmanager` can burn), `preset=passthrough` (the host as sections 2.2 to 2.3 leave it: MFT and the native driver installed, port 1 IB and port 2 ETH, SR-IOV off, both ConnectX-5 ports enabled for passthrough). `sim:esxi7?role=vcenter&vms=vm1,vm2` is a management host whose `vhpc_toolkit` keeps the simulated vCenter's VMs (`vm1@esx01` registers the VM on that ESXi host: the host then enters maintenance mode only once it is powered off, and the VM powers on only while the host is out of it, see docs/simulator.md \"Maintenance mode\"); `vm_devices=0000:3b:00.0+0000:3b:00.1` attaches those devices to every listed VM from the start. A guest `sim:rhel8?esxi=HOST` gets the ports that HOST passes through to its VM (see the guest section).\n"
    );
    for tool in namespaces(Host::Esxi) {
        let (module, about) = (tool.namespace, tool.about);
        out.push_str(&format!("\n### `{module}::`\n\n{about}\n"));
        let functions = metadata["modules"][module]["functions"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        for function in functions {
            let name = function["name"].as_str().unwrap_or_default();
            let params: Vec<String> = function["params"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|p| {
                    let name = p["name"].as_str()?;
                    let kind = p["type"].as_str().unwrap_or("?");
                    (name != "ctx" && !kind.contains("NativeCallContext"))
                        .then(|| format!("{name}: {}", short(kind)))
                })
                .collect();
            let returns = function["returnType"]
                .as_str()
                .map(short)
                .unwrap_or_default();
            out.push_str(&format!(
                "\n#### `{module}::{name}({})`{}\n\n",
                params.join(", "),
                if returns.is_empty() {
                    String::new()
                } else {
                    format!(" → `{returns}`")
                }
            ));
            for line in function["docComments"].as_array().into_iter().flatten() {
                let text = line.as_str().unwrap_or_default();
                for l in text.lines() {
                    let l = l
                        .trim_start_matches("///")
                        .strip_prefix(' ')
                        .unwrap_or(l.trim_start_matches("///"));
                    out.push_str(l);
                    out.push('\n');
                }
            }
        }
    }
    out
}

/// `rhai::Map` → `Map`, `Result<rhai::Array, ...>` → `Array`.
fn short(kind: &str) -> String {
    let kind = kind
        .trim()
        .strip_prefix("RhaiResult<")
        .and_then(|k| k.strip_suffix('>'))
        .unwrap_or(kind.trim());
    let kind = kind.rsplit("::").next().unwrap_or(kind);
    match kind {
        "String" | "&str" | "ImmutableString" => "string".into(),
        "bool" => "bool".into(),
        "Dynamic" => "any".into(),
        "()" => String::new(),
        other => other.to_owned(),
    }
}

/// Replaces (or appends) the section in a whole `docs/builtins.md`.
pub(crate) fn splice(file: &str, section: &str) -> String {
    let body = if file.trim().is_empty() {
        "# Builtins\n"
    } else {
        file
    };
    match body.find(&format!("\n{HEADING}\n")) {
        Some(start) => {
            let rest = &body[start + 1..];
            let end = rest[HEADING.len()..]
                .find("\n## ")
                .map_or(body.len(), |i| start + 1 + HEADING.len() + i + 1);
            format!("{}{section}{}", &body[..start + 1], &body[end..])
        }
        None => format!(
            "{}\n{section}",
            body.trim_end_matches('\n').to_owned() + "\n"
        ),
    }
}

#[cfg(test)]
mod tests {
    use crate::tools::Host;

    #[test]
    fn builtins_doc_matches_the_doc_comments() {
        let mut engine = rhai::Engine::new();
        for install in super::namespaces(Host::Esxi).filter_map(|tool| tool.install) {
            install(&mut engine);
        }
        let section = super::render(&engine);
        assert!(
            section.contains("#### `mlxconfig::set(dev: string, values: Map)`"),
            "{section}"
        );
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/builtins.md");
        let file = std::fs::read_to_string(&path).unwrap_or_default();
        let wanted = super::splice(&file, &section);
        if std::env::var_os("CAIRN_BLESS").is_some() {
            std::fs::write(&path, &wanted).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        } else {
            assert!(
                file == wanted,
                "docs/builtins.md is out of date with the builtins' doc comments: run `CAIRN_BLESS=1 cargo test -p cairn-stdlib builtins_doc`"
            );
        }
    }

    /// The guest half is written by hand: each guest namespace of the table has its section
    /// there, and the section names no namespace the table does not have.
    #[test]
    fn builtins_doc_has_a_section_per_guest_namespace() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/builtins.md");
        let file = std::fs::read_to_string(&path).unwrap_or_default();
        let guest = file.split(super::HEADING).next().unwrap_or_default();
        let documented: Vec<&str> = guest
            .lines()
            .filter_map(|l| l.strip_prefix("### `")?.strip_suffix("::`"))
            .collect();
        let table: Vec<&str> = super::namespaces(Host::Guest)
            .map(|t| t.namespace)
            .collect();
        assert_eq!(
            documented, table,
            "docs/builtins.md's guest sections against the table"
        );
    }
}
