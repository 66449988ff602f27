//! `trim` and `replace` that give the new string.
//!
//! rhai's own change the string in place and return `()`, so
//! `let name = run(["hostname"]).stdout.trim();` left `name` empty without a word, and
//! `net::set_mtu(s.replace(" ", ""), 9000)` failed with `Function not found: net::set_mtu ((),
//! i64)`. These, registered on the engine itself, come before the standard library's: they
//! still change a variable they are called on (`s.trim();` as a statement trims `s`), and also
//! return the result, so both readings of the code do what they say.

use rhai::{Engine, ImmutableString};

/// `:help`'s text (docs/language.md's row says the same; a test keeps them equal).
const TRIM_HELP: &str =
    "The text without leading and trailing whitespace (see [String methods](#string-methods)).";

/// `:help`'s text (docs/language.md's row says the same; a test keeps them equal).
const REPLACE_HELP: &str = "The text with every `from` replaced by `to`.";

/// Registers the string methods on `engine`.
pub(crate) fn register(engine: &mut Engine) {
    crate::documented::register(
        engine,
        "trim",
        ["text"],
        TRIM_HELP,
        |text: &mut ImmutableString| {
            let trimmed: ImmutableString = text.trim().into();
            *text = trimmed.clone();
            trimmed
        },
    );
    crate::documented::register(
        engine,
        "replace",
        ["text", "from", "to"],
        REPLACE_HELP,
        |text: &mut ImmutableString, find: &str, with: &str| replace(text, find, with),
    );
    crate::documented::register(
        engine,
        "replace",
        ["text", "from", "to"],
        REPLACE_HELP,
        |text: &mut ImmutableString, find: char, with: char| {
            replace(
                text,
                find.encode_utf8(&mut [0; 4]),
                with.encode_utf8(&mut [0; 4]),
            )
        },
    );
    crate::documented::register(
        engine,
        "replace",
        ["text", "from", "to"],
        REPLACE_HELP,
        |text: &mut ImmutableString, find: &str, with: char| {
            replace(text, find, with.encode_utf8(&mut [0; 4]))
        },
    );
    crate::documented::register(
        engine,
        "replace",
        ["text", "from", "to"],
        REPLACE_HELP,
        |text: &mut ImmutableString, find: char, with: &str| {
            replace(text, find.encode_utf8(&mut [0; 4]), with)
        },
    );
}

fn replace(text: &mut ImmutableString, find: &str, with: &str) -> ImmutableString {
    let replaced: ImmutableString = text.replace(find, with).into();
    *text = replaced.clone();
    replaced
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    fn eval(script: &str) -> String {
        let engine = crate::build_engine(&crate::ImportPath::at(Path::new(".")), &[], u64::MAX);
        engine
            .eval::<rhai::Dynamic>(script)
            .map(|v| v.to_string())
            .unwrap_or_else(|e| format!("error: {e}"))
    }

    #[test]
    fn trim_and_replace_give_the_new_string() {
        assert_eq!(eval(r#""  a b ".trim() == "a b""#), "true");
        assert_eq!(eval(r#""a-b".replace("-", "_") == "a_b""#), "true");
        assert_eq!(eval(r#""a-b".replace('-', '_')"#), "a_b");
        assert_eq!(
            eval(r#"let s = " x "; let t = s.trim(); t + "|" + s"#),
            "x|x"
        );
    }

    #[test]
    fn trim_as_a_statement_still_trims_in_place() {
        assert_eq!(eval(r#"let s = "  a "; s.trim(); s"#), "a");
        assert_eq!(eval(r#"let s = "a b"; s.replace(" ", ""); s"#), "ab");
    }
}
