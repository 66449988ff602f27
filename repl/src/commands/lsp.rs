//! `cairn lsp`: the language server of the `cairn-lsp` crate over standard input and output,
//! with every builtin.

use std::process::ExitCode;

pub(crate) fn lsp() -> miette::Result<ExitCode> {
    cairn_lsp::serve_stdio(cairn_stdlib::libraries())?;
    Ok(ExitCode::SUCCESS)
}
