//! Help for every builtin, core and vendor, from the one source the checker reads: the
//! engine's function metadata (names, arities, types, parameter names, doc comments), with the
//! text of docs/builtins.md and docs/language.md's builtin table (compiled in), so `:help`
//! says what the docs say. Types are shown as a runbook writes them (`map`, `string`), never as
//! Rust types.

use rhai::Engine;

const BUILTINS_MD: &str = include_str!("../../docs/builtins.md");
const LANGUAGE_MD: &str = include_str!("../../docs/language.md");

/// Overloads that exist only to refuse a call with a better message (`run("ip link")`), by
/// name and first parameter type: not shown as ways to call the builtin.
const REFUSING: [(&str, &str); 1] = [("run", "string")];

/// One overload of a builtin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuiltinSignature {
    /// `run(argv: array, options: map) -> map`.
    pub display: String,
    /// The doc comment the builtin was registered with, if any.
    pub comments: String,
}

/// Every overload of `name` (`run`, `net::set_mtu`) the engine has, script-facing.
pub fn builtin_signatures(engine: &Engine, name: &str) -> Vec<BuiltinSignature> {
    let usages = doc_usages(name);
    let mut found: Vec<BuiltinSignature> = engine
        .collect_fn_metadata(
            None,
            |info| {
                let qualified = if info.namespace.is_empty() {
                    info.metadata.name.to_string()
                } else {
                    format!("{}::{}", info.namespace, info.metadata.name)
                };
                (qualified == name).then(|| {
                    let display = render(
                        &qualified,
                        &usages,
                        &info.metadata.params_info,
                        &info.metadata.return_type,
                    );
                    BuiltinSignature {
                        display,
                        comments: info
                            .metadata
                            .comments
                            .iter()
                            .flat_map(|c| c.lines())
                            .map(|l| {
                                let l = l
                                    .trim_start_matches("///")
                                    .trim_start_matches("/**")
                                    .trim_end_matches("*/");
                                l.strip_prefix(' ').unwrap_or(l).to_owned()
                            })
                            .collect::<Vec<_>>()
                            .join("\n"),
                    }
                })
            },
            true,
        )
        .into_iter()
        .filter(|s| {
            !REFUSING.iter().any(|(n, first)| {
                *n == name && s.display.starts_with(&format!("{n}(argv: {first}"))
            })
        })
        .collect();
    found.sort_by(|a, b| a.display.cmp(&b.display));
    found.dedup();
    found
}

/// Every builtin a runbook can call, by qualified name (`run`, `mlxconfig::query`), sorted:
/// what an editor completes. Operators and rhai's internal names (`+`, `get$len`) are left out.
pub fn builtin_names(engine: &Engine) -> Vec<String> {
    let mut names: Vec<String> = engine
        .collect_fn_metadata(
            None,
            |info| {
                let name = info.metadata.name.as_str();
                let callable = name.starts_with(|c: char| c.is_alphabetic() || c == '_')
                    && !name.contains('$');
                callable.then(|| {
                    if info.namespace.is_empty() {
                        name.to_owned()
                    } else {
                        format!("{}::{name}", info.namespace)
                    }
                })
            },
            true,
        )
        .into_iter()
        .collect();
    names.sort();
    names.dedup();
    names
}

/// `name(param: type, ...) -> type`: parameter names from the metadata, or else from the
/// documented form with as many arguments (`usages`, see [`doc_usages`]).
pub(crate) fn render(
    name: &str,
    usages: &[Vec<String>],
    params_info: &[impl AsRef<str>],
    return_type: &str,
) -> String {
    let named = usages.iter().find(|u| u.len() == params_info.len());
    let params: Vec<String> = params_info
        .iter()
        .enumerate()
        .map(|(i, param)| {
            let param = param.as_ref();
            let (given, kind) = param
                .split_once(':')
                .map_or(("_", param), |(n, t)| (n.trim(), t.trim()));
            let given = match (given, named.and_then(|n| n.get(i))) {
                ("_" | "", Some(doc)) => doc.as_str(),
                ("_" | "", None) => "value",
                (given, _) => given,
            };
            format!("{given}: {}", rhai_type(kind))
        })
        .collect();
    let returns = rhai_type(return_type);
    let returns = if returns == "()" {
        String::new()
    } else {
        format!(" -> {returns}")
    };
    format!("{name}({}){returns}", params.join(", "))
}

