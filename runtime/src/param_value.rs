//! `--param NAME=VALUE`: the value converted to the type of the declared default, checked
//! before a run is created so that a typo starts nothing.
//!
//! A float param takes only a finite number: `nan` compares false with everything, and `inf`
//! passes every `<` test, so either would quietly disable the threshold it sets.

use std::collections::BTreeMap;

use miette::{NamedSource, SourceSpan};
use rhai::{AST, ASTNode, Dynamic, Expr};

use crate::inventory::closest;

/// A `--param` the runbook cannot take.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
#[error("{message}")]
#[diagnostic(code(cairn::runtime::bad_param))]
pub struct ParamError {
    /// What would fix it.
    #[help]
    pub help: Option<String>,
    /// What is wrong.
    pub message: String,
    /// The option as given on the command line.
    #[source_code]
    pub source_code: NamedSource<String>,
    /// The offending name or value.
    #[label("here")]
    pub span: SourceSpan,
}

/// Converts a `--param` text to the type of the declared default; `Err` says what it takes.
pub(crate) fn convert(given: &str, default: &Dynamic) -> Result<Dynamic, &'static str> {
    if default.is_int() {
        given
            .trim()
            .parse::<rhai::INT>()
            .map(Dynamic::from)
            .map_err(|_| "an integer")
    } else if default.is_float() {
        given
            .trim()
            .parse::<rhai::FLOAT>()
            .ok()
            .filter(|value| value.is_finite())
            .map(Dynamic::from)
            .ok_or("a finite number (not nan or inf, within ±1.8e308)")
    } else if default.is_bool() {
        given
            .trim()
            .parse::<bool>()
            .map(Dynamic::from)
            .map_err(|_| "true or false")
    } else {
        Ok(Dynamic::from(given.to_owned()))
    }
}

/// Why `given` is refused for param `name` whose default is `default`: the one wording of a
/// wrong type, before a run (from [`check_params`]) and, for a default only known when the
/// runbook runs, at its `param` line. A secret's value is never echoed.
pub(crate) fn wrong_type(name: &str, given: &str, expected: &str, default: &Dynamic) -> String {
    let given = crate::secrets::redact(given);
    format!("--param {name}={given}: `{name}` takes {expected}, like its default `{default}`")
}

/// Checks every `--param` against the runbook's `param` declarations: a declared name, a value
/// given again (a secret a resume must be given: its journal keeps only the marker), and a
/// value of its literal default's type. The one check of a `--param`: a run, a resume and the
/// debugger all call it before anything runs.
pub fn check_params(ast: &AST, given: &BTreeMap<String, String>) -> Result<(), ParamError> {
    let mut declared: BTreeMap<String, Option<Dynamic>> = BTreeMap::new();
    let mut choices: BTreeMap<String, Vec<String>> = BTreeMap::new();
    ast.walk(&mut |path: &[ASTNode]| {
        if let Some(ASTNode::Expr(Expr::Custom(custom, _))) = path.last()
            && custom.tokens.first().map(|t| t.as_str()) == Some("param")
            && let Some(Expr::Variable(name, ..)) = custom.inputs.first()
        {
            if let Some((default, allowed)) =
                custom.inputs.get(1).and_then(crate::param_choice::literal)
            {
                declared.insert(name.1.to_string(), default);
                choices.insert(name.1.to_string(), allowed);
                return true;
            }
            let default = custom.inputs.get(1).and_then(|d| match d {
                Expr::FnCall(call, _) if call.name == "secret" => {
                    call.args.first().and_then(|a| a.get_literal_value(None))
                }
                other => other.get_literal_value(None),
            });
            declared.insert(name.1.to_string(), default);
        }
        true
    });
    for (name, raw) in given {
        // A secret's value (from the vault, or given before) is never echoed in an error.
        let value = &crate::secrets::redact(raw);
        let text = format!("--param {name}={value}");
        let name_span: SourceSpan = (8, name.len()).into();
        let value_span: SourceSpan = (9 + name.len(), value.len().max(1)).into();
        let error = |message: String, help: Option<String>, span: SourceSpan| ParamError {
            help,
            message,
            source_code: NamedSource::new("command line", text.clone()),
            span,
        };
        match declared.get(name) {
            None => {
                let near = closest(name, declared.keys().map(String::as_str))
                    .map(|near| format!("did you mean `{near}`? "))
                    .unwrap_or_default();
                let names: Vec<&str> = declared.keys().map(String::as_str).collect();
                return Err(error(
                    format!("the runbook declares no param `{name}`"),
                    Some(if names.is_empty() {
                        format!("{near}the runbook declares no params")
                    } else {
                        format!("{near}its params: {}", names.join(", "))
                    }),
                    name_span,
                ));
            }
            // The journal keeps a secret as the marker only: a resume must be given it again.
            Some(_) if raw == crate::secrets::REDACTED => {
                return Err(error(
                    format!(
                        "param `{name}` is secret and was not kept: give it again with --param {name}=..."
                    ),
                    None,
                    value_span,
                ));
            }
            Some(Some(default)) => {
                if let Err(expected) = convert(value, default) {
                    return Err(error(
                        wrong_type(name, value, expected, default),
                        None,
                        value_span,
                    ));
                }
            }
            Some(None) => {}
        }
        if let Some((message, help)) = choices
            .get(name)
            .and_then(|allowed| crate::param_choice::refuse(name, value, allowed))
        {
            return Err(error(
                format!("--param {name}={value}: {message}"),
                Some(help),
                value_span,
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_must_be_finite() {
        let default = Dynamic::from(1.5);
        for bad in ["nan", "inf", "-inf", "1e400", "fast"] {
            assert!(convert(bad, &default).is_err(), "{bad}");
        }
        assert!(convert("0.5", &default).is_ok());
        assert!(convert("x", &Dynamic::from(1_i64)).is_err());
        assert!(convert("maybe", &Dynamic::from(true)).is_err());
    }
}
