//! What a recipe says about itself: its leading comment is its description, and a `///`
//! comment above a `param` is that param's; each param's type comes from its default (a
//! `one_of(...)` lists its choices, a `secret(...)` never shows its default). `cairn recipes
//! show` prints it, `--json` as a JSON Schema (draft 2020-12) of the params, and docs/recipes.md's
//! parameter tables are generated from it.
//!
//! rhai takes `///` for a function's doc comment and refuses one before anything else, so
//! before compiling, a `///` run above a `param` becomes a plain comment of the same length
//! (`//` and a space): every line and column stays where it was.

use std::borrow::Cow;

use rhai::{AST, ASTNode, Dynamic, Expr};

/// One param as its recipe documents it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParamDoc {
    /// The choices of a `one_of(...)` param.
    pub choices: Vec<String>,
    /// The default as rhai writes it (`9000`, `"doca"`); none for a secret or a computed one.
    pub default: Option<String>,
    /// Its `///` comment, lines joined by spaces.
    pub description: String,
    /// `integer`, `float`, `bool`, `string`, `array`, `map`, or `expression`.
    pub kind: String,
    /// The param's name.
    pub name: String,
    /// Declared `secret(...)`.
    pub secret: bool,
}

/// A recipe's description and params.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RecipeDoc {
    /// The file's leading comment, its lines joined (a blank comment line starts a paragraph).
    pub description: String,
    /// Its params, in order.
    pub params: Vec<ParamDoc>,
}

/// `text` with each `///` comment line that documents a `param` written as `// ` instead.
pub(crate) fn doc_comments_as_comments(text: &str) -> Cow<'_, str> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let mut out: Option<String> = None;
    let mut offset = 0;
    for (index, line) in lines.iter().enumerate() {
        if line.trim_start().starts_with("///") && documents_a_param(&lines[index..]) {
            let at = offset + (line.len() - line.trim_start().len()) + 2;
            out.get_or_insert_with(|| text.to_owned())
                .replace_range(at..at + 1, " ");
        }
        offset += line.len();
    }
    out.map_or(Cow::Borrowed(text), Cow::Owned)
}

/// Whether the `///` run starting at `lines[0]` ends above a `param` line.
fn documents_a_param(lines: &[&str]) -> bool {
    lines
        .iter()
        .map(|line| line.trim_start())
        .find(|line| !line.starts_with("///"))
        .is_some_and(|line| line.starts_with("param "))
}

impl RecipeDoc {
    /// The description and params of the runbook `text`, compiled as `ast`.
    pub fn of(ast: &AST, text: &str) -> Self {
        let lines: Vec<&str> = text.lines().collect();
        let mut params = Vec::new();
        ast.walk(&mut |path: &[ASTNode]| {
            if let Some(ASTNode::Expr(Expr::Custom(custom, position))) = path.last()
                && custom.tokens.first().map(|t| t.as_str()) == Some("param")
            {
                let name = match custom.inputs.first() {
                    Some(Expr::Variable(variable, ..)) => variable.1.to_string(),
                    _ => String::new(),
                };
                let line = position.line().unwrap_or(0);
                let mut doc = of_default(custom.inputs.get(1));
                doc.name = name;
                doc.description = doc_above(&lines, line);
                if doc.description.is_empty() {
                    doc.description = comment_after(lines.get(line.wrapping_sub(1)));
                }
                params.push(doc);
            }
            true
        });
        Self {
            description: leading_comment(&lines),
            params,
        }
    }

    /// The params as a Markdown table (docs/recipes.md's generated tables).
    pub fn markdown_table(&self) -> String {
        let mut table =
            String::from("| param | type | default | meaning |\n| --- | --- | --- | --- |\n");
        for param in &self.params {
            let default = match (&param.default, param.secret) {
                (_, true) => "secret".to_owned(),
                (Some(default), false) => format!("`{default}`"),
                (None, false) => "computed".to_owned(),
            };
            let choices = if param.choices.is_empty() {
                String::new()
            } else {
                let all: Vec<String> = param.choices.iter().map(|c| format!("`{c}`")).collect();
                format!("one of {}", all.join(", "))
            };
            let meaning = [choices, param.description.replace('|', "\\|")]
                .into_iter()
                .filter(|part| !part.is_empty())
                .collect::<Vec<_>>()
                .join(": ");
            table.push_str(&format!(
                "| `{}` | {} | {default} | {meaning} |\n",
                param.name, param.kind
            ));
        }
        table
    }

    /// A JSON Schema of the params: `--param` values, each with its type, default, choices
    /// and description (a secret's default left out, and marked `writeOnly`).
    pub fn json_schema(&self, title: &str) -> serde_json::Value {
        let mut properties = serde_json::Map::new();
        for param in &self.params {
            let mut property = serde_json::Map::new();
            let kind = match param.kind.as_str() {
                "integer" => "integer",
                "float" => "number",
                "bool" => "boolean",
                "array" => "array",
                "map" => "object",
                _ => "string",
            };
            property.insert("type".into(), kind.into());
            if !param.description.is_empty() {
                property.insert("description".into(), param.description.clone().into());
            }
            if let Some(default) = param.default.as_deref().filter(|_| !param.secret) {
                let value = serde_json::from_str(default).unwrap_or_else(|_| default.into());
                property.insert("default".into(), value);
            }
            if !param.choices.is_empty() {
                property.insert("enum".into(), param.choices.clone().into());
            }
            if param.secret {
                property.insert("writeOnly".into(), true.into());
            }
            properties.insert(param.name.clone(), property.into());
        }
        serde_json::json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": title,
            "description": self.description,
            "type": "object",
            "properties": properties,
            "additionalProperties": false,
        })
    }
}

