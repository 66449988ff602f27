//! Where `import "name"` finds its file, the same for a run and for `cairn check`: beside the
//! importing file, then the pack's `lib/`, then the search path (`--lib DIR`, `CAIRN_PATH`).
//!
//! rhai's `FileModuleResolver` resolves every import against one base folder, so a module that
//! imports another resolved it against the top runbook's folder: a site runbook importing the
//! shipped `lib/guest` failed on guest's own `import "report"`. This resolver resolves against
//! the importing file, whose path every compiled module carries as its source.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use rhai::{Engine, EvalAltResult, GlobalRuntimeState, Module, ModuleResolver, Position, Scope};

/// A compiled module, shared by the scripts that import it.
type SharedModule = rhai::Shared<Module>;

/// The file a pack's manifest is in; its folder is the pack's root.
pub const PACK_MANIFEST: &str = "cairn-pack.toml";

/// The folders an import is looked up in, after the importing file's own folder.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ImportPath {
    /// The pack's root (the folder of `cairn-pack.toml` above the runbook), else the runbook's
    /// folder: its `lib/` is searched after the importing file's folder.
    pub root: PathBuf,
    /// `--lib DIR` and `CAIRN_PATH` folders, in order, searched last.
    pub search: Vec<PathBuf>,
}

impl ImportPath {
    /// The import path of the runbook at `runbook`, with `search` after its pack.
    pub fn of_runbook(runbook: &Path, search: &[PathBuf]) -> Self {
        let dir = parent_dir(runbook);
        let root = dir
            .ancestors()
            .find(|folder| folder.join(PACK_MANIFEST).is_file())
            .map_or(dir.clone(), Path::to_path_buf);
        Self {
            root,
            search: search.to_vec(),
        }
    }

    /// An import path rooted at `dir`, with no search path (the REPL, unit tests).
    pub fn at(dir: &Path) -> Self {
        Self {
            root: dir.to_path_buf(),
            search: Vec::new(),
        }
    }

    /// The files `import "module"` in `importing` tries, in order.
    pub fn candidates(&self, importing: Option<&Path>, module: &str) -> Vec<PathBuf> {
        let name = if module.ends_with(".rhai") {
            module.to_owned()
        } else {
            format!("{module}.rhai")
        };
        if Path::new(&name).is_absolute() {
            return vec![PathBuf::from(name)];
        }
        // `lib/` beside the importing file before the file's own folder, as before packs: a
        // runbook named `guest.rhai` that imports "guest" means `lib/guest.rhai`, not itself.
        let mut folders = Vec::new();
        if let Some(file) = importing {
            let dir = parent_dir(file);
            folders.push(dir.join("lib"));
            folders.push(dir);
        }
        folders.push(self.root.join("lib"));
        folders.push(self.root.clone());
        folders.extend(self.search.iter().cloned());
        let mut files: Vec<PathBuf> = Vec::new();
        for folder in folders {
            let file = folder.join(&name);
            if !files.contains(&file) {
                files.push(file);
            }
        }
        files
    }

    /// The file `import "module"` in `importing` loads, if there is one.
    pub fn resolve(&self, importing: Option<&Path>, module: &str) -> Option<PathBuf> {
        self.candidates(importing, module)
            .into_iter()
            .find(|file| file.is_file())
    }

