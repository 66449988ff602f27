//! `cairn report`: a run's folder (`run.json` and the hosts' journals) as one self-contained
//! HTML page: summary and recap, failures with their runbook lines, a timeline per host,
//! perftest and sockperf plots, and the fleet's facts. See `docs/report.md`.

mod attempts;
mod change_record;
mod changes;
mod chart;
mod fabric_matrix;
mod fabric_verdict;
mod facts;
mod failures;
mod fold;
mod host_model;
pub mod html;
mod ibdiagnet;
mod left_behind;
mod manifest_diff;
mod page;
mod pdf;
mod perftest;
mod provenance;
mod published;
mod recap;
mod report_error;
mod run_model;
mod section;
mod sessions;
mod sockperf;
#[cfg(test)]
mod test_journals;
mod time_axis;
mod timeline;
mod unread;
mod verdict;

use std::path::Path;

pub use host_model::{Counts, HostModel};
pub use pdf::{HEADLESS_FLAGS, write_pdf};
pub use recap::host_counts;
pub use report_error::ReportError;
pub use run_model::RunModel;
pub use section::Section;
pub use sessions::SessionSpan;

/// The page for run `id` (the newest when `None`) of `store`.
pub fn render(store: &cairn_runtime::RunFolders, id: Option<&str>) -> Result<String, ReportError> {
    page::render(&RunModel::load(store, id)?)
}

/// Writes the page for `model` to `path` (through a temporary file renamed into place, so a
/// reader never sees half a page).
pub fn write(model: &RunModel, path: &Path) -> Result<(), ReportError> {
    let html = page::render(model)?;
    let error = |source| ReportError::Write {
        path: path.display().to_string(),
        source,
    };
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map_or_else(|| "report".into(), |n| n.to_string_lossy().into_owned());
    let temporary = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    std::fs::write(&temporary, html).map_err(error)?;
    std::fs::rename(&temporary, path).map_err(|e| {
        let _ = std::fs::remove_file(&temporary);
        error(e)
    })
}