/// The docs' text for `name`: its row in a builtin table, or its `####` section.
pub fn builtin_doc_text(name: &str) -> Option<String> {
    for text in [BUILTINS_MD, LANGUAGE_MD] {
        let mut lines = text.lines().peekable();
        while let Some(line) = lines.next() {
            if let Some(row) = line.strip_prefix("| `")
                && let Some((head, rest)) = row.split_once(" | ")
                && code_spans(&format!("`{head}"))
                    .iter()
                    .any(|s| called(s) == name)
            {
                return Some(rest.trim_end_matches('|').trim().to_owned());
            }
            if let Some(head) = line.strip_prefix("#### `")
                && called(head) == name
            {
                let mut body = Vec::new();
                while let Some(next) = lines.next_if(|l| !l.starts_with('#')) {
                    body.push(next);
                }
                return Some(body.join("\n").trim().to_owned());
            }
        }
    }
    None
}

/// The whole help for `name`: each signature, then the docs' text (or the doc comment).
pub fn builtin_help(engine: &Engine, name: &str) -> Option<String> {
    let signatures = builtin_signatures(engine, name);
    if signatures.is_empty() {
        return None;
    }
    let mut out: Vec<String> = signatures.iter().map(|s| s.display.clone()).collect();
    let text = builtin_doc_text(name).or_else(|| {
        signatures
            .iter()
            .map(|s| s.comments.clone())
            .find(|c| !c.trim().is_empty())
    });
    if let Some(text) = text {
        out.extend(wrap(&text, 92).into_iter().map(|l| format!("    {l}")));
    }
    Some(out.join("\n"))
}

/// A Rust type from the metadata as a runbook sees it.
pub fn rhai_type(rust: &str) -> String {
    let rust = rust.trim();
    for wrapper in ["RhaiResult<", "Result<", "core::result::Result<"] {
        if let Some(inner) = rust.strip_prefix(wrapper) {
            let inner = inner.strip_suffix('>').unwrap_or(inner);
            return rhai_type(first_generic(inner));
        }
    }
    let last = rust.trim_start_matches('&').trim_start_matches("mut ");
    let base = last.split('<').next().unwrap_or(last);
    match base.rsplit("::").next().unwrap_or(base) {
        "String" | "str" | "ImmutableString" | "SmartString" | "string" => "string".into(),
        "i64" | "INT" | "int" => "int".into(),
        "f64" | "FLOAT" | "float" => "float".into(),
        "bool" => "bool".into(),
        "Array" | "Vec" | "array" => "array".into(),
        "Map" | "BTreeMap" | "map" => "map".into(),
        "FnPtr" | "Fn" => "Fn".into(),
        "Dynamic" => "any".into(),
        "char" => "char".into(),
        "()" => "()".into(),
        other => other.to_owned(),
    }
}

/// The first type argument of `A<B, C>`'s inside, `B`, minding nested `<>`.
fn first_generic(inner: &str) -> &str {
    let mut depth = 0;
    for (at, c) in inner.char_indices() {
        match c {
            '<' => depth += 1,
            '>' => depth -= 1,
            ',' if depth == 0 => return &inner[..at],
            _ => {}
        }
    }
    inner
}

/// The parameter names each documented form of `name` gives (`run(argv, #{...})` →
/// `["argv", "options"]`), read from the docs once.
pub(crate) fn doc_usages(name: &str) -> Vec<Vec<String>> {
    static USAGES: std::sync::OnceLock<std::collections::HashMap<String, Vec<Vec<String>>>> =
        std::sync::OnceLock::new();
    USAGES
        .get_or_init(all_usages)
        .get(name)
        .cloned()
        .unwrap_or_default()
}

