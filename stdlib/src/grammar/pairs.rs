//! Reading the pairs several grammars make alike: a `Label: value` field, and the `-E-`, `-W-`
//! and `-I-` lines the MFT tools (`mlxconfig`, `mlxfwmanager`) print.

use pest::RuleType;
use pest::iterators::Pair;

/// A field's label (trailing blanks dropped; empty when it has none) and its value, if any.
pub(crate) fn label_value<'i, R: RuleType>(field: Pair<'i, R>) -> (&'i str, Option<String>) {
    let mut inner = field.into_inner();
    let label = inner
        .next()
        .map(|l| l.as_str().trim_end())
        .unwrap_or_default();
    (label, inner.next().map(|v| v.as_str().to_owned()))
}

/// Files an MFT tool's message line, its text after the mark: `-E-` with the errors, `-W-`
/// with the warnings, any other with the information lines.
pub(crate) fn file_message<R: RuleType>(
    pair: Pair<'_, R>,
    errors: &mut Vec<String>,
    warnings: &mut Vec<String>,
    info: &mut Vec<String>,
) {
    let kind = pair.as_str().trim_start().get(..3).unwrap_or_default();
    let line = pair
        .into_inner()
        .next()
        .map(|t| t.as_str().to_owned())
        .unwrap_or_default();
    match kind {
        "-E-" => errors.push(line),
        "-W-" => warnings.push(line),
        _ => info.push(line),
    }
}
