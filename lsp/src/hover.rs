//! Hover and signature help, from the builtin catalog `:help` reads (`cairn_runtime::Catalog`):
//! a builtin's signatures and its registered help; for a function of the runbook or of an
//! imported module, its `fn` line and the comment above it.

use cairn_runtime::{builtin_doc_text, builtin_help, builtin_signatures, import_file};
use lsp_types::{
    Documentation, Hover, HoverContents, MarkupContent, MarkupKind, ParameterInformation,
    ParameterLabel, SignatureHelp, SignatureInformation,
};

use crate::declarations::{Function, functions, imports};
use crate::scan::{context, name_around};
use crate::workspace::{Document, Workspace};

/// What to show over the name at byte `at`.
pub(crate) fn hover(workspace: &mut Workspace, doc: &Document, at: usize) -> Option<Hover> {
    let (_, name) = name_around(&doc.text, at)?;
    let text = match script_function(workspace, doc, name) {
        Some(function) => format!("```rhai\n{}\n```\n{}", function.signature(), function.doc),
        None => {
            let help = builtin_help(workspace.catalog_beside(&doc.path), name)?;
            format!("```text\n{help}\n```")
        }
    };
    Some(Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value: text,
        }),
        range: None,
    })
}

/// `name` as a function of `doc` itself, or `alias::name` of a module it imports.
pub(crate) fn script_function(
    workspace: &Workspace,
    doc: &Document,
    name: &str,
) -> Option<Function> {
    match name.split_once("::") {
        Some((alias, function)) => {
            let import = imports(&doc.text).into_iter().find(|i| i.alias == alias)?;
            let file = import_file(&doc.path, &import.module)?;
            functions(&workspace.text_of(&file)?)
                .into_iter()
                .find(|f| f.name == function)
        }
        None => functions(&doc.text).into_iter().find(|f| f.name == name),
    }
}

/// The signatures of the builtin whose arguments byte `cursor` is in, the argument marked.
pub(crate) fn signature_help(
    workspace: &mut Workspace,
    doc: &Document,
    cursor: usize,
) -> Option<SignatureHelp> {
    let (name, argument) = context(&doc.text, cursor).call?;
    let catalog = workspace.catalog_beside(&doc.path);
    let overloads = builtin_signatures(catalog, &name);
    if overloads.is_empty() {
        return None;
    }
    let documentation = builtin_doc_text(catalog, &name).map(Documentation::String);
    let signatures: Vec<SignatureInformation> = overloads
        .iter()
        .map(|overload| SignatureInformation {
            label: overload.display.clone(),
            documentation: documentation.clone(),
            parameters: Some(parameters(&overload.display)),
            active_parameter: None,
        })
        .collect();
    let active = signatures
        .iter()
        .position(|s| s.parameters.as_ref().is_some_and(|p| p.len() > argument))
        .unwrap_or(0);
    Some(SignatureHelp {
        signatures,
        active_signature: u32::try_from(active).ok(),
        active_parameter: u32::try_from(argument).ok(),
    })
}

/// The parameters of `run(argv: array, options: map) -> map`, as offsets into the label.
fn parameters(display: &str) -> Vec<ParameterInformation> {
    let Some(open) = display.find('(') else {
        return Vec::new();
    };
    let close = display.rfind(')').unwrap_or(display.len());
    let mut start = open + 1;
    let mut found = Vec::new();
    for part in display[start..close].split(", ") {
        if !part.is_empty() {
            let label = [start, start + part.len()].map(|at| display[..at].encode_utf16().count());
            found.push(ParameterInformation {
                label: ParameterLabel::LabelOffsets(label.map(|n| u32::try_from(n).unwrap_or(0))),
                documentation: None,
            });
        }
        start += part.len() + 2;
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameter_offsets_cover_each_parameter() {
        let label = "run(argv: array, options: map) -> map";
        let found = parameters(label);
        let spans: Vec<&str> = found
            .iter()
            .filter_map(|p| match p.label {
                ParameterLabel::LabelOffsets([a, b]) => label.get(a as usize..b as usize),
                ParameterLabel::Simple(_) => None,
            })
            .collect();
        assert_eq!(spans, ["argv: array", "options: map"]);
        assert!(parameters("check_mode() -> bool").is_empty());
    }
}
