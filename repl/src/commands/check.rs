//! `cairn check`: compile a runbook and check it, and its stages' groups against an inventory;
//! runs nothing. `--format json` prints one object per problem for editors and CI.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use cairn_runtime::inventory::{HostPattern, Inventory};
use cairn_runtime::{CheckRecord, Runbook, build_engine, check_source};
use clap::{Args, ValueEnum};

use super::Context;

/// `cairn check RUNBOOK [-i INVENTORY [--limit PATTERN]] [--format json]`.
#[derive(Debug, Args)]
pub(crate) struct CheckArgs {
    /// The runbook, or a recipe: a name one pack has, or `namespace/pack:recipe`.
    runbook: PathBuf,
    /// The inventory (TOML) whose groups the stages must name.
    #[arg(short, long)]
    inventory: Option<PathBuf>,
    /// Only these hosts: names, globs (`esx0*`), ranges (`node[01-04]`), groups, `!` to
    /// exclude, `&` to intersect, separated by `:` or `,` (as Ansible's patterns).
    #[arg(long, value_name = "PATTERN", requires = "inventory")]
    limit: Option<String>,
    /// How to print the problems: for people, or one JSON object per line (file, line,
    /// column, code, message, help) for editors and CI annotations.
    #[arg(long, value_enum, default_value_t = CheckFormat::Human)]
    format: CheckFormat,
}

/// `cairn check --format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum CheckFormat {
    /// Diagnostics with the source lines, on standard error.
    Human,
    /// One JSON object per problem on standard output (docs/editors.md).
    Json,
}

impl CheckArgs {
    pub(crate) fn execute(self, context: &Context) -> miette::Result<ExitCode> {
        let runbook = super::recipes::runbook_file(&context.state, &self.runbook)?;
        check(
            &context.state,
            &runbook,
            self.inventory.as_deref(),
            self.limit.as_deref(),
            self.format,
        )
    }
}

fn check(
    state: &Path,
    path: &Path,
    inventory: Option<&Path>,
    limit: Option<&str>,
    format: CheckFormat,
) -> miette::Result<ExitCode> {
    let json = format == CheckFormat::Json;
    let refuse = |error: miette::Report, file: &Path| -> miette::Result<ExitCode> {
        if !json {
            return Err(error);
        }
        print_records(&[CheckRecord::of(
            error.as_ref(),
            &file.display().to_string(),
            None,
        )]);
        Err(miette::miette!("1 problem(s) in {}", path.display()))
    };
    let launcher = crate::assembly::launcher(state);
    let runbook = match Runbook::load(path) {
        Ok(runbook) => runbook.with_lib_path(&launcher.lib_path),
        Err(error) => return refuse(error.into(), path),
    };
    let inventory = match inventory.map(|file| {
        let check = |address: &_| cairn_runtime::sim::check_address(&launcher.sim_models, address);
        (file, Inventory::load_checked(file, Some(&check)))
    }) {
        None => None,
        Some((_, Ok(inventory))) => Some(inventory),
        Some((file, Err(error))) => return refuse(error.into(), file),
    };
    if let (Some(inventory), Some(limit)) = (&inventory, limit) {
        let selected = HostPattern::parse(limit)?.select(inventory)?;
        let names: Vec<&str> = selected.iter().map(|h| h.name.as_str()).collect();
        let line = format!(
            "--limit {limit}: {} host(s): {}",
            names.len(),
            names.join(", ")
        );
        if json {
            eprintln!("{line}");
        } else {
            say!("{line}");
        }
    }
    let engine = build_engine(&runbook.imports(), &launcher.libraries, u64::MAX);
    let checked = check_source(&engine, &runbook, inventory.as_ref());
    let count = checked.errors.len();
    if json {
        print_records(&checked.records(&runbook, &|file| std::fs::read_to_string(file).ok()));
    } else {
        for warning in checked.warnings {
            eprintln!("warning: {warning}");
        }
        for problem in checked.errors {
            eprintln!("{:?}", miette::Report::new(problem));
        }
    }
    if count == 0 {
        if !json {
            say!("{}: ok", runbook.name());
        }
        Ok(ExitCode::SUCCESS)
    } else {
        Err(miette::miette!("{count} problem(s) in {}", runbook.name()))
    }
}

fn print_records(records: &[CheckRecord]) {
    for record in records {
        if let Ok(line) = serde_json::to_string(record) {
            say!("{line}");
        }
    }
}
