//! `cairn parse`: any vendor tool parser on its own, printing JSON.

use std::io::Read;
use std::process::ExitCode;

use cairn_stdlib::parsers::{parser, parsers};
use clap::Args;
use miette::IntoDiagnostic;

/// `cairn parse TOOL [FILE]`, `cairn parse --list`.
#[derive(Debug, Args)]
pub(crate) struct ParseArgs {
    /// The parser (see --list).
    #[arg(required_unless_present = "list")]
    tool: Option<String>,
    /// The output file, or `-` for standard input.
    #[arg(default_value = "-")]
    file: String,
    /// List the parsers.
    #[arg(long)]
    list: bool,
}

impl ParseArgs {
    pub(crate) fn execute(self) -> miette::Result<ExitCode> {
        parse(self.tool.as_deref(), &self.file, self.list)
    }
}

fn parse(tool: Option<&str>, file: &str, list: bool) -> miette::Result<ExitCode> {
    if list {
        for p in parsers() {
            say!("{:<26} {}", p.name, p.command);
        }
        return Ok(ExitCode::SUCCESS);
    }
    let name = tool.unwrap_or_default();
    let Some(parser) = parser(name) else {
        return Err(miette::miette!(
            help = "`cairn parse --list` lists the parsers",
            "no parser named `{name}`"
        ));
    };
    let text = if file == "-" {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .into_diagnostic()?;
        text
    } else {
        std::fs::read_to_string(file).map_err(|e| miette::miette!("cannot read `{file}`: {e}"))?
    };
    let value = (parser.parse)(&text)?;
    say!(
        "{}",
        serde_json::to_string_pretty(&value).into_diagnostic()?
    );
    Ok(ExitCode::SUCCESS)
}
