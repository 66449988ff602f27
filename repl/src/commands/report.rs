//! `cairn report`: a run's journals as one HTML page, or that page printed to PDF (the
//! `cairn-report` crate makes both).

use std::path::PathBuf;
use std::process::ExitCode;

use cairn_report::RunModel;
use cairn_runtime::RunFolders;
use clap::Args;

use super::Context;

/// `cairn report [RUN-ID] [-o FILE] [--pdf]`.
#[derive(Debug, Args)]
pub(crate) struct ReportArgs {
    /// The run (default: the newest).
    run_id: Option<String>,
    /// The file to write (default: report.html, or report.pdf with --pdf).
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Print the page to PDF with headless Chromium (for a change ticket).
    #[arg(long)]
    pdf: bool,
    #[command(flatten)]
    store: crate::store_args::StoreArgs,
}

impl ReportArgs {
    pub(crate) fn execute(self, context: &Context) -> miette::Result<ExitCode> {
        let (store, _) = self.store.runs(&context.state, self.run_id.as_deref())?;
        report(&store, self.run_id.as_deref(), self.output, self.pdf)
    }
}

fn report(
    store: &RunFolders,
    run_id: Option<&str>,
    output: Option<PathBuf>,
    pdf: bool,
) -> miette::Result<ExitCode> {
    let output = output.unwrap_or_else(|| if pdf { "report.pdf" } else { "report.html" }.into());
    let model = RunModel::load(store, run_id)?;
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
