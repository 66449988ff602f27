//! `cairn check`: compile a runbook and check its builtin calls, running nothing.

use std::path::Path;
use std::process::ExitCode;

use cairn_runtime::{Runbook, build_engine, check_calls};

pub(crate) fn check(path: &Path) -> miette::Result<ExitCode> {
    let runbook = Runbook::load(path)?;
    let libraries = cairn_stdlib::libraries();
    let engine = build_engine(&runbook.dir(), &libraries, u64::MAX);
    let ast = runbook.compile(&engine)?;
    let problems = check_calls(&engine, &ast, &runbook);
    let count = problems.len();
    for problem in problems {
        eprintln!("{:?}", miette::Report::new(problem));
    }
    if count == 0 {
        say!("{}: ok", runbook.name());
        Ok(ExitCode::SUCCESS)
    } else {
        Err(miette::miette!("{count} problem(s) in {}", runbook.name()))
    }
}
