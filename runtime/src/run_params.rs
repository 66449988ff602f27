//! A run's params after every source is merged (`--param-file`, `--param`, the vault), read,
//! converted and checked once before anything runs: each value as given and, where the runbook
//! declares the param with a literal default, already of that default's type. Every host's
//! `param` line reads the typed value; only a param whose default is known no earlier than the
//! runbook runs (not a literal) is converted at its line, the one place its type is known.

use std::collections::BTreeMap;

use rhai::{AST, Dynamic};

use crate::ParamError;

/// The run's param values by name.
#[derive(Debug, Clone, Default)]
pub struct RunParams {
    values: BTreeMap<String, RunParam>,
    /// The names of the runbook's `secret(...)` params, whose values are never written.
    secret_names: Vec<String>,
}

/// One param's value.
#[derive(Debug, Clone)]
pub(crate) struct RunParam {
    /// As given.
    pub(crate) given: String,
    /// Converted to its literal default's type (`None` when the default is not a literal).
    pub(crate) typed: Option<Dynamic>,
}

impl RunParams {
    /// `given` checked against `ast`'s `param` declarations ([`crate::check_params`]: a
    /// declared name, a value of its default's type, a secret given again) and converted.
    /// The secrets among them must be registered with the redactor before this is called, so
    /// that a refusal shows a secret redacted whole.
    pub fn check(ast: &AST, given: BTreeMap<String, String>) -> Result<Self, ParamError> {
        crate::check_params(ast, &given)?;
        let declared = crate::param_value::declared(ast);
        let secret_names = declared
            .iter()
            .filter(|(_, param)| param.secret)
            .map(|(name, _)| name.clone())
            .collect();
        let values = given
            .into_iter()
            .map(|(name, given)| {
                let typed = declared
                    .get(&name)
                    .and_then(|param| param.default.as_ref())
                    .and_then(|default| crate::param_value::convert(&given, default).ok());
                (name, RunParam { given, typed })
            })
            .collect();
        Ok(Self {
            values,
            secret_names,
        })
    }

    /// The value given to param `name`.
    pub(crate) fn get(&self, name: &str) -> Option<&RunParam> {
        self.values.get(name)
    }

    /// The values as given (secrets whole): what a replay of the journals runs with.
    pub fn given(&self) -> BTreeMap<String, String> {
        (self.values.iter())
            .map(|(name, param)| (name.clone(), param.given.clone()))
            .collect()
    }

    /// The values as journals, `run.json` and events show them: secrets redacted.
    pub fn shown(&self) -> BTreeMap<String, String> {
        let names: Vec<&str> = self.secret_names.iter().map(String::as_str).collect();
        crate::secrets::redact_params(&self.given(), &names)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ast(text: &str) -> AST {
        let engine = crate::build_engine(&Default::default(), &[], u64::MAX);
        engine.compile(text).expect("compiles")
    }

    #[test]
    fn literal_defaults_give_typed_values_once() {
        let ast = ast("param port = 18515; param name = \"a\"; param ratio = rand_float();");
        let given = BTreeMap::from([
            ("port".to_owned(), "4791".to_owned()),
            ("name".to_owned(), "b".to_owned()),
            ("ratio".to_owned(), "0.5".to_owned()),
        ]);
        let params = RunParams::check(&ast, given).expect("valid");
        let port = params.get("port").and_then(|p| p.typed.clone());
        assert_eq!(port.and_then(|p| p.as_int().ok()), Some(4791));
        // Known only as the runbook runs: converted at its `param` line.
        assert!(params.get("ratio").is_some_and(|p| p.typed.is_none()));
    }

    #[test]
    fn a_wrong_type_is_refused_before_the_run() {
        let ast = ast("param port = 18515;");
        let given = BTreeMap::from([("port".to_owned(), "fast".to_owned())]);
        let error = RunParams::check(&ast, given).expect_err("refused");
        assert!(
            error.message.contains("takes an integer"),
            "{}",
            error.message
        );
    }
}
