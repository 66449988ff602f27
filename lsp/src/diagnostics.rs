//! Diagnostics: the same check as `cairn check` (with the inventory's groups when there is
//! one) on the editor's text, published for the runbook and for each module with problems.

use std::collections::BTreeMap;
use std::path::PathBuf;

use cairn_runtime::{CheckRecord, Outline, Runbook, check_source};
use lsp_types::{
    Diagnostic, DiagnosticSeverity, NumberOrString, PublishDiagnosticsParams, Range, Url,
};

use crate::position::range_of;
use crate::workspace::Workspace;

/// Checks the open document `uri`; the diagnostics to publish, per file (the document's own
/// always, empty when it is clean).
pub(crate) fn diagnose(workspace: &mut Workspace, uri: &Url) -> Vec<PublishDiagnosticsParams> {
    let Some(doc) = workspace.documents.get(uri).cloned() else {
        return Vec::new();
    };
    let runbook = Runbook::from_text(&doc.path, doc.text.clone());
    let inventory = workspace.load_inventory();
    let mut records = Vec::new();
    let inventory = match inventory {
        Some(Ok(inventory)) => Some(inventory),
        Some(Err(error)) => {
            let file = workspace.inventory.clone().unwrap_or_default();
            records.push(CheckRecord::of(&error, &file.display().to_string(), None));
            None
        }
        None => None,
    };
    let engine = workspace.engine(&runbook.dir());
    let checked = check_source(engine, &runbook, inventory.as_ref());
    let outline = runbook.compile(engine).ok().map(|ast| Outline::of(&ast));
    records.extend(checked.records(&runbook, &|file| workspace.text_of(file)));
    if let (Some(outline), Some(doc)) = (outline, workspace.documents.get_mut(uri)) {
        doc.outline = outline;
    }
    let mut by_file: BTreeMap<PathBuf, Vec<Diagnostic>> = BTreeMap::new();
    by_file.insert(doc.path.clone(), Vec::new());
    for record in records {
        let file = PathBuf::from(&record.file);
        let text = workspace.text_of(&file).unwrap_or_default();
        by_file
            .entry(file)
            .or_default()
            .push(diagnostic(&record, &text));
    }
    by_file
        .into_iter()
        .filter_map(|(file, diagnostics)| {
            let uri = if file == doc.path {
                uri.clone()
            } else {
                Url::from_file_path(&file).ok()?
            };
            Some(PublishDiagnosticsParams::new(uri, diagnostics, None))
        })
        .collect()
}

/// A record as the protocol's diagnostic: the help (a did-you-mean) on a line of its own.
fn diagnostic(record: &CheckRecord, text: &str) -> Diagnostic {
    let range = record
        .bytes
        .map_or_else(Range::default, |(start, end)| range_of(text, start, end));
    let severity = if record.severity == "warning" {
        DiagnosticSeverity::WARNING
    } else {
        DiagnosticSeverity::ERROR
    };
    let message = match &record.help {
        Some(help) => format!("{}\nhelp: {help}", record.message),
        None => record.message.clone(),
    };
    Diagnostic {
        range,
        severity: Some(severity),
        code: record.code.clone().map(NumberOrString::String),
        source: Some("cairn".into()),
        message,
        ..Diagnostic::default()
    }
}
