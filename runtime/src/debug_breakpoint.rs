//! Breakpoints: a runbook line (an action called on it, or a stage that starts on it) or a
//! stage by name. They are checked against the runbook when set, so one that could never stop
//! is refused with the line it names.

use rhai::Position;

use crate::{Outline, Runbook, RunbookError, error_in};

/// Where the debugger stops.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Breakpoint {
    /// Before an action called on this line of the runbook, or at a stage that starts on it.
    Line(u32),
    /// At the start of the stage with this name.
    Stage(String),
}

impl Breakpoint {
    /// Reads `:break LINE|STAGE` against `runbook`: a line must hold code, a stage must exist.
    /// Quotes around a stage name are optional.
    pub fn parse(text: &str, runbook: &Runbook, outline: &Outline) -> Result<Self, RunbookError> {
        let text = text.trim();
        let input_error = |message: String, help: Option<String>| {
            error_in("break", text, message, Position::new(1, 1), help)
        };
        if text.is_empty() {
            return Err(input_error(
                "`:break` needs a runbook line or a stage name".into(),
                Some(stage_list(outline)),
            ));
        }
        if let Ok(line) = text.parse::<u32>() {
            let count = runbook.text.lines().count();
            let Some(content) = usize::try_from(line)
                .ok()
                .filter(|l| (1..=count).contains(l))
                .and_then(|l| runbook.text.lines().nth(l - 1))
            else {
                return Err(input_error(
                    format!("{} has no line {line}: it has {count}", runbook.name()),
                    None,
                ));
            };
            let code = content.trim();
            if code.is_empty() || code.starts_with("//") || code == "}" {
                return Err(runbook.error_at(
                    format!("line {line} holds no code, so a breakpoint there would never stop"),
                    Position::new(u16::try_from(line).unwrap_or(u16::MAX), 1),
                    Some(
                        "a line breakpoint stops before an action called on that line, or at a stage that starts on it"
                            .into(),
                    ),
                ));
            }
            return Ok(Self::Line(line));
        }
        let name = text.trim_matches('"');
        if outline.stages.iter().any(|stage| stage.name == name) {
            Ok(Self::Stage(name.to_owned()))
        } else {
            Err(input_error(
                format!("the runbook has no stage named `{name}`"),
                Some(stage_list(outline)),
            ))
        }
    }

    /// Whether this stops before an action called at `line` of the runbook.
    pub(crate) fn hits_action(&self, line: u32) -> bool {
        matches!(self, Self::Line(at) if *at == line)
    }

    /// Whether this stops at the start of stage `name`, declared at `line`.
    pub(crate) fn hits_stage(&self, name: &str, line: u32) -> bool {
        match self {
            Self::Line(at) => *at == line,
            Self::Stage(stage) => stage == name,
        }
    }
}

impl std::fmt::Display for Breakpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Line(line) => write!(f, "line {line}"),
            Self::Stage(name) => write!(f, "stage `{name}`"),
        }
    }
}

fn stage_list(outline: &Outline) -> String {
    let names: Vec<String> = outline
        .stages
        .iter()
        .map(|stage| format!("`{}` (line {})", stage.name, stage.line))
        .collect();
    if names.is_empty() {
        "the runbook has no stages".into()
    } else {
        format!("its stages: {}", names.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    fn book() -> (Runbook, Outline) {
        let text =
            "param n = 1;\n\n// setup\nstage \"prepare\" on all {\n    run([\"true\"]);\n}\n";
        let runbook = Runbook::from_text(Path::new("book.rhai"), text.into());
        let engine = crate::build_engine(Path::new("."), &[], 1000);
        let ast = runbook.compile(&engine).expect("compiles");
        (runbook, Outline::of(&ast))
    }

    #[test]
    fn lines_and_stages_are_read() {
        let (runbook, outline) = book();
        assert_eq!(
            Breakpoint::parse("5", &runbook, &outline).ok(),
            Some(Breakpoint::Line(5))
        );
        assert_eq!(
            Breakpoint::parse("\"prepare\"", &runbook, &outline).ok(),
            Some(Breakpoint::Stage("prepare".into()))
        );
    }

    #[test]
    fn a_line_past_the_end_or_without_code_is_refused_with_its_place() {
        let (runbook, outline) = book();
        let past = Breakpoint::parse("9999", &runbook, &outline).expect_err("past the end");
        assert!(
            past.message.contains("has no line 9999"),
            "{}",
            past.message
        );
        let blank = Breakpoint::parse("3", &runbook, &outline).expect_err("a comment");
        assert!(blank.message.contains("holds no code"), "{}", blank.message);
        let span = blank.span.expect("the runbook line");
        assert_eq!(span.offset(), "param n = 1;\n\n".len());
        let stage = Breakpoint::parse("deploy", &runbook, &outline).expect_err("no such stage");
        assert!(
            stage
                .help
                .as_deref()
                .is_some_and(|h| h.contains("`prepare` (line 4)")),
            "{:?}",
            stage.help
        );
    }

    #[test]
    fn a_stage_stops_by_name_or_by_its_line() {
        assert!(Breakpoint::Stage("a".into()).hits_stage("a", 9));
        assert!(Breakpoint::Line(9).hits_stage("a", 9));
        assert!(!Breakpoint::Line(9).hits_action(10));
    }
}
