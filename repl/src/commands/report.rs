//! `cairn report`: a run's journals as one HTML page (the `cairn-report` crate makes it).

use std::path::Path;
use std::process::ExitCode;

use cairn_report::RunModel;
use cairn_runtime::RunStore;

pub(crate) fn report(
    state: &Path,
    run_id: Option<&str>,
    output: &Path,
) -> miette::Result<ExitCode> {
    let model = RunModel::load(&RunStore::new(state), run_id)?;
    for note in &model.notes {
        eprintln!("warning: {note}");
    }
    cairn_report::write(&model, output)?;
    say!(
        "report of run {} ({} host(s)) written to {}",
        model.meta.run_id,
        model.hosts.len(),
        output.display()
    );
    Ok(ExitCode::SUCCESS)
}
