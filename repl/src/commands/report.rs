//! `cairn report`: a run's journals as one HTML page, or that page printed to PDF (the
//! `cairn-report` crate makes both).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use cairn_report::RunModel;
use cairn_runtime::RunStore;

pub(crate) fn report(
    state: &Path,
    run_id: Option<&str>,
    output: Option<PathBuf>,
    pdf: bool,
) -> miette::Result<ExitCode> {
    let output = output.unwrap_or_else(|| if pdf { "report.pdf" } else { "report.html" }.into());
    let model = RunModel::load(&RunStore::new(state), run_id)?;
    for note in &model.notes {
        eprintln!("warning: {note}");
    }
    if pdf {
        cairn_report::write_pdf(&model, &output)?;
    } else {
        cairn_report::write(&model, &output)?;
    }
    say!(
        "report of run {} ({}) written to {}",
        model.meta.run_id,
        cairn_report::host_counts(&model),
        output.display()
    );
    Ok(ExitCode::SUCCESS)
}
