//! `:help` and the REPL's completion words, from the builtin catalog (`cairn_runtime::Catalog`),
//! which docs/builtins.md is rendered from too.

use cairn_runtime::Catalog;
use rhai::Engine;

/// Names of every builtin cairn adds (the standard library's left out), namespaced ones as
/// `module::name`.
pub(crate) fn builtin_names(catalog: &Catalog) -> Vec<String> {
    let mut names: Vec<String> = catalog
        .all()
        .iter()
        .filter(|b| !b.standard && b.is_callable())
        .map(|b| b.name.clone())
        .collect();
    names.sort();
    names.dedup();
    names
}

/// The methods (functions callable as `value.name()`) of strings, arrays and maps, standard
/// library included, from the catalog: what `x.` completes to for each type.
pub(crate) struct Methods {
    pub(crate) array: Vec<String>,
    pub(crate) map: Vec<String>,
    pub(crate) string: Vec<String>,
}

pub(crate) fn methods(catalog: &Catalog) -> Methods {
    use std::any::TypeId;
    let mut found = Methods {
        array: Vec::new(),
        map: Vec::new(),
        string: Vec::new(),
    };
    for builtin in catalog.all().iter().filter(|b| b.namespace.is_empty()) {
        // Property getters (`get$len`) read as fields: `s.len`.
        let name = builtin.function.as_str();
        let name = name.strip_prefix("get$").unwrap_or(name);
        if !name.starts_with(|c: char| c.is_alphabetic()) || name.contains('$') {
            continue;
        }
        let Some(first) = builtin.param_types.first() else {
            continue;
        };
        let list = if *first == TypeId::of::<rhai::ImmutableString>() {
            &mut found.string
        } else if *first == TypeId::of::<rhai::Array>() {
            &mut found.array
        } else if *first == TypeId::of::<rhai::Map>() {
            &mut found.map
        } else {
            continue;
        };
        list.push(name.to_owned());
    }
    for list in [&mut found.array, &mut found.map, &mut found.string] {
        list.sort();
        list.dedup();
    }
    found
}

/// The help text for `topic` (a builtin or module name), or the command list.
pub(crate) fn help(engine: &Engine, topic: &str) -> String {
    let catalog = Catalog::of(engine);
    if topic.is_empty() {
        return [
            ":help [BUILTIN]   the builtin's documentation, or this list",
            ":hosts [PATTERN]  the inventory's hosts, or those a --limit pattern selects (* marks the current one)",
            ":use HOST         switch to another host (a fresh scope)",
            ":vars             variables in scope (and a paused runbook's)",
            ":journal [repl]   the journal of the runbook loaded last; with `repl` (or none loaded) this session's",
            ":where            the host, the journal file, where a loaded runbook stands and the calls there",
":clear            clear the screen",
            "",
            "Debugging a runbook on this host:",
            ":load RUNBOOK [NAME=VALUE...]  load it (params at their defaults unless given)",
            ":break [LINE|MODULE:LINE|STAGE] stop at an action on that line (of a module: vsphere:36), or at that stage; alone, list",
            ":unbreak [LINE|STAGE]          remove that breakpoint; alone, every one",
            ":step             run up to the next action and stop before it",
            ":next             run to the start of the next stage",
            ":continue         run to the next breakpoint or the end",
            ":retry            after a failed action: run it again",
            ":skip [VALUE]     after a failed action: record it as done, returning VALUE (rhai)",
            ":abort            stop the runbook (a failed action fails the host)",
            ":quit             leave (or Ctrl-D)",
            "",
            "Any other input is rhai, evaluated on the host; Tab completes builtins, variables,",
            "fields and hosts; an open brace or string continues on the next line.",
        ]
        .join("\n");
    }
    // A builtin: its signatures with parameter names and the docs' text.
    if let Some(text) = cairn_runtime::builtin_help(&catalog, topic) {
        return text;
    }
    // A namespace: each of its builtins' signatures.
    let prefix = format!("{topic}::");
    let members: Vec<String> = builtin_names(&catalog)
        .into_iter()
        .filter(|name| name.starts_with(&prefix))
        .collect();
    if members.is_empty() {
        let names = builtin_names(&catalog);
        return match cairn_runtime::inventory::closest(topic, names.iter().map(String::as_str)) {
            Some(near) => format!("no builtin `{topic}`; did you mean `{near}`?"),
            None => format!("no builtin `{topic}`; Tab lists them"),
        };
    }
    let mut out = Vec::new();
    for name in members {
        out.extend(
            cairn_runtime::builtin_signatures(&catalog, &name)
                .into_iter()
                .map(|s| s.display),
        );
    }
    out.push(format!("(:help {topic}::NAME for one of them)"));
    out.join("\n")
}