    /// Where an import that resolves nowhere was looked for, for its diagnostic.
    pub fn tried(&self, importing: Option<&Path>, module: &str) -> String {
        self.candidates(importing, module)
            .iter()
            .map(|file| file.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The folder of `file`: empty for a bare file name, so paths keep the form the runbook's has
/// (`lib/guest.rhai`, as breakpoints and diagnostics name it, not `./lib/guest.rhai`).
fn parent_dir(file: &Path) -> PathBuf {
    file.parent().map(Path::to_path_buf).unwrap_or_default()
}

/// The engine's module resolver over an [`ImportPath`]: each module compiled once per engine,
/// its source set to its file so the imports inside it resolve beside it.
pub struct ImportResolver {
    cache: Mutex<HashMap<PathBuf, SharedModule>>,
    /// The modules each thread is compiling now, outermost first: an import of one of them is
    /// a circle, refused instead of recursing until the host thread's stack overflows.
    loading: Mutex<Vec<(std::thread::ThreadId, PathBuf)>>,
    path: ImportPath,
}

impl ImportResolver {
    /// A resolver over `path`.
    pub fn new(path: ImportPath) -> Self {
        Self {
            cache: Mutex::new(HashMap::new()),
            loading: Mutex::new(Vec::new()),
            path,
        }
    }

    fn load(
        &self,
        engine: &Engine,
        global: &mut GlobalRuntimeState,
        scope: &mut Scope,
        file: &Path,
        module: &str,
        position: Position,
    ) -> Result<SharedModule, Box<EvalAltResult>> {
        let in_module =
            |error| Box::new(EvalAltResult::ErrorInModule(module.into(), error, position));
        let mut ast = engine.compile_file(file.to_path_buf()).map_err(in_module)?;
        ast.set_source(file.display().to_string());
        let compiled =
            Module::eval_ast_as_new_raw(engine, scope, global, &ast).map_err(in_module)?;
        Ok(compiled.into())
    }
}

impl ImportResolver {
    /// Marks `file` as being compiled by this thread, or names the circle when it already is
    /// (`a.rhai imports b.rhai imports a.rhai`).
    fn enter(&self, file: &Path, importing: Option<&Path>) -> Option<String> {
        let me = std::thread::current().id();
        let mut loading = self.loading.lock().unwrap_or_else(|e| e.into_inner());
        let mine: Vec<&PathBuf> = loading
            .iter()
            .filter(|(thread, _)| *thread == me)
            .map(|(_, path)| path)
            .collect();
        let importing_itself = importing == Some(file);
        if let Some(start) = mine.iter().position(|path| path.as_path() == file) {
            let mut chain: Vec<String> = mine[start..]
                .iter()
                .map(|p| p.display().to_string())
                .collect();
            chain.push(file.display().to_string());
            return Some(chain.join(" imports "));
        }
        if importing_itself {
            return Some(format!("{0} imports {0}", file.display()));
        }
        loading.push((me, file.to_path_buf()));
        None
    }

    /// `file` is compiled (or failed): no longer in this thread's chain.
    fn leave(&self, file: &Path) {
        let me = std::thread::current().id();
        let mut loading = self.loading.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(at) = loading
            .iter()
            .rposition(|(thread, path)| *thread == me && path == file)
        {
            loading.remove(at);
        }
    }
}

impl ModuleResolver for ImportResolver {
    fn resolve_raw(
        &self,
        engine: &Engine,
        global: &mut GlobalRuntimeState,
        scope: &mut Scope,
        module: &str,
        position: Position,
    ) -> Result<SharedModule, Box<EvalAltResult>> {
        let importing = global.source().map(PathBuf::from);
        let Some(file) = self.path.resolve(importing.as_deref(), module) else {
            return Err(EvalAltResult::ErrorModuleNotFound(module.into(), position).into());
        };
        if let Some(cached) = self.cache.lock().ok().and_then(|c| c.get(&file).cloned()) {
            return Ok(cached);
        }
        let circle = self.enter(&file, importing.as_deref());
        if let Some(circle) = circle {
            let error = EvalAltResult::ErrorSystem(
                format!("import circle: {circle}"),
                "a module may not import itself, directly or through another".into(),
            );
            return Err(EvalAltResult::ErrorInModule(module.into(), error.into(), position).into());
        }
        let loaded = self.load(engine, global, scope, &file, module, position);
        self.leave(&file);
        let loaded = loaded?;
        if let Ok(mut cache) = self.cache.lock() {
            cache.insert(file, loaded.clone());
        }
        Ok(loaded)
    }

    fn resolve(
        &self,
        engine: &Engine,
        source: Option<&str>,
        module: &str,
        position: Position,
    ) -> Result<SharedModule, Box<EvalAltResult>> {
        let mut global = engine.new_global_runtime_state();
        global.source = source.map(Into::into);
        self.resolve_raw(engine, &mut global, &mut Scope::new(), module, position)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_module_imports_beside_itself_before_the_pack_lib_and_the_search_path() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let shipped = dir.path().join("shipped/lib");
        std::fs::create_dir_all(&shipped).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(shipped.join("report.rhai"), "").unwrap_or_else(|e| panic!("{e}"));
        let site = dir.path().join("site/my.rhai");
        let path = ImportPath::of_runbook(&site, std::slice::from_ref(&shipped));
        assert_eq!(path.root, dir.path().join("site"));
        let guest = shipped.join("guest.rhai");
        assert_eq!(
            path.resolve(Some(&guest), "report"),
            Some(shipped.join("report.rhai"))
        );
        assert_eq!(
            path.resolve(Some(&site), "report"),
            Some(shipped.join("report.rhai"))
        );
        assert_eq!(path.resolve(Some(&site), "absent"), None);
    }

    #[test]
    fn the_pack_root_is_the_folder_of_its_manifest() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        std::fs::create_dir_all(dir.path().join("recipes")).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(dir.path().join(PACK_MANIFEST), "").unwrap_or_else(|e| panic!("{e}"));
        let path = ImportPath::of_runbook(&dir.path().join("recipes/a.rhai"), &[]);
        assert_eq!(path.root, dir.path());
    }

    #[test]
    fn a_runbook_named_as_a_module_imports_the_module_from_lib_not_itself() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        std::fs::create_dir_all(dir.path().join("lib")).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(dir.path().join("lib/guest.rhai"), "").unwrap_or_else(|e| panic!("{e}"));
        let runbook = dir.path().join("guest.rhai");
        let path = ImportPath::of_runbook(&runbook, &[]);
        assert_eq!(
            path.resolve(Some(&runbook), "guest"),
            Some(dir.path().join("lib/guest.rhai"))
        );
    }

    #[test]
    fn an_import_circle_is_an_error_naming_it_not_a_stack_overflow() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let write = |name: &str, text: &str| {
            std::fs::write(dir.path().join(name), text).unwrap_or_else(|e| panic!("{e}"));
        };
        write("a.rhai", "import \"b\" as b;\n");
        write("b.rhai", "import \"a\" as a;\n");
        write("self.rhai", "import \"self\" as me;\n");
        let mut engine = Engine::new();
        engine.set_module_resolver(ImportResolver::new(ImportPath::at(dir.path())));
        for (file, circle) in [
            ("a.rhai", "b.rhai imports"),
            ("self.rhai", "self.rhai imports"),
        ] {
            let file = dir.path().join(file);
            let mut ast = engine
                .compile_file(file.clone())
                .unwrap_or_else(|e| panic!("{e}"));
            ast.set_source(file.display().to_string());
            let error = engine
                .run_ast(&ast)
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default();
            assert!(error.contains("import circle"), "{error}");
            assert!(error.contains(circle), "{error}");
        }
    }
}
