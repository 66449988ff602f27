//! The protocol's loop: the handshake, then each request answered and each change of a
//! document checked, until the client asks the server to shut down.

use lsp_server::{Connection, ErrorCode, Message, Notification, Request, RequestId, Response};
use lsp_types::notification::{
    DidChangeTextDocument, DidCloseTextDocument, DidOpenTextDocument, DidSaveTextDocument,
    Notification as _, PublishDiagnostics,
};
use lsp_types::request::{
    Completion, DocumentSymbolRequest, GotoDefinition, HoverRequest, Request as _,
    SignatureHelpRequest,
};
use lsp_types::{
    CompletionOptions, CompletionResponse, DocumentSymbolResponse, GotoDefinitionResponse,
    InitializeParams, OneOf, PublishDiagnosticsParams, ServerCapabilities, SignatureHelpOptions,
    TextDocumentPositionParams, TextDocumentSyncCapability, TextDocumentSyncKind, Url,
};
use serde_json::Value;

use crate::LspError;
use crate::position::offset_at;
use crate::workspace::{Document, Workspace};

/// What the server can do, as the handshake tells the client.
pub(crate) fn capabilities() -> ServerCapabilities {
    ServerCapabilities {
        text_document_sync: Some(TextDocumentSyncCapability::Kind(TextDocumentSyncKind::FULL)),
        completion_provider: Some(CompletionOptions {
            trigger_characters: Some([":", "{", "\"", " "].map(String::from).to_vec()),
            ..CompletionOptions::default()
        }),
        hover_provider: Some(lsp_types::HoverProviderCapability::Simple(true)),
        signature_help_provider: Some(SignatureHelpOptions {
            trigger_characters: Some(vec!["(".into(), ",".into()]),
            ..SignatureHelpOptions::default()
        }),
        definition_provider: Some(OneOf::Left(true)),
        document_symbol_provider: Some(OneOf::Left(true)),
        ..ServerCapabilities::default()
    }
}

/// The workspace the client's handshake describes: its root and `initializationOptions`.
pub(crate) fn workspace_of(
    params: &InitializeParams,
    libraries: Vec<cairn_runtime::Installer>,
) -> Workspace {
    #[allow(deprecated)] // older clients send only `rootUri`
    let root = params
        .workspace_folders
        .as_ref()
        .and_then(|folders| folders.first().map(|f| f.uri.clone()))
        .or_else(|| params.root_uri.clone())
        .and_then(|uri| uri.to_file_path().ok());
    let inventory = params
        .initialization_options
        .as_ref()
        .and_then(|options| options.get("inventory"))
        .and_then(Value::as_str);
    Workspace::new(libraries, root.as_deref(), inventory)
}

/// Answers requests and follows notifications until `shutdown`.
pub(crate) fn main_loop(
    connection: &Connection,
    workspace: &mut Workspace,
) -> Result<(), LspError> {
    for message in &connection.receiver {
        match message {
            Message::Request(request) => {
                if connection
                    .handle_shutdown(&request)
                    .map_err(LspError::from)?
                {
                    return Ok(());
                }
                let response = answer(workspace, request);
                send(connection, Message::Response(response))?;
            }
            Message::Notification(notification) => {
                for published in follow(workspace, notification) {
                    let note = Notification::new(PublishDiagnostics::METHOD.into(), published);
                    send(connection, Message::Notification(note))?;
                }
            }
            Message::Response(_) => {}
        }
    }
    Ok(())
}

fn send(connection: &Connection, message: Message) -> Result<(), LspError> {
    connection
        .sender
        .send(message)
        .map_err(|error| LspError(format!("the client has gone: {error}")))
}

