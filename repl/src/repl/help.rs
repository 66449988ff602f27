//! `:help` from the builtins' own doc comments (rhai metadata), the source of docs/builtins.md.

use rhai::Engine;
use serde_json::Value;

/// Names of every builtin, namespaced ones as `module::name`.
pub(crate) fn builtin_names(engine: &Engine) -> Vec<String> {
    let mut names: Vec<String> = functions(engine)
        .into_iter()
        .map(|(name, _)| name)
        .collect();
    names.sort();
    names.dedup();
    names
}

/// The methods (functions callable as `value.name()`) of strings, arrays and maps, standard
/// library included, from the engine's metadata: what `x.` completes to for each type.
pub(crate) struct Methods {
    pub(crate) array: Vec<String>,
    pub(crate) map: Vec<String>,
    pub(crate) string: Vec<String>,
}

pub(crate) fn methods(engine: &Engine) -> Methods {
    use std::any::TypeId;
    let mut found = Methods {
        array: Vec::new(),
        map: Vec::new(),
        string: Vec::new(),
    };
    let listed = engine.collect_fn_metadata(
        None,
        |info| {
            if !info.namespace.is_empty() {
                return None;
            }
            let name = info.metadata.name.as_str();
            // Property getters (`get$len`) read as fields: `s.len`.
            let name = name.strip_prefix("get$").unwrap_or(name);
            if !name.starts_with(|c: char| c.is_alphabetic()) || name.contains('$') {
                return None;
            }
            let first = *info.metadata.param_types.first()?;
            Some((first, name.to_owned()))
        },
        true,
    );
    for (first, name) in listed {
        if first == TypeId::of::<rhai::ImmutableString>() {
            found.string.push(name);
        } else if first == TypeId::of::<rhai::Array>() {
            found.array.push(name);
        } else if first == TypeId::of::<rhai::Map>() {
            found.map.push(name);
        }
    }
    for list in [&mut found.array, &mut found.map, &mut found.string] {
        list.sort();
        list.dedup();
    }
    found
}

/// `(qualified name, metadata)` of every non-standard function.
fn functions(engine: &Engine) -> Vec<(String, Value)> {
    let Ok(json) = engine.gen_fn_metadata_to_json(false) else {
        return Vec::new();
    };
    let Ok(metadata) = serde_json::from_str::<Value>(&json) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    if let Some(list) = metadata.get("functions").and_then(Value::as_array) {
        for f in list {
            if let Some(name) = f.get("name").and_then(Value::as_str) {
                if !name.starts_with(|c: char| c.is_alphabetic()) {
                    continue;
                }
                found.push((name.to_owned(), f.clone()));
            }
        }
    }
    if let Some(modules) = metadata.get("modules").and_then(Value::as_object) {
        for (module, content) in modules {
            for f in content
                .get("functions")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                if let Some(name) = f.get("name").and_then(Value::as_str) {
                    found.push((format!("{module}::{name}"), f.clone()));
                }
            }
        }
    }
    found
}

/// The help text for `topic` (a builtin or module name), or the command list.
pub(crate) fn help(engine: &Engine, topic: &str) -> String {
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
    if let Some(text) = cairn_runtime::builtin_help(engine, topic) {
        return text;
    }
    // A namespace: each of its builtins' signatures.
    let prefix = format!("{topic}::");
    let members: Vec<String> = builtin_names(engine)
        .into_iter()
        .filter(|name| name.starts_with(&prefix))
        .collect();
    if members.is_empty() {
        let names = builtin_names(engine);
        return match cairn_runtime::inventory::closest(topic, names.iter().map(String::as_str)) {
            Some(near) => format!("no builtin `{topic}`; did you mean `{near}`?"),
            None => format!("no builtin `{topic}`; Tab lists them"),
        };
    }
    let mut out = Vec::new();
    for name in members {
        out.extend(
            cairn_runtime::builtin_signatures(engine, &name)
                .into_iter()
                .map(|s| s.display),
        );
    }
    out.push(format!("(:help {topic}::NAME for one of them)"));
    out.join("\n")
}
