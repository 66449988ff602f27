//! Method calls (`s.trim()`, `list.push(x)`): rhai picks the function by the value's type,
//! which is known only at run time, so the check cannot tell which overload runs. It can tell
//! that no function of that name takes a value and the arguments written: `s.contians("x")` is
//! refused before a run, with the nearest name, instead of failing once hosts have changed.

use std::collections::{BTreeMap, BTreeSet};

use rhai::{AST, ASTNode, Engine, Expr, FnAccess, FnCallExpr, Position, Stmt};

use super::signatures::{KEYWORDS, Signatures};
use crate::Runbook;
use crate::inventory::closest;

/// What a method call may name in one file.
pub(crate) struct Methods<'a> {
    signatures: &'a Signatures,
    /// The arguments written (the value before the dot not counted) by method name: each
    /// registered function with a first parameter (the value), each function the file
    /// defines and each typed method of its modules (the value as `this`).
    arities: BTreeMap<String, BTreeSet<usize>>,
    /// Names a map may hold a function under (a map literal's keys, a property assigned):
    /// `obj.handler()` calls the function `obj.handler` holds, whatever it takes.
    held: BTreeSet<String>,
    /// The imported modules' functions, reached only through their alias (`text::joined`):
    /// what an unknown method may have meant.
    module_functions: Vec<String>,
}

impl<'a> Methods<'a> {
    /// The methods the registered functions, the file compiled as `ast` and the typed methods
    /// of the modules it imports (`imported`) give.
    pub(crate) fn of(signatures: &'a Signatures, ast: &AST, imported: &[ImportedFunction]) -> Self {
        let mut arities: BTreeMap<String, BTreeSet<usize>> = BTreeMap::new();
        for (name, all) in &signatures.by_name {
            if name.contains("::") {
                continue;
            }
            for signature in all {
                if let Some(rest) = signature.params.len().checked_sub(1) {
                    arities.entry(name.clone()).or_default().insert(rest);
                }
            }
        }
        for function in ast.iter_functions() {
            let known = arities.entry(function.name.to_owned()).or_default();
            known.insert(function.params.len());
        }
        let mut module_functions = Vec::new();
        for function in imported {
            if function.typed {
                let known = arities.entry(function.name.clone()).or_default();
                known.insert(function.params);
            } else if !function.alias.is_empty() {
                module_functions.push(format!("{}::{}", function.alias, function.name));
            }
        }
        Self {
            signatures,
            arities,
            held: held_names(ast),
            module_functions,
        }
    }

    /// What is wrong with the method call `call` at `position`: a name no function has, or
    /// arguments none of them takes; `None` when some function may answer it.
    pub(crate) fn complaint(
        &self,
        call: &FnCallExpr,
        position: Position,
    ) -> Option<(String, Option<String>, Position)> {
        let name = call.name.as_str();
        if KEYWORDS.contains(&name) || self.held.contains(name) {
            return None;
        }
        let written = call.args.len();
        let Some(known) = self.arities.get(name) else {
            return Some((
                format!("unknown method `.{name}(...)`: no builtin, and the runbook defines none"),
                Some(self.nearest(name)),
                position,
            ));
        };
        if known.contains(&written) {
            return None;
        }
        let counts: Vec<String> = known.iter().map(ToString::to_string).collect();
        let registered = self.signatures.list(name);
        let help = if registered.is_empty() {
            format!(
                "the runbook's `fn {name}` takes its parameters between the parentheses, the value before the dot being `this`"
            )
        } else {
            format!("it is {registered}, the value before the dot its first argument")
        };
        Some((
            format!(
                "`.{name}(...)` takes {} argument(s) after its value, not {written}",
                counts.join(" or ")
            ),
            Some(help),
            position,
        ))
    }
}

impl Methods<'_> {
    /// The did-you-mean for an unknown method: the nearest method, else the nearest function of
    /// an imported module (called through its alias, with the value as its first argument).
    fn nearest(&self, name: &str) -> String {
        if let Some(near) = closest(name, self.arities.keys().map(String::as_str)) {
            return format!("did you mean `{near}`?");
        }
        fn function(qualified: &str) -> &str {
            qualified.split_once("::").map_or("", |(_, f)| f)
        }
        let module = self
            .module_functions
            .iter()
            .filter(|qualified| function(qualified) == name)
            .chain(
                self.module_functions
                    .iter()
                    .filter(|qualified| closest(name, [function(qualified)]).is_some()),
            )
            .next();
        match module {
            Some(qualified) => format!(
                "did you mean `{qualified}(...)`, the value its first argument? a module's functions are called through its name, not as methods"
            ),
            None => "`cairn repl` lists the builtins with :help".to_owned(),
        }
    }
}

/// The names a map in the file may hold a function under: map literals' keys, properties
/// assigned (`obj.handler = ...`) and string indexes assigned (`obj["handler"] = ...`).
fn held_names(ast: &AST) -> BTreeSet<String> {
    let mut held = BTreeSet::new();
    ast.walk(&mut |path: &[ASTNode]| {
        match path.last() {
            Some(ASTNode::Expr(Expr::Map(entries, _))) => {
                held.extend(entries.0.iter().map(|(key, _)| key.name.to_string()));
            }
            Some(ASTNode::Expr(Expr::DynamicConstant(value, _))) => {
                if let Some(map) = value.read_lock::<rhai::Map>() {
                    held.extend(map.keys().map(ToString::to_string));
                }
            }
            Some(ASTNode::Stmt(Stmt::Assignment(assignment))) => {
                let mut target = &assignment.1.lhs;
                while let Expr::Dot(chain, ..) | Expr::Index(chain, ..) = target {
                    target = &chain.rhs;
                }
                match target {
                    Expr::Property(property, _) => {
                        held.insert(property.2.to_string());
                    }
                    other => {
                        if let Some(key) = other.get_literal_value(None).filter(|k| k.is_string()) {
                            held.insert(key.to_string());
                        }
                    }
                }
            }
            _ => {}
        }
        true
    });
    held
}

/// A public function of a module a file imports.
pub(crate) struct ImportedFunction {
    /// The name the file gives the module (`import "text" as text`), empty when none.
    pub(crate) alias: String,
    pub(crate) name: String,
    pub(crate) params: usize,
    /// Whether it is a typed method (`fn string.shout()`), which rhai finds as a method of
    /// that type without the module's name.
    pub(crate) typed: bool,
}

/// The public functions of the modules `ast` (in the file `from`) imports directly: what a
/// method call may have meant, and the typed methods a module adds.
pub(crate) fn imported_functions(
    engine: &Engine,
    ast: &AST,
    from: &Runbook,
) -> Vec<ImportedFunction> {
    let path = from.imports();
    let mut found = Vec::new();
    ast.walk(&mut |nodes: &[ASTNode]| {
        if let Some(ASTNode::Stmt(Stmt::Import(import, _))) = nodes.last()
            && let Some(name) = import.0.get_literal_value(None).filter(|m| m.is_string())
            && let Some(file) = path.resolve(Some(&from.path), &name.to_string())
            && let Ok(module) = Runbook::load(&file)
            && let Ok(module_ast) = module.with_lib_path(&from.lib_path).compile(engine)
        {
            let functions = module_ast
                .iter_functions()
                .filter(|f| f.access != FnAccess::Private)
                .map(|f| ImportedFunction {
                    alias: import.1.name.to_string(),
                    name: f.name.to_owned(),
                    params: f.params.len(),
                    typed: f.this_type.is_some(),
                });
            found.extend(functions);
        }
        true
    });
    found
}
