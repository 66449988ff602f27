//! `--param NAME=VALUE`: the value converted to the type of the declared default, checked
//! before a run is created so that a typo starts nothing.
//!
//! A float param takes only a finite number: `nan` compares false with everything, and `inf`
//! passes every `<` test, so either would quietly disable the threshold it sets.
//!
//! `check_params` is the one check (and wording) that `run`, `resume` and the debugger use, on the
//! params' real values; `declared` reads the runbook's `param` declarations; `shown` is a value as
//! a message may show it.

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

/// A param value as a message may show it: whole, or `<redacted>` whole when it is a secret's
/// or holds one (never a half-redacted value the user would not recognise).
pub(crate) fn shown(given: &str, secret: bool) -> String {
    let redacted = crate::secrets::redact(given);
    if secret || redacted != given {
        crate::secrets::REDACTED.to_owned()
    } else {
        given.to_owned()
    }
}

/// Why `shown` (the value as [`shown`] gives it) is refused for param `name` whose default is
/// `default`: the one wording of a wrong type, before a run (from [`check_params`]) and, for a
/// default only known when the runbook runs, at its `param` line.
pub(crate) fn wrong_type(name: &str, shown: &str, expected: &str, default: &Dynamic) -> String {
    format!("--param {name}={shown}: `{name}` takes {expected}, like its default `{default}`")
}

/// One `param` declaration as the syntax tree has it.
pub(crate) struct DeclaredParam {
    /// Its default when it is a literal (`secret(...)` and `one_of(...)` unwrapped).
    pub(crate) default: Option<Dynamic>,
    /// `one_of(...)`'s choices.
    pub(crate) choices: Option<Vec<String>>,
    /// Declared `secret(...)`.
    pub(crate) secret: bool,
    /// Where it is declared.
    pub(crate) position: rhai::Position,
}

/// The runbook's `param` declarations by name.
pub(crate) fn declared(ast: &AST) -> BTreeMap<String, DeclaredParam> {
    let mut declared = BTreeMap::new();
    ast.walk(&mut |path: &[ASTNode]| {
        if let Some(ASTNode::Expr(Expr::Custom(custom, position))) = path.last()
            && custom.tokens.first().map(|t| t.as_str()) == Some("param")
            && let Some(Expr::Variable(name, ..)) = custom.inputs.first()
        {
            let value = custom.inputs.get(1);
            let mut param = DeclaredParam {
                default: None,
                choices: None,
                secret: false,
                position: *position,
            };
            if let Some((default, allowed)) = value.and_then(crate::param_choice::literal) {
                param.default = default;
                param.choices = Some(allowed);
            } else {
                param.default = value.and_then(|d| match d {
                    Expr::FnCall(call, _) if call.name == "secret" => {
                        param.secret = true;
                        call.args.first().and_then(|a| a.get_literal_value(None))
                    }
                    other => other.get_literal_value(None),
                });
            }
            declared.insert(name.1.to_string(), param);
        }
        true
    });
    declared
}

/// Checks every `--param` against the runbook's `param` declarations: a declared name, a value
/// given again (a secret a resume must be given: its journal keeps only the marker), a secret
/// long enough to redact, and a value of its literal default's type, checked as given (never
/// its redacted form). The one check of a `--param`: a run, a resume and the debugger all call
/// it before anything runs.
pub fn check_params(ast: &AST, given: &BTreeMap<String, String>) -> Result<(), ParamError> {
    let declared = declared(ast);
    for (name, raw) in given {
        let secret = declared.get(name).is_some_and(|p| p.secret);
        // A secret's value (from the vault, or given before) is never echoed in an error.
        let value = &shown(raw, secret);
        let text = format!("--param {name}={value}");
        let name_span: SourceSpan = (8, name.len()).into();
        let value_span: SourceSpan = (9 + name.len(), value.len().max(1)).into();
        let error = |message: String, help: Option<String>, span: SourceSpan| ParamError {
            help,
            message,
            source_code: NamedSource::new("command line", text.clone()),
            span,
        };
        let Some(param) = declared.get(name) else {
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
        };
        // The journal keeps a secret as the marker only: a resume must be given it again.
        if raw == crate::secrets::REDACTED {
            return Err(error(
                format!(
                    "param `{name}` is secret and was not kept: give it again with --param {name}=..."
                ),
                None,
                value_span,
            ));
        }
        if let Some(why) = crate::secrets::too_short(raw).filter(|_| secret) {
            return Err(error(
                format!("--param {name}={value}: secret param `{name}` is refused: {why}"),
                None,
                value_span,
            ));
        }
        if let Some(default) = &param.default
            && let Err(expected) = convert(raw, default)
        {
            return Err(error(
                wrong_type(name, value, expected, default),
                None,
                value_span,
            ));
        }
        if let Some((message, help)) = param
            .choices
            .as_deref()
            .and_then(|allowed| crate::param_choice::refuse(name, raw, value, allowed))
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