fn all_usages() -> std::collections::HashMap<String, Vec<Vec<String>>> {
    let mut usages: std::collections::HashMap<String, Vec<Vec<String>>> = Default::default();
    for text in [BUILTINS_MD, LANGUAGE_MD] {
        for line in text.lines() {
            let spans = match (line.strip_prefix("| `"), line.strip_prefix("#### `")) {
                (Some(row), _) => {
                    code_spans(&format!("`{}", row.split(" | ").next().unwrap_or("")))
                }
                (None, Some(head)) => vec![head.split('`').next().unwrap_or("").to_owned()],
                _ => continue,
            };
            for span in spans {
                let Some((head, args)) = span.split_once('(') else {
                    continue;
                };
                let args = args.strip_suffix(')').unwrap_or(args);
                let mut names: Vec<String> = args
                    .split(", ")
                    .filter(|a| !a.trim().is_empty())
                    .map(|a| {
                        let a = a.split(':').next().unwrap_or(a).trim();
                        if a.chars().all(|c| c.is_alphanumeric() || c == '_') {
                            a.to_owned()
                        } else if a.starts_with("#{") {
                            "options".to_owned()
                        } else if a.contains('|') {
                            "closure".to_owned()
                        } else {
                            "value".to_owned()
                        }
                    })
                    .collect();
                // `text.trim()`: the value the method is called on is its first parameter.
                if let Some((receiver, _)) = head.split_once('.') {
                    names.insert(0, receiver.to_owned());
                }
                usages
                    .entry(called(&span).to_owned())
                    .or_default()
                    .push(names);
            }
        }
    }
    usages
}

/// The `code` spans of a table cell.
fn code_spans(cell: &str) -> Vec<String> {
    cell.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect()
}

/// The function a documented form calls: `run(argv)` → `run`, `text.trim()` → `trim`.
fn called(form: &str) -> &str {
    let head = form.split('(').next().unwrap_or(form);
    head.rsplit_once('.')
        .map_or(head, |(_, method)| method)
        .trim()
}

fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut out = Vec::new();
    for paragraph in text.lines() {
        if paragraph.chars().count() <= width || paragraph.starts_with("    ") {
            out.push(paragraph.to_owned());
            continue;
        }
        let mut line = String::new();
        for word in paragraph.split(' ') {
            if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
                out.push(std::mem::take(&mut line));
            }
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(word);
        }
        out.push(line);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_read_as_a_runbook_writes_them() {
        assert_eq!(
            rhai_type(
                "core::result::Result<alloc::collections::btree::map::BTreeMap<smartstring::SmartString<smartstring::config::LazyCompact>,rhai::types::dynamic::Dynamic>,alloc::boxed::Box<rhai::types::error::EvalAltResult>>"
            ),
            "map"
        );
        assert_eq!(rhai_type("RhaiResult<bool>"), "bool");
        assert_eq!(rhai_type("&str"), "string");
        assert_eq!(rhai_type("i64"), "int");
    }

    #[test]
    fn core_builtins_have_named_parameters_and_the_docs_text() {
        let engine = crate::build_engine(
            &crate::ImportPath::at(std::path::Path::new(".")),
            &[],
            u64::MAX,
        );
        let run = builtin_help(&engine, "run").unwrap_or_default();
        assert!(run.contains("run(argv: array) -> map"), "{run}");
        assert!(
            run.contains("run(argv: array, options: map) -> map"),
            "{run}"
        );
        assert!(run.contains("Runs a command on the current host."), "{run}");
        assert!(!run.contains("core::"), "{run}");
        let retry = builtin_help(&engine, "retry").unwrap_or_default();
        assert!(
            retry.contains("retry(times: int, delay_secs: int"),
            "{retry}"
        );
        assert!(!run.contains("run(argv: string"), "{run}");
        let trimmed = builtin_help(&engine, "trimmed").unwrap_or_default();
        assert!(
            trimmed.contains("trimmed(text: string) -> string"),
            "{trimmed}"
        );
        assert_eq!(builtin_help(&engine, "nosuch"), None);
        let names = builtin_names(&engine);
        assert!(names.iter().any(|n| n == "run"), "{names:?}");
        assert!(!names.iter().any(|n| n.starts_with('+') || n.contains('$')));
    }
}
