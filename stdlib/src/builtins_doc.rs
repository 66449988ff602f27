//! `docs/builtins.md`, the whole file: rendered from the table of tools (each host's rows, in
//! order, and each row's builtins module's doc comment) and the builtin catalog (each builtin's
//! signature in runbook types and its registered help), so the reference and the REPL's help
//! come from one source. What belongs
//! to no one builtin is text beside the code it describes: the guest section's introduction
//! (`builtins_doc/guest_intro.md`), the background servers (`pair/background.md`) and the
//! simulated guest (`models/rhel8.md`). A test keeps the file in step;
//! `CAIRN_BLESS=1 cargo test -p cairn-stdlib builtins_doc` rewrites it.

use cairn_runtime::Catalog;

use crate::tools::{Host, TOOLS};

/// The namespaces of one half of the file that install builtins, in table order.
fn namespaces(half: &Half) -> impl Iterator<Item = &'static crate::tools::Tool> {
    let on = half.on;
    TOOLS
        .iter()
        .filter(move |tool| on(tool.host) && tool.builtins.is_some())
}

/// The guest section's introduction, before its namespaces.
const GUEST_INTRO: &str = include_str!("builtins_doc/guest_intro.md");

/// The ESXi section's introduction, before its namespaces.
const ESXI_INTRO: &str = "Builtins for ESXi hosts and vCenter: sections 2.2 to 2.3.1 of VMware's guide \"InfiniBand/RoCE Setup and Performance on vSphere 7.x\", and the tuning of the Dell/VMware HPC study and of VMware's vSphere 6 networking post (their addresses are in `docs/recipes.md`, \"Sources\"). Every one is an action: journaled, replayed on resume, and in check mode (`cairn run --check`) a query that reports what would change without changing it. Results are maps whose fields are the tools' own labels in snake_case (see `docs/parsers.md`). Arguments reach the host as one literal argument each, never through a shell.\n\nThe simulator's ESXi host is `sim:esxi7`: with no option, the VMware guide's host (a ConnectX-4 Lx at 1a:00.0/1, a dual-port ConnectX-5 VPI at 3b:00.0/1 with FW 16.32.1010 and PSID MT_0000000008, MFT not installed, SR-IOV on in firmware and in `nmlx5_core`'s `max_vfs`). Options: `adapters=cx4lx@1a,cx5@3b`, `fw_version=16.32.1010`, `fw_available=16.35.2000` (an image `mlxfwmanager` can burn), `preset=passthrough` (the host as sections 2.2 to 2.3 leave it: MFT and the native driver installed, port 1 IB and port 2 ETH, SR-IOV off, both ConnectX-5 ports enabled for passthrough). `sim:esxi7?role=vcenter&vms=vm1,vm2` is a management host whose `vhpc_toolkit` keeps the simulated vCenter's VMs (`vm1@esx01` registers the VM on that ESXi host: the host then enters maintenance mode only once it is powered off, and the VM powers on only while the host is out of it, see docs/simulator.md \"Maintenance mode\"); `vm_devices=0000:3b:00.0+0000:3b:00.1` attaches those devices to every listed VM from the start. A guest `sim:rhel8?esxi=HOST` gets the ports that HOST passes through to its VM (see the guest section).";

/// What a host's section says after its namespaces: each a `###` heading and its text.
const GUEST_AFTER: &[(&str, &str)] = &[
    ("Background servers", include_str!("pair/background.md")),
    (
        "The simulated guest and fabric (`sim:rhel8`)",
        include_str!("models/rhel8.md"),
    ),
];

/// One half of the file: its heading, the rows it documents, its introduction and closing
/// sections. The Linux half has the guest's and the bare-metal host's own namespaces; the MFT
/// namespaces both ESXi and bare metal run are in the ESXi half, where the guide uses them.
struct Half {
    heading: &'static str,
    on: fn(Host) -> bool,
    intro: &'static str,
    after: &'static [(&'static str, &'static str)],
}

/// The file's halves, in order.
const HALVES: &[Half] = &[
    Half {
        heading: "## Guest and fabric",
        on: Host::on_linux_only,
        intro: GUEST_INTRO,
        after: GUEST_AFTER,
    },
    Half {
        heading: "## ESXi host",
        on: Host::on_esxi,
        intro: ESXI_INTRO,
        after: &[],
    },
];