/// The kind, default and choices of a param's default expression.
fn of_default(expr: Option<&Expr>) -> ParamDoc {
    let mut doc = ParamDoc {
        choices: Vec::new(),
        default: None,
        description: String::new(),
        kind: "expression".into(),
        name: String::new(),
        secret: false,
    };
    let Some(mut expr) = expr else {
        return doc;
    };
    if let Expr::FnCall(call, _) = expr
        && call.name == "secret"
    {
        doc.secret = true;
        doc.kind = "string".into();
        let Some(inner) = call.args.first() else {
            return doc;
        };
        expr = inner;
    }
    if let Some((default, choices)) = crate::param_choice::literal(expr) {
        doc.kind = "string".into();
        doc.choices = choices;
        doc.default = default.as_ref().map(literal);
    } else if let Some(value) = expr.get_literal_value(None) {
        doc.kind = kind_of(&value).into();
        doc.default = Some(literal(&value));
    }
    if doc.secret {
        doc.default = None;
    }
    doc
}

fn kind_of(value: &Dynamic) -> &'static str {
    if value.is_int() {
        "integer"
    } else if value.is_float() {
        "float"
    } else if value.is_bool() {
        "bool"
    } else if value.is_string() {
        "string"
    } else if value.is_array() {
        "array"
    } else if value.is_map() {
        "map"
    } else {
        "expression"
    }
}

/// A literal as a runbook writes it: strings quoted.
fn literal(value: &Dynamic) -> String {
    if value.is_string() {
        format!("{:?}", value.to_string())
    } else if value.is_float() {
        let text = value.to_string();
        if text.contains(['.', 'e']) {
            text
        } else {
            format!("{text}.0")
        }
    } else {
        value.to_string()
    }
}

/// The `///` lines right above the 1-based line `line`, joined.
fn doc_above(lines: &[&str], line: usize) -> String {
    let mut doc: Vec<&str> = lines[..line.saturating_sub(1).min(lines.len())]
        .iter()
        .rev()
        .map(|l| l.trim_start())
        .take_while(|l| l.starts_with("///"))
        .map(|l| l.trim_start_matches('/').trim())
        .collect();
    doc.reverse();
    doc.join(" ")
}

/// The `//` comment after the declaration's `;` on its own line (`param mtu = 9000; // MTU`),
/// which the shipped recipes use where a `///` line would do.
fn comment_after(line: Option<&&str>) -> String {
    let Some(line) = line else {
        return String::new();
    };
    let after = line.rsplit_once(';').map_or("", |(_, rest)| rest).trim();
    after
        .strip_prefix("//")
        .map(|c| c.trim_start_matches('/').trim().to_owned())
        .unwrap_or_default()
}

/// The `//` lines at the top of the file, up to the first that is not one.
fn leading_comment(lines: &[&str]) -> String {
    let mut paragraphs: Vec<String> = vec![String::new()];
    for line in lines {
        let Some(text) = line.trim_start().strip_prefix("//") else {
            break;
        };
        let text = text.trim_start_matches('/').trim();
        if text.is_empty() {
            paragraphs.push(String::new());
        } else if let Some(last) = paragraphs.last_mut() {
            if !last.is_empty() {
                last.push(' ');
            }
            last.push_str(text);
        }
    }
    paragraphs.retain(|p| !p.is_empty());
    paragraphs.join("\n\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    const RECIPE: &str = "// Pings.\n// Twice.\n//\n// Lab: x.\n\n/// How many pings,\n/// at most ten.\nparam count = 3;\nparam ratio = 1.5; // A share.\n/// The password.\nparam password = secret(\"hunter2\");\nparam source = one_of(\"a\", [\"a\", \"b\"]);\n/// A function's doc comment stays one.\nfn f() { 1 }\n";

    fn doc() -> RecipeDoc {
        let engine = crate::build_engine(&crate::ImportPath::default(), &[], u64::MAX);
        let plain = doc_comments_as_comments(RECIPE);
        let ast = engine
            .compile(&*plain)
            .unwrap_or_else(|e| panic!("{e}: {plain}"));
        RecipeDoc::of(&ast, RECIPE)
    }

    #[test]
    fn doc_comments_above_a_param_become_comments_in_place_and_a_function_s_stay() {
        let plain = doc_comments_as_comments(RECIPE);
        assert_eq!(plain.len(), RECIPE.len());
        assert_eq!(plain.lines().count(), RECIPE.lines().count());
        assert!(plain.contains("//  How many pings,\n//  at most ten.\nparam count"));
        assert!(plain.contains("/// A function's doc comment stays one."));
    }

    #[test]
    fn params_read_their_docs_types_defaults_and_choices_and_a_secret_hides_its_default() {
        let doc = doc();
        assert_eq!(doc.description, "Pings. Twice.\n\nLab: x.");
        let got: Vec<(&str, &str, Option<&str>, &str)> = doc
            .params
            .iter()
            .map(|p| {
                (
                    p.name.as_str(),
                    p.kind.as_str(),
                    p.default.as_deref(),
                    p.description.as_str(),
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                (
                    "count",
                    "integer",
                    Some("3"),
                    "How many pings, at most ten."
                ),
                ("ratio", "float", Some("1.5"), "A share."),
                ("password", "string", None, "The password."),
                ("source", "string", Some("\"a\""), ""),
            ]
        );
        assert_eq!(doc.params[3].choices, ["a", "b"]);
        let schema = doc.json_schema("acme/x:pings");
        assert_eq!(schema["properties"]["count"]["default"], 3);
        assert_eq!(schema["properties"]["ratio"]["type"], "number");
        assert_eq!(schema["properties"]["source"]["enum"][1], "b");
        assert!(schema["properties"]["password"].get("default").is_none());
        assert!(!schema.to_string().contains("hunter2"));
    }
}
