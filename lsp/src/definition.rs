//! Go-to-definition: an `import "NAME"` to the module's file (`lib/NAME.rhai` first, as the
//! engine resolves it), `alias::function` to the function in that module, and a function of
//! the runbook to its `fn`.

use cairn_runtime::import_file;
use lsp_types::{Location, Range, Url};

use crate::declarations::imports;
use crate::hover::script_function;
use crate::position::line_range;
use crate::scan::name_around;
use crate::workspace::{Document, Workspace};

/// Where the name or import at byte `at` of `doc` (open as `uri`) is defined.
pub(crate) fn definition(
    workspace: &Workspace,
    uri: &Url,
    doc: &Document,
    at: usize,
) -> Option<Location> {
    if let Some(module) = import_at(doc, at) {
        let file = import_file(&doc.path, &module)?;
        return Some(Location::new(
            Url::from_file_path(file).ok()?,
            Range::default(),
        ));
    }
    let (_, name) = name_around(&doc.text, at)?;
    let function = script_function(workspace, doc, name)?;
    let (target, text) = match name.split_once("::") {
        Some((alias, _)) => {
            let import = imports(&doc.text).into_iter().find(|i| i.alias == alias)?;
            let file = import_file(&doc.path, &import.module)?;
            let text = workspace.text_of(&file)?;
            (Url::from_file_path(file).ok()?, text)
        }
        None => (uri.clone(), doc.text.clone()),
    };
    Some(Location::new(target, line_range(&text, function.line)))
}

/// The module named by the `import "..."` string the cursor is on, if it is on one.
fn import_at(doc: &Document, at: usize) -> Option<String> {
    let line_start = doc.text[..at].rfind('\n').map_or(0, |i| i + 1);
    let line = doc.text[line_start..].lines().next().unwrap_or("");
    let import = imports(line).into_iter().next()?;
    let open = line.find('"')?;
    let close = open + 1 + line[open + 1..].find('"')?;
    (line_start + open..=line_start + close)
        .contains(&at)
        .then_some(import.module)
}