/// A document's change: its new text, checked; the diagnostics to publish.
fn follow(workspace: &mut Workspace, notification: Notification) -> Vec<PublishDiagnosticsParams> {
    let params = notification.params;
    let uri = match notification.method.as_str() {
        DidOpenTextDocument::METHOD => {
            let Ok(p) = serde_json::from_value::<lsp_types::DidOpenTextDocumentParams>(params)
            else {
                return Vec::new();
            };
            workspace.set_text(p.text_document.uri.clone(), p.text_document.text);
            p.text_document.uri
        }
        DidChangeTextDocument::METHOD => {
            let Ok(p) = serde_json::from_value::<lsp_types::DidChangeTextDocumentParams>(params)
            else {
                return Vec::new();
            };
            let Some(change) = p.content_changes.into_iter().last() else {
                return Vec::new();
            };
            workspace.set_text(p.text_document.uri.clone(), change.text);
            p.text_document.uri
        }
        DidSaveTextDocument::METHOD => {
            let Ok(p) = serde_json::from_value::<lsp_types::DidSaveTextDocumentParams>(params)
            else {
                return Vec::new();
            };
            p.text_document.uri
        }
        DidCloseTextDocument::METHOD => {
            let Ok(p) = serde_json::from_value::<lsp_types::DidCloseTextDocumentParams>(params)
            else {
                return Vec::new();
            };
            workspace.documents.remove(&p.text_document.uri);
            return vec![PublishDiagnosticsParams::new(
                p.text_document.uri,
                Vec::new(),
                None,
            )];
        }
        _ => return Vec::new(),
    };
    crate::diagnostics::diagnose(workspace, &uri)
}

/// The response to one request.
fn answer(workspace: &mut Workspace, request: Request) -> Response {
    let id = request.id.clone();
    match request.method.as_str() {
        Completion::METHOD => at_cursor(workspace, request, |ws, doc, _, at| {
            Some(CompletionResponse::Array(crate::complete::complete(
                ws, doc, at,
            )))
        }),
        HoverRequest::METHOD => at_cursor(workspace, request, |ws, doc, _, at| {
            crate::hover::hover(ws, doc, at)
        }),
        SignatureHelpRequest::METHOD => at_cursor(workspace, request, |ws, doc, _, at| {
            crate::hover::signature_help(ws, doc, at)
        }),
        GotoDefinition::METHOD => at_cursor(workspace, request, |ws, doc, uri, at| {
            crate::definition::definition(ws, uri, doc, at).map(GotoDefinitionResponse::Scalar)
        }),
        DocumentSymbolRequest::METHOD => {
            let params = serde_json::from_value::<lsp_types::DocumentSymbolParams>(request.params);
            match params {
                Ok(p) => {
                    let symbols = workspace
                        .documents
                        .get(&p.text_document.uri)
                        .map(|doc| DocumentSymbolResponse::Nested(crate::symbols::symbols(doc)));
                    ok(id, symbols)
                }
                Err(error) => invalid(id, &error),
            }
        }
        other => Response::new_err(
            id,
            ErrorCode::MethodNotFound as i32,
            format!("cairn lsp does not answer `{other}`"),
        ),
    }
}

/// A request at a position of an open document (the params of completion, hover, signature
/// help and definition all start with one), answered by `handle`.
fn at_cursor<T: serde::Serialize>(
    workspace: &mut Workspace,
    request: Request,
    handle: impl FnOnce(&mut Workspace, &Document, &Url, usize) -> Option<T>,
) -> Response {
    let id = request.id;
    let params = match serde_json::from_value::<TextDocumentPositionParams>(request.params) {
        Ok(params) => params,
        Err(error) => return invalid(id, &error),
    };
    let uri = params.text_document.uri;
    let Some(doc) = workspace.documents.get(&uri).cloned() else {
        return ok(id, None::<T>);
    };
    let at = offset_at(&doc.text, params.position);
    let result = handle(workspace, &doc, &uri, at);
    ok(id, result)
}

fn ok<T: serde::Serialize>(id: RequestId, result: T) -> Response {
    Response::new_ok(id, result)
}

fn invalid(id: RequestId, error: &serde_json::Error) -> Response {
    Response::new_err(id, ErrorCode::InvalidParams as i32, error.to_string())
}
