//! The document's outline for the editor: its params and stages (as `cairn check` reads them
//! from the syntax tree, as of the last time the text compiled) and its functions.

use lsp_types::{DocumentSymbol, SymbolKind};

use crate::declarations::functions;
use crate::position::line_range;
use crate::workspace::Document;

/// The params, stages and functions of `doc`, in the order of their lines.
pub(crate) fn symbols(doc: &Document) -> Vec<DocumentSymbol> {
    let text = &doc.text;
    let params = doc.outline.params.iter().map(|p| {
        symbol(
            text,
            &p.name,
            "param",
            SymbolKind::VARIABLE,
            p.line.saturating_sub(1),
        )
    });
    let stages = doc.outline.stages.iter().map(|s| {
        let detail = format!("on {}", s.group);
        symbol(
            text,
            &s.name,
            &detail,
            SymbolKind::EVENT,
            s.line.saturating_sub(1),
        )
    });
    let fns = functions(text)
        .into_iter()
        .map(|f| symbol(text, &f.name, &f.signature(), SymbolKind::FUNCTION, f.line));
    let mut all: Vec<DocumentSymbol> = params.chain(stages).chain(fns).collect();
    all.sort_by_key(|s| s.range.start.line);
    all
}

#[allow(deprecated)] // `deprecated` is a field the protocol still requires
fn symbol(text: &str, name: &str, detail: &str, kind: SymbolKind, line: usize) -> DocumentSymbol {
    let range = line_range(text, line);
    DocumentSymbol {
        name: if name.is_empty() {
            "(unnamed)".into()
        } else {
            name.to_owned()
        },
        detail: Some(detail.to_owned()),
        kind,
        tags: None,
        deprecated: None,
        range,
        selection_range: range,
        children: None,
    }
}
