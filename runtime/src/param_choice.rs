//! `param NAME = one_of(DEFAULT, [CHOICES...]);`: a param that takes only the listed texts, so
//! that a typo in `--param` (or in the default) is refused, with the nearest choice, before
//! anything runs instead of falling through a recipe's `if`s.

use rhai::{Array, Dynamic, Engine, Expr};

use crate::inventory::closest;

/// The default and the allowed values of a `one_of(...)` param.
#[derive(Debug, Clone)]
pub(crate) struct Choice {
    /// The value when no `--param` gives one.
    pub(crate) default: Dynamic,
    /// The values the param takes.
    pub(crate) choices: Vec<String>,
}

/// `:help`'s text (docs/language.md's row says the same; a test keeps them equal).
const ONE_OF_HELP: &str = "A param default that takes only the texts in `choices`.";

/// Registers `one_of(default, choices)`.
pub(crate) fn register(engine: &mut Engine) {
    engine.register_type_with_name::<Choice>("Choice");
    crate::documented::register(
        engine,
        "one_of",
        ["default", "choices"],
        ONE_OF_HELP,
        |default: Dynamic, choices: Array| Choice {
            default,
            choices: choices.iter().map(ToString::to_string).collect(),
        },
    );
}

/// The literal default and choices of a param declared `one_of(...)`, read from the syntax
/// tree; `None` when the declaration is something else.
pub(crate) fn literal(expr: &Expr) -> Option<(Option<Dynamic>, Vec<String>)> {
    let Expr::FnCall(call, _) = expr else {
        return None;
    };
    if call.name != "one_of" {
        return None;
    }
    let default = call.args.first().and_then(|d| d.get_literal_value(None));
    let choices = call
        .args
        .get(1)
        .and_then(|c| c.get_literal_value(None))
        .and_then(|c| c.try_cast::<Array>())
        .map(|a| a.iter().map(ToString::to_string).collect())
        .unwrap_or_default();
    Some((default, choices))
}

/// Why `value` is not one of `choices` (the message and what would fix it, naming the value as
/// `shown`), or `None`.
pub(crate) fn refuse(
    name: &str,
    value: &str,
    shown: &str,
    choices: &[String],
) -> Option<(String, String)> {
    if choices.iter().any(|c| c == value) {
        return None;
    }
    let near = closest(value, choices.iter().map(String::as_str))
        .map(|near| format!("did you mean `{near}`? "))
        .unwrap_or_default();
    let all: Vec<String> = choices.iter().map(|c| format!("`{c}`")).collect();
    Some((
        format!("`{name}` takes one of its choices, not `{shown}`"),
        format!("{near}`{name}` takes {}", all.join(", ")),
    ))
}

#[cfg(test)]
mod tests {
    use super::refuse;

    #[test]
    fn a_near_miss_is_named() {
        let choices = ["mlnx_ofed".to_owned(), "doca".to_owned()];
        assert!(refuse("ofed_source", "doca", "doca", &choices).is_none());
        let (message, help) = refuse("ofed_source", "dcoa", "dcoa", &choices).unwrap_or_default();
        assert!(message.contains("not `dcoa`"), "{message}");
        assert!(help.starts_with("did you mean `doca`?"), "{help}");
        let (_, help) = refuse("ofed_source", "inbox", "inbox", &choices).unwrap_or_default();
        assert_eq!(help, "`ofed_source` takes `mlnx_ofed`, `doca`");
    }
}
