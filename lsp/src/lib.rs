//! `cairn lsp`: a language server for runbooks and their modules, over the Language Server
//! Protocol on standard input and output (`lsp-server`'s messages and connection, the
//! synchronous ones rust-analyzer is built on, read through framing of its own that survives
//! a bad frame, `frame.rs`; and `lsp-types`).
//!
//! Everything it says comes from the pieces `cairn check` and `:help` use: the checker's
//! diagnostics with their spans, the engine's builtin metadata and the docs' text, the option
//! declarations, the outline of stages and params, and the inventory's groups. See
//! docs/editors.md.
//!
//! `serve` takes any input and output, so the fuzz test serves in memory.

mod complete;
mod declarations;
mod definition;
mod diagnostics;
mod frame;
mod hover;
mod position;
mod scan;
mod server;
mod symbols;
mod transport;
mod workspace;

use std::io::{BufRead, BufReader, Write};

use cairn_runtime::Installer;

/// Why the server stopped short of a clean shutdown.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
#[error("language server: {0}")]
#[diagnostic(code(cairn::lsp::server))]
pub struct LspError(String);

impl From<lsp_server::ProtocolError> for LspError {
    fn from(error: lsp_server::ProtocolError) -> Self {
        Self(error.to_string())
    }
}

/// Serves one client on standard input and output, with the builtins `libraries` install,
/// until it shuts the server down.
pub fn serve_stdio(libraries: Vec<Installer>) -> Result<(), LspError> {
    serve(
        BufReader::new(std::io::stdin()),
        std::io::stdout(),
        libraries,
    )
}

/// Serves one client speaking on `input` and listening on `output` (the protocol's frames),
/// until it shuts the server down or its input ends.
pub fn serve(
    input: impl BufRead + Send + 'static,
    output: impl Write + Send + 'static,
    libraries: Vec<Installer>,
) -> Result<(), LspError> {
    let (connection, transport) = transport::connect(input, output);
    let capabilities = serde_json::to_value(server::capabilities())
        .map_err(|error| LspError(error.to_string()))?;
    let params = connection.initialize(capabilities)?;
    let params: lsp_types::InitializeParams =
        serde_json::from_value(params).map_err(|error| LspError(error.to_string()))?;
    let mut workspace = server::workspace_of(&params, libraries);
    server::main_loop(&connection, &mut workspace)?;
    drop(connection);
    transport.join()
}