/// Renders the whole file from an engine with every row's builtins.
pub(crate) fn render(engine: &rhai::Engine) -> String {
    let catalog = Catalog::of(engine);
    let mut out = String::from(
        "# Builtins\n\nGenerated from the table of tools (`stdlib/src/tools.rs`) and the builtins' doc comments; edit those, then run `CAIRN_BLESS=1 cargo test -p cairn-stdlib builtins_doc`.\n",
    );
    for half in HALVES {
        out.push('\n');
        out.push_str(&render_half(&catalog, half));
    }
    out
}

/// A module doc comment's text without its `///` markers.
fn comment_text(text: &str) -> String {
    let mut out = String::new();
    for l in text.lines() {
        let l = l
            .trim_start_matches("///")
            .strip_prefix(' ')
            .unwrap_or(l.trim_start_matches("///"));
        out.push_str(l);
        out.push('\n');
    }
    out
}

/// One half of the file.
fn render_half(catalog: &Catalog, half: &Half) -> String {
    let mut out = format!("{}\n\n{}\n", half.heading, half.intro.trim_end());
    for tool in namespaces(half) {
        let (module, about) = (tool.namespace, tool.about);
        out.push_str(&format!("\n### `{module}::`\n\n{about}\n"));
        // The namespace module's doc comment, after its first line (`The \`ns::\` module.`).
        let doc = comment_text(
            tool.builtins
                .map(|m| m().doc().to_owned())
                .as_deref()
                .unwrap_or(""),
        );
        let overview = doc.split_once('\n').map_or("", |(_, rest)| rest).trim();
        if !overview.is_empty() {
            out.push_str(&format!("\n{overview}\n"));
        }
        for builtin in catalog.all().iter().filter(|b| b.namespace == module) {
            let returns = if builtin.returns == "()" {
                String::new()
            } else {
                format!(" → `{}`", builtin.returns)
            };
            let params: Vec<String> = builtin
                .params
                .iter()
                .map(|p| format!("{}: {}", p.name, p.kind))
                .collect();
            out.push_str(&format!(
                "\n#### `{}({})`{returns}\n\n",
                builtin.name,
                params.join(", ")
            ));
            if !builtin.doc.is_empty() {
                out.push_str(&builtin.doc);
                out.push('\n');
            }
        }
    }
    for (title, text) in half.after {
        out.push_str(&format!("\n### {title}\n\n{}\n", text.trim_end()));
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::tools::TOOLS;

    /// An engine with every row's builtins.
    fn engine() -> rhai::Engine {
        let mut engine = rhai::Engine::new();
        crate::tools::install_tools(&mut engine);
        engine
    }

    #[test]
    fn builtins_doc_is_rendered_from_the_table_and_the_builtins_help() {
        let file = super::render(&engine());
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/builtins.md");
        if std::env::var_os("CAIRN_BLESS").is_some() {
            std::fs::write(&path, &file).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        }
        let written = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            written == file,
            "docs/builtins.md is out of date with the table of tools and the builtins' doc comments: run `CAIRN_BLESS=1 cargo test -p cairn-stdlib builtins_doc`"
        );
    }

    /// Every namespace that installs builtins has its section, under its host, and every
    /// builtin it registers has its heading there with its doc comment's text.
    #[test]
    fn builtins_doc_has_every_namespace_and_builtin() {
        let engine = engine();
        let file = super::render(&engine);
        let (guest, esxi) = file
            .split_once("\n## ESXi host\n")
            .unwrap_or_else(|| panic!("no ESXi section:\n{file}"));
        for tool in TOOLS.iter().filter(|tool| tool.builtins.is_some()) {
            let half = if tool.host.on_linux_only() {
                guest
            } else {
                esxi
            };
            let heading = format!("\n### `{}::`\n", tool.namespace);
            assert!(half.contains(&heading), "{heading} missing");
        }
        let builtins: Vec<(String, Option<String>)> = cairn_runtime::Catalog::of(&engine)
            .all()
            .iter()
            .filter(|b| !b.namespace.is_empty())
            .map(|b| {
                let heading = format!("\n#### `{}(", b.name);
                (heading, b.doc.lines().next().map(str::to_owned))
            })
            .collect();
        for (heading, first) in &builtins {
            assert!(file.contains(heading.as_str()), "{heading} missing");
            if let Some(first) = first.as_ref().filter(|f| !f.is_empty()) {
                assert!(
                    file.contains(first.as_str()),
                    "{heading}: its doc comment is missing"
                );
            }
        }
        let seen = builtins.len();
        assert!(seen > 40, "only {seen} builtins");
    }
}
