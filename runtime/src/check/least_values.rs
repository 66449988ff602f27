//! Integer arguments below the least value their builtin takes (`wait_reachable(0)`,
//! `retry(0, 5, ...)`): the builtin refuses them when called, hours into a run perhaps;
//! `cairn check` refuses the same literals before anything runs, with the same words.

use rhai::{Expr, FnCallExpr, Position};

/// An integer argument's least value, and how the builtin says what it needs.
struct Least {
    builtin: &'static str,
    /// The argument's index.
    index: usize,
    least: i64,
    /// What the builtin needs, as its own refusal says it.
    needs: &'static str,
}

/// The builtins' least values, from the constants their run-time checks use.
const LEAST: &[Least] = &[
    Least {
        builtin: "wait_reachable",
        index: 0,
        least: crate::wait_reachable::LEAST_TIMEOUT_SECS,
        needs: "a timeout of at least 1 s",
    },
    Least {
        builtin: "retry",
        index: 0,
        least: crate::retry::LEAST_ATTEMPTS,
        needs: "at least 1 attempt",
    },
    Least {
        builtin: "retry",
        index: 1,
        least: 0,
        needs: "a delay of 0 s or more",
    },
];

/// The first literal argument of `call` below its least value: the message, help and where.
pub(crate) fn below_least(
    name: &str,
    call: &FnCallExpr,
) -> Option<(String, Option<String>, Position)> {
    LEAST.iter().filter(|l| l.builtin == name).find_map(|l| {
        let arg = call.args.get(l.index)?;
        let value = literal_int(arg)?;
        (value < l.least).then(|| {
            (
                format!("`{name}` needs {}, not {value}", l.needs),
                Some(format!(
                    "argument {} takes {} or more",
                    l.index + 1,
                    l.least
                )),
                arg.position(),
            )
        })
    })
}

/// An integer literal, with its sign (`-5` is a negation of `5` in the syntax tree).
fn literal_int(arg: &Expr) -> Option<i64> {
    if let Some(value) = arg.get_literal_value(None) {
        return value.as_int().ok();
    }
    match arg {
        Expr::FnCall(call, _) if call.name == "-" && call.args.len() == 1 => call
            .args
            .first()
            .and_then(literal_int)
            .and_then(i64::checked_neg),
        _ => None,
    }
}
