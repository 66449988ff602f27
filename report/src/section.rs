//! A section of the page: one per kind of finding, so a new kind (a fabric heatmap) is one
//! more implementation added to [`crate::page::SECTIONS`].

use crate::report_error::ReportError;
use crate::run_model::RunModel;

/// One kind of finding.
pub trait Section: Sync {
    /// The section's anchor (`<section id=...>`), stable for links and tests.
    fn id(&self) -> &'static str;
    /// Its heading.
    fn title(&self) -> &'static str;
    /// Its body, or `None` when the run has nothing of this kind (the section is left out).
    fn render(&self, model: &RunModel) -> Result<Option<String>, ReportError>;
}
