//! The server's state: the open documents, the engine that knows every builtin (one per
//! runbook folder, as `import` resolves against it), and the inventory whose groups stages
//! name.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use cairn_runtime::inventory::Inventory;
use cairn_runtime::{Catalog, Installer, Outline, build_engine};
use lsp_types::Url;
use rhai::Engine;

/// An open runbook or module.
#[derive(Debug, Clone)]
pub(crate) struct Document {
    /// Its file.
    pub(crate) path: PathBuf,
    /// The editor's text, saved or not.
    pub(crate) text: String,
    /// Its stages and params as of the last time it compiled.
    pub(crate) outline: Outline,
}

/// Everything the requests read.
pub(crate) struct Workspace {
    libraries: Vec<Installer>,
    engines: HashMap<PathBuf, Engine>,
    /// Each engine's builtin catalog, read once: what hover, signature help and completion
    /// show.
    catalogs: HashMap<PathBuf, Catalog>,
    /// The inventory file, from the client's `initializationOptions.inventory` or the
    /// workspace's `inventory.toml`.
    pub(crate) inventory: Option<PathBuf>,
    pub(crate) documents: HashMap<Url, Document>,
}

impl Workspace {
    /// A workspace at `root` (if the client named one) with `inventory` as the client gave it.
    pub(crate) fn new(
        libraries: Vec<Installer>,
        root: Option<&Path>,
        inventory: Option<&str>,
    ) -> Self {
        let inventory = match (inventory, root) {
            (Some(file), Some(root)) => Some(root.join(file)),
            (Some(file), None) => Some(PathBuf::from(file)),
            (None, Some(root)) => Some(root.join("inventory.toml")).filter(|f| f.is_file()),
            (None, None) => None,
        };
        Self {
            libraries,
            engines: HashMap::new(),
            catalogs: HashMap::new(),
            inventory,
            documents: HashMap::new(),
        }
    }

    /// The engine for runbooks in `dir`, built once.
    pub(crate) fn engine(&mut self, dir: &Path) -> &Engine {
        self.engines.entry(dir.to_owned()).or_insert_with(|| {
            build_engine(
                &cairn_runtime::ImportPath::at(dir),
                &self.libraries,
                u64::MAX,
            )
        })
    }

    /// The builtin catalog of the engine for `file`, read once.
    pub(crate) fn catalog_beside(&mut self, file: &Path) -> &Catalog {
        let dir = file
            .parent()
            .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
        if !self.catalogs.contains_key(&dir) {
            let catalog = Catalog::of(self.engine(&dir));
            self.catalogs.insert(dir.clone(), catalog);
        }
        &self.catalogs[&dir]
    }

    /// The inventory, read afresh (it may have been edited); its error when it cannot be read.
    pub(crate) fn load_inventory(
        &self,
    ) -> Option<Result<Inventory, cairn_runtime::inventory::InventoryError>> {
        self.inventory.as_ref().map(Inventory::load)
    }

    /// Opens or replaces a document's text.
    pub(crate) fn set_text(&mut self, uri: Url, text: String) {
        let path = uri
            .to_file_path()
            .unwrap_or_else(|()| PathBuf::from(uri.path()));
        let outline = self
            .documents
            .remove(&uri)
            .map(|doc| doc.outline)
            .unwrap_or_default();
        self.documents.insert(
            uri,
            Document {
                path,
                text,
                outline,
            },
        );
    }

    /// The text of `path`: the editor's when it is open there, else the file's.
    pub(crate) fn text_of(&self, path: &Path) -> Option<String> {
        self.documents
            .values()
            .find(|doc| doc.path == path)
            .map(|doc| doc.text.clone())
            .or_else(|| std::fs::read_to_string(path).ok())
    }
}
