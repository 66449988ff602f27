// Starts `cairn lsp` for cairn runbooks (docs/editors.md).
const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const config = vscode.workspace.getConfiguration("cairn");
  const command = config.get("path") || "cairn";
  const inventory = config.get("inventory");
  client = new LanguageClient(
    "cairn",
    "cairn",
    { command, args: ["lsp"] },
    {
      documentSelector: [{ scheme: "file", language: "cairn" }],
      initializationOptions: inventory ? { inventory } : {},
    },
  );
  context.subscriptions.push(client);
  client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
