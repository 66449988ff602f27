//! Colour for ok, changed and failed, as Ansible shows them (green, yellow, red). Whether to
//! colour follows `--color` and the NO_COLOR convention (https://no-color.org): a non-empty
//! `NO_COLOR` turns colour off unless `--color always` asks for it explicitly. The codes are
//! ECMA-48 SGR sequences.

/// `--color auto|always|never`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ColorChoice {
    /// Colour on a terminal, unless `NO_COLOR` is set and non-empty.
    #[default]
    Auto,
    /// Always colour, even into a pipe.
    Always,
    /// Never colour.
    Never,
}

impl ColorChoice {
    /// Whether to colour output going to a terminal (`is_terminal`), given `NO_COLOR`'s value.
    pub fn enabled(self, is_terminal: bool, no_color: Option<&std::ffi::OsStr>) -> bool {
        match self {
            Self::Always => true,
            Self::Never => false,
            Self::Auto => is_terminal && no_color.is_none_or(std::ffi::OsStr::is_empty),
        }
    }
}

/// Paints words in colour, or leaves them plain.
#[derive(Debug, Clone, Copy)]
pub struct Palette {
    on: bool,
}

impl Palette {
    /// A palette that colours when `on`.
    pub fn new(on: bool) -> Self {
        Self { on }
    }

    /// Whether it colours.
    pub fn is_on(self) -> bool {
        self.on
    }

    fn paint(self, code: &str, text: &str) -> String {
        if self.on {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_owned()
        }
    }

    /// Success without change.
    pub fn ok(self, text: &str) -> String {
        self.paint("32", text)
    }

    /// A change (or, in check mode, one that would be made).
    pub fn changed(self, text: &str) -> String {
        self.paint("33", text)
    }

    /// A failure.
    pub fn failed(self, text: &str) -> String {
        self.paint("1;31", text)
    }

    /// Headings: stages, the recap.
    pub fn bold(self, text: &str) -> String {
        self.paint("1", text)
    }

    /// Less important: command lines and output under `-v`.
    pub fn dim(self, text: &str) -> String {
        self.paint("2", text)
    }
}

#[cfg(test)]
mod tests {
    use super::ColorChoice;
    use std::ffi::OsStr;

    #[test]
    fn no_color_turns_auto_off_but_not_always() {
        let set = Some(OsStr::new("1"));
        assert!(ColorChoice::Auto.enabled(true, None));
        assert!(ColorChoice::Auto.enabled(true, Some(OsStr::new(""))));
        assert!(!ColorChoice::Auto.enabled(true, set));
        assert!(!ColorChoice::Auto.enabled(false, None));
        assert!(ColorChoice::Always.enabled(false, set));
        assert!(!ColorChoice::Never.enabled(true, None));
    }
}
