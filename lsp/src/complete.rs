//! Completion: after `NS::` the namespace's builtins or an imported module's functions; in a
//! builtin's `#{...}` the option keys it declares; after `stage "..." on` and in `hosts("` the
//! inventory's groups; elsewhere builtins, namespaces, params, the file's functions and
//! imports, and the runbook keywords.

use std::collections::BTreeSet;

use cairn_runtime::{CONTROLLER, declared_options, import_file};
use lsp_types::{CompletionItem, CompletionItemKind};

use crate::declarations::{functions, imports, params};
use crate::scan::{after_stage_on, context, line_before, name_before};
use crate::workspace::{Document, Workspace};

/// The words a runbook is made of besides calls.
const KEYWORDS: &[&str] = &[
    "stage", "param", "on", "serial", "let", "const", "fn", "private", "import", "as", "if",
    "else", "for", "in", "while", "loop", "break", "continue", "return", "throw", "try", "catch",
    "true", "false",
];

/// The completions at byte `cursor` of `doc`.
pub(crate) fn complete(
    workspace: &mut Workspace,
    doc: &Document,
    cursor: usize,
) -> Vec<CompletionItem> {
    let text = &doc.text;
    let word = name_before(text, cursor);
    let found = context(text, cursor);
    if let Some((namespace, _)) = word.rsplit_once("::") {
        return qualified(workspace, doc, namespace);
    }
    if after_stage_on(line_before(text, cursor))
        || (found.in_string && found.call.as_ref().is_some_and(|(name, _)| name == "hosts"))
    {
        return groups(workspace);
    }
    if found.in_string {
        return Vec::new();
    }
    if found.in_options
        && let Some(options) = found
            .call
            .as_ref()
            .and_then(|(name, _)| declared_options(name))
    {
        return options
            .keys
            .iter()
            .map(|key| CompletionItem {
                insert_text: Some(format!("{}: ", key.name)),
                detail: Some(format!(
                    "{} option: {}",
                    options.builtin,
                    key.kind.describe()
                )),
                ..item(key.name, CompletionItemKind::FIELD)
            })
            .collect();
    }
    everything(workspace, doc)
}

/// `NS::`: an import alias's public functions, or the builtins of a namespace.
fn qualified(workspace: &mut Workspace, doc: &Document, namespace: &str) -> Vec<CompletionItem> {
    if let Some(import) = imports(&doc.text)
        .into_iter()
        .find(|i| i.alias == namespace)
    {
        let module = import_file(&doc.path, &import.module)
            .and_then(|file| workspace.text_of(&file))
            .unwrap_or_default();
        return functions(&module)
            .into_iter()
            .filter(|f| !f.private)
            .map(|f| CompletionItem {
                detail: Some(f.signature()),
                ..item(&f.name, CompletionItemKind::FUNCTION)
            })
            .collect();
    }
    let prefix = format!("{namespace}::");
    workspace
        .catalog_beside(&doc.path)
        .names()
        .iter()
        .filter_map(|name| name.strip_prefix(&prefix))
        .filter(|rest| !rest.contains("::"))
        .map(|rest| item(rest, CompletionItemKind::FUNCTION))
        .collect()
}

/// The inventory's groups, and `controller`.
fn groups(workspace: &Workspace) -> Vec<CompletionItem> {
    let mut names = match workspace.load_inventory() {
        Some(Ok(inventory)) => inventory.group_names().to_vec(),
        _ => Vec::new(),
    };
    names.push(CONTROLLER.into());
    names
        .iter()
        .map(|name| item(name, CompletionItemKind::ENUM_MEMBER))
        .collect()
}

/// Builtins, namespaces, params, the file's own functions, import aliases and keywords.
fn everything(workspace: &mut Workspace, doc: &Document) -> Vec<CompletionItem> {
    let names = workspace.catalog_beside(&doc.path).names();
    let namespaces: BTreeSet<&str> = names
        .iter()
        .filter_map(|n| n.split_once("::").map(|(ns, _)| ns))
        .collect();
    let mut items: Vec<CompletionItem> = names
        .iter()
        .filter(|name| !name.contains("::"))
        .map(|name| item(name, CompletionItemKind::FUNCTION))
        .collect();
    items.extend(
        namespaces
            .iter()
            .map(|ns| item(ns, CompletionItemKind::MODULE)),
    );
    items.extend(params(&doc.text).into_iter().map(|param| CompletionItem {
        detail: Some("param".into()),
        ..item(param, CompletionItemKind::VARIABLE)
    }));
    items.extend(functions(&doc.text).iter().map(|f| CompletionItem {
        detail: Some(f.signature()),
        ..item(&f.name, CompletionItemKind::FUNCTION)
    }));
    items.extend(
        imports(&doc.text)
            .iter()
            .map(|i| item(&i.alias, CompletionItemKind::MODULE)),
    );
    items.extend(
        KEYWORDS
            .iter()
            .map(|k| item(k, CompletionItemKind::KEYWORD)),
    );
    items
}

fn item(label: &str, kind: CompletionItemKind) -> CompletionItem {
    CompletionItem {
        label: label.to_owned(),
        kind: Some(kind),
        ..CompletionItem::default()
    }
}
