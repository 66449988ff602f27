//! `cairn report --pdf`: the page printed to PDF by headless Chromium (`--print-to-pdf`, as
//! Chromium's headless mode documents it), for a change ticket. The page is written beside
//! the PDF first, printed with no network (every host name resolves to nothing) and a profile
//! of its own, then removed; the PDF is renamed into place only once it is a PDF.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::report_error::ReportError;
use crate::run_model::RunModel;

/// The browsers looked for on PATH, in order; `CAIRN_CHROMIUM` names one instead.
const BROWSERS: [&str; 3] = ["chromium", "chromium-browser", "google-chrome"];

/// How long printing may take before the browser is stopped.
const PRINT_TIMEOUT: Duration = Duration::from_secs(120);

/// Writes the page for `model` as a PDF at `path`.
pub fn write_pdf(model: &RunModel, path: &Path) -> Result<(), ReportError> {
    let browser = browser()?;
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let stem = format!(".{}.{}", file_name(path), std::process::id());
    let page = dir.join(format!("{stem}.html"));
    let printed = dir.join(format!("{stem}.pdf"));
    let profile = dir.join(format!("{stem}.profile"));
    let log = dir.join(format!("{stem}.log"));
    crate::write(model, &page)?;
    let result = print(&browser, &page, &printed, &profile, &log).and_then(|()| {
        std::fs::rename(&printed, path).map_err(|source| ReportError::Write {
            path: path.display().to_string(),
            source,
        })
    });
    let _ = std::fs::remove_file(&page);
    let _ = std::fs::remove_file(&printed);
    let _ = std::fs::remove_file(&log);
    let _ = std::fs::remove_dir_all(&profile);
    result
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map_or_else(|| "report".into(), |n| n.to_string_lossy().into_owned())
}

/// `CAIRN_CHROMIUM`, or the first of [`BROWSERS`] on PATH.
fn browser() -> Result<PathBuf, ReportError> {
    if let Some(named) = std::env::var_os("CAIRN_CHROMIUM") {
        return Ok(PathBuf::from(named));
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    BROWSERS
        .iter()
        .find_map(|name| {
            std::env::split_paths(&path)
                .map(|dir| dir.join(name))
                .find(|candidate| candidate.is_file())
        })
        .ok_or_else(|| ReportError::NoBrowser {
            tried: BROWSERS.join(", "),
        })
}

/// Chromium's flags for a headless run that reaches nothing: no sandbox or GPU (a container,
/// CI), no first-run page or extensions, and every host name resolving to nothing, so a page
/// that loaded anything would fail to.
pub const HEADLESS_FLAGS: [&str; 6] = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-extensions",
    "--host-resolver-rules=MAP * ~NOTFOUND",
];

/// Runs the browser on `page` until it has printed `pdf`, or the timeout; what it says goes
/// to `log` (a file, so a talkative browser never blocks on a full pipe).
fn print(
    browser: &Path,
    page: &Path,
    pdf: &Path,
    profile: &Path,
    log: &Path,
) -> Result<(), ReportError> {
    let failed = |reason: String| ReportError::Print {
        browser: browser.display().to_string(),
        path: pdf.display().to_string(),
        reason,
    };
    let absolute = std::fs::canonicalize(page).map_err(|e| failed(e.to_string()))?;
    let said = std::fs::File::create(log).map_err(|e| failed(e.to_string()))?;
    let mut child = Command::new(browser)
        .args(HEADLESS_FLAGS)
        .arg("--no-pdf-header-footer")
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("--print-to-pdf={}", pdf.display()))
        .arg(format!("file://{}", absolute.display()))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::from(said))
        .spawn()
        .map_err(|e| failed(e.to_string()))?;
    let started = Instant::now();
    let status = loop {
        match child.try_wait().map_err(|e| failed(e.to_string()))? {
            Some(status) => break status,
            None if started.elapsed() > PRINT_TIMEOUT => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(failed(format!(
                    "stopped after {} s",
                    PRINT_TIMEOUT.as_secs()
                )));
            }
            None => std::thread::sleep(Duration::from_millis(50)),
        }
    };
    let said = std::fs::read_to_string(log).unwrap_or_default();
    let head = std::fs::read(pdf).map(|bytes| bytes.starts_with(b"%PDF-"));
    match (status.success(), head) {
        (true, Ok(true)) => Ok(()),
        (true, _) => Err(failed("the file it wrote is not a PDF".into())),
        (false, _) => Err(failed(format!("{status}: {}", last_lines(&said)))),
    }
}

/// The end of what the browser said, for the error.
fn last_lines(text: &str) -> String {
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    lines[lines.len().saturating_sub(3)..].join(" / ")
}
