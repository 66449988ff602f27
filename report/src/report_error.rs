//! What stops a report from being written.

use miette::Diagnostic;

/// A report that cannot be made.
#[derive(Debug, thiserror::Error, Diagnostic)]
pub enum ReportError {
    /// The state folder holds no run.
    #[error("no runs in {state}")]
    #[diagnostic(
        code(cairn::report::no_runs),
        help("`cairn run` records a run there; pass --state-dir for another folder")
    )]
    NoRuns {
        /// The state folder.
        state: String,
    },
    /// The run asked for does not exist.
    #[error("no run `{id}` in {state}")]
    #[diagnostic(code(cairn::report::unknown_run), help("{help}"))]
    UnknownRun {
        /// The id asked for.
        id: String,
        /// The state folder.
        state: String,
        /// A did-you-mean, or where to find the ids.
        help: String,
    },
    /// A journal or `run.json` could not be read.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Journal(#[from] cairn_runtime::journal::JournalError),
    /// A plot could not be drawn.
    #[error("cannot draw the plot `{title}`: {reason}")]
    #[diagnostic(code(cairn::report::plot))]
    Plot {
        /// The plot's title.
        title: String,
        /// plotters' error.
        reason: String,
    },
    /// The page could not be written.
    #[error("cannot write {path}: {source}")]
    #[diagnostic(code(cairn::report::write))]
    Write {
        /// The output file.
        path: String,
        /// The operating system's reason.
        source: std::io::Error,
    },
    /// `--pdf` found no Chromium to print with.
    #[error("no Chromium to print the PDF with: none of {tried} is on PATH")]
    #[diagnostic(
        code(cairn::report::no_browser),
        help(
            "install Chromium (Debian: `apt-get install chromium`), or name one with CAIRN_CHROMIUM=/path/to/chromium"
        )
    )]
    NoBrowser {
        /// The names looked for.
        tried: String,
    },
    /// Chromium ran and did not print the page.
    #[error("{browser} did not print {path}: {reason}")]
    #[diagnostic(code(cairn::report::print))]
    Print {
        /// The browser run.
        browser: String,
        /// The PDF asked for.
        path: String,
        /// Its exit and what it said, or what the file lacks.
        reason: String,
    },
}
