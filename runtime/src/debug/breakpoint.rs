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
    /// Before an action called on this line of a module the runbook imports (`vsphere:36`);
    /// `file` is the module's path as call sites name it.
    ModuleLine { file: String, line: u32 },
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
        if let Some((module, line)) = module_line(text, outline) {
            return Self::module_line(module, line, runbook);
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
            if let Some(alias) = import_aliases(&runbook.text)
                .into_iter()
                .find(|alias| code.contains(&format!("{alias}::")))
            {
                return Err(runbook.error_at(
                    format!(
                        "line {line} calls into the module `{alias}`, whose actions run on its own lines"
                    ),
                    Position::new(u16::try_from(line).unwrap_or(u16::MAX), 1),
                    Some(format!(
                        "break at a line of the module (`:break {alias}:LINE`), or at this line's stage"
                    )),
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

    /// `MODULE:LINE`: the module must be one the runbook can import, the line must hold code.
    fn module_line(module: &str, line: u32, runbook: &Runbook) -> Result<Self, RunbookError> {
        let file = crate::runbook::source_file(&runbook.name(), module);
        let Ok(text) = std::fs::read_to_string(&file) else {
            return Err(error_in(
                "break",
                &format!("{module}:{line}"),
                format!("no module `{module}` next to {}", runbook.name()),
                Position::new(1, 1),
                Some("modules are `lib/NAME.rhai` or `NAME.rhai` beside the runbook".into()),
            ));
        };
        let count = text.lines().count();
        let code = usize::try_from(line)
            .ok()
            .filter(|l| (1..=count).contains(l))
            .and_then(|l| text.lines().nth(l - 1))
            .map(str::trim);
        match code {
            None => Err(error_in(
                "break",
                &format!("{module}:{line}"),
                format!("{file} has no line {line}: it has {count}"),
                Position::new(1, 1),
                None,
            )),
            Some(code) if code.is_empty() || code.starts_with("//") || code == "}" => {
                Err(error_in(
                    &file,
                    &text,
                    format!("line {line} holds no code, so a breakpoint there would never stop"),
                    Position::new(u16::try_from(line).unwrap_or(u16::MAX), 1),
                    None,
                ))
            }
            Some(_) => Ok(Self::ModuleLine { file, line }),
        }
    }

    /// Whether this stops before an action called at `line` of `file`, in a run of
    /// `runbook_file`.
    pub(crate) fn hits_action(&self, file: &str, line: u32, runbook_file: &str) -> bool {
        match self {
            Self::Line(at) => *at == line && file == runbook_file,
            Self::ModuleLine {
                file: at_file,
                line: at,
            } => *at == line && file == at_file,
            Self::Stage(_) => false,
        }
    }

    /// Whether this stops at the start of stage `name`, declared at `line`.
    pub(crate) fn hits_stage(&self, name: &str, line: u32) -> bool {
        match self {
            Self::Line(at) => *at == line,
            Self::Stage(stage) => stage == name,
            Self::ModuleLine { .. } => false,
        }
    }
}

/// `MODULE:LINE` (not a stage's name that happens to hold a colon).
fn module_line<'a>(text: &'a str, outline: &Outline) -> Option<(&'a str, u32)> {
    if outline
        .stages
        .iter()
        .any(|s| s.name == text.trim_matches('"'))
    {
        return None;
    }
    let (module, line) = text.rsplit_once(':')?;
    let module = module.trim().trim_end_matches(".rhai");
    let module = module.rsplit('/').next().unwrap_or(module);
    (!module.is_empty()).then_some(())?;
    Some((module, line.trim().parse().ok()?))
}

/// The aliases of the runbook's `import "..." as ALIAS;` statements.
fn import_aliases(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|line| line.trim().strip_prefix("import "))
        .filter_map(|rest| rest.split_once(" as "))
        .map(|(_, alias)| alias.trim().trim_end_matches(';').trim().to_owned())
        .filter(|alias| !alias.is_empty())
        .collect()
}

impl std::fmt::Display for Breakpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Line(line) => write!(f, "line {line}"),
            Self::Stage(name) => write!(f, "stage `{name}`"),
            Self::ModuleLine { file, line } => write!(f, "line {line} of {file}"),
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
        let engine = crate::build_engine(&crate::ImportPath::at(Path::new(".")), &[], 1000);
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
    fn a_module_line_is_read_and_a_line_calling_into_a_module_is_refused() {
        let dir = tempfile::tempdir().expect("dir");
        std::fs::create_dir_all(dir.path().join("lib")).expect("lib");
        std::fs::write(
            dir.path().join("lib/m.rhai"),
            "// m\nfn step() {\n    run([\"true\"]);\n}\n",
        )
        .expect("module");
        let text = "import \"m\" as m;\nstage \"s\" on all {\n    m::step();\n}\n";
        let runbook = Runbook::from_text(&dir.path().join("book.rhai"), text.into());
        let engine = crate::build_engine(&crate::ImportPath::at(dir.path()), &[], 1000);
        let outline = Outline::of(&runbook.compile(&engine).expect("compiles"));
        let parse = |text: &str| Breakpoint::parse(text, &runbook, &outline);
        let file = dir.path().join("lib").join("m.rhai").display().to_string();
        assert_eq!(
            parse("m:3").ok(),
            Some(Breakpoint::ModuleLine {
                file: file.clone(),
                line: 3
            })
        );
        assert_eq!(parse("lib/m.rhai:3").ok(), parse("m:3").ok());
        let comment = parse("m:1").expect_err("a comment line");
        assert!(
            comment.message.contains("holds no code"),
            "{}",
            comment.message
        );
        let missing = parse("nosuch:1").expect_err("no such module");
        assert!(
            missing.message.contains("no module `nosuch`"),
            "{}",
            missing.message
        );
        let into = parse("3").expect_err("a line that calls into the module");
        assert!(
            into.message.contains("calls into the module `m`"),
            "{}",
            into.message
        );
        assert!(
            into.help
                .as_deref()
                .is_some_and(|h| h.contains(":break m:LINE"))
        );
    }

    #[test]
    fn a_stage_stops_by_name_or_by_its_line() {
        assert!(Breakpoint::Stage("a".into()).hits_stage("a", 9));
        assert!(Breakpoint::Line(9).hits_stage("a", 9));
        assert!(!Breakpoint::Line(9).hits_action("book.rhai", 10, "book.rhai"));
        assert!(Breakpoint::Line(9).hits_action("book.rhai", 9, "book.rhai"));
        assert!(!Breakpoint::Line(9).hits_action("lib/m.rhai", 9, "book.rhai"));
        let module = Breakpoint::ModuleLine {
            file: "lib/m.rhai".into(),
            line: 9,
        };
        assert!(module.hits_action("lib/m.rhai", 9, "book.rhai"));
        assert!(!module.hits_stage("a", 9));
    }
}
