//! Reads an `mlxfwreset reset` transcript line by line into [`ResetRun`] (docs/parsers.md,
//! "Transcripts"). The lines are those of mstflint's `small_utils/mstfwreset.py`: the heading in
//! both wordings (older `Requested reset level for device, DEV:` / `Minimal reset level for
//! device, DEV:`, newer `The reset level for device, DEV is:`), then `N: description`, the
//! `Continue with reset?[y/N]` prompt and its answer, the newer `Reset level: N, Reset type: N,
//! Reset sync: N, Reset method: N`, each step as `printAndFlush("-I- %-40s-" % name)` followed by
//! `Done`, `Skipped` or `Failed`, and `-I- FW was loaded successfully.`; `-E-` lines are the
//! tool's errors.

use super::reset_types::{ResetRun, ResetStep};
use crate::ParseError;
use crate::grammar::ToolError;
use crate::grammar::transcript::{Line, lines};

const TOOL: &str = "mlxfwreset-reset";

/// Parses `mlxfwreset -d DEV reset` output.
pub(super) fn parse_reset(text: &str) -> Result<ResetRun, ParseError> {
    let mut run = ResetRun {
        device: None,
        level: None,
        level_description: None,
        answer: None,
        reset_type: None,
        reset_sync: None,
        reset_method: None,
        steps: Vec::new(),
        loaded: false,
        warnings: Vec::new(),
        error: None,
        messages: Vec::new(),
    };
    let mut heading = false;
    for line in lines(text).filter(|l| !l.is_blank()) {
        let text = line.text;
        if let Some(device) = heading_device(text) {
            run.device = Some(device.to_owned());
            heading = true;
        } else if heading && run.level.is_none() && level_line(&mut run, text) {
            // `3: Driver restart and PCI reset`.
        } else if let Some(answer) = text.strip_prefix("Continue with reset?[y/N]") {
            run.answer = Some(answer.trim().to_owned()).filter(|a| !a.is_empty());
        } else if text.starts_with("Reset level:") {
            settings(&mut run, text);
        } else if let Some(step) = step(&line) {
            if step.status == "Failed" && run.error.is_none() {
                run.error = Some(ToolError {
                    kind: "step_failed".into(),
                    message: format!("{} -Failed", step.name),
                    line: line.number,
                });
            }
            run.steps.push(step);
        } else if let Some(words) = text.strip_prefix("-E-") {
            error(&mut run, words.trim(), &line);
        } else if let Some(words) = text.strip_prefix("-W-") {
            run.warnings.push(crate::grammar::Message {
                line: line.number,
                text: words.trim().to_owned(),
            });
        } else if [
            "-I- FW was loaded successfully",
            "-I- FW reset success",
            "Embedded CPU reset/shutdown operation completed",
        ]
        .iter()
        .any(|done| text.starts_with(done))
        {
            run.loaded = true;
        } else {
            run.messages.push(line.message());
        }
    }
    // The transcript's own: its heading, a step, the prompt, the settings line or the
    // success line; or the tool's failure alone (`-E-`/`-W-` lines and nothing else, as
    // another MFT tool's output with its own `-E-` line is not a reset).
    let recognised = heading
        || !run.steps.is_empty()
        || run.answer.is_some()
        || run.reset_type.is_some()
        || run.loaded;
    if !recognised && (run.error.is_none() || !run.messages.is_empty()) {
        let at = text.len() - text.trim_start().len();
        return Err(ParseError::at(
            TOOL,
            text,
            at,
            0,
            "expected the reset level heading (`The reset level for device, DEV is:`), a `-I- ... -Done` step or an `-E-` line",
        ));
    }
    Ok(run)
}

/// The device of either wording of the heading.
fn heading_device(text: &str) -> Option<&str> {
    if let Some(rest) = text.strip_prefix("The reset level for device,") {
        return rest.trim().strip_suffix("is:").map(str::trim);
    }
    let at = text.find("eset level for device,")?;
    let before = &text[..at];
    if !matches!(before, "R" | "Requested r" | "Minimal r") {
        return None;
    }
    text[at + "eset level for device,".len()..]
        .trim()
        .strip_suffix(':')
        .map(str::trim)
}

/// `3: Driver restart and PCI reset` under the heading.
fn level_line(run: &mut ResetRun, text: &str) -> bool {
    let Some((number, description)) = text.split_once(':') else {
        return false;
    };
    let Ok(level) = number.trim().parse() else {
        return false;
    };
    run.level = Some(level);
    run.level_description = Some(description.trim().to_owned());
    true
}

/// `Reset level: 3, Reset type: 0, Reset sync: 0, Reset method: 0`.
fn settings(run: &mut ResetRun, text: &str) {
    for part in text.split(',') {
        let Some((name, value)) = part.split_once(':') else {
            continue;
        };
        let value = value.trim().parse().ok();
        match name.trim() {
            "Reset level" => run.level = run.level.or(value),
            "Reset type" => run.reset_type = value,
            "Reset sync" => run.reset_sync = value,
            "Reset method" => run.reset_method = value,
            _ => {}
        }
    }
}

/// `-I- Sending Reset Command To Fw             -Done`: the name padded to 40, a dash, the status.
fn step(line: &Line<'_>) -> Option<ResetStep> {
    let rest = line.text.strip_prefix("-I- ")?;
    let (name, status) = rest.rsplit_once('-')?;
    let status = status.trim();
    matches!(status, "Done" | "Skipped" | "Failed").then(|| ResetStep {
        name: name.trim().to_owned(),
        status: status.to_owned(),
        line: line.number,
    })
}

/// The first `-E-` line, with a kind for the errors `mstfwreset.py` raises most.
fn error(run: &mut ResetRun, words: &str, line: &Line<'_>) {
    if run.error.is_some() {
        return;
    }
    let kind = if words.contains("is not supported in the current state") {
        "unsupported_level"
    } else if words.starts_with("There is no supported reset-level") {
        "no_level"
    } else if words.starts_with("Firmware reset failed") {
        "reset_failed"
    } else if words.starts_with("Aborted by user") {
        "aborted"
    } else {
        "tool"
    };
    run.error = Some(ToolError {
        kind: kind.into(),
        message: words.to_owned(),
        line: line.number,
    });
}

#[cfg(test)]
mod tests {
    use super::parse_reset;

    /// The newer wording, as the simulator and mstfwreset.py print it, with a step that failed.
    #[test]
    fn the_newer_wording_with_its_settings_line_and_a_failed_step() {
        let text = "\nThe reset level for device, 0000:3b:00.0 is:\n\n3: Driver restart and PCI reset\nContinue with reset?[y/N] y\nReset level: 3, Reset type: 0, Reset sync: 1, Reset method: 0\n-I- Stopping Driver                         -Done\n-I- Sending Reset Command To Fw             -Failed\n";
        let run = parse_reset(text).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(run.device.as_deref(), Some("0000:3b:00.0"));
        assert_eq!((run.level, run.reset_sync), (Some(3), Some(1)));
        assert_eq!(run.steps.len(), 2);
        let error = run.error.unwrap_or_else(|| panic!("no error"));
        assert_eq!((error.kind.as_str(), error.line), ("step_failed", 8));
        assert!(!run.loaded);
    }

    #[test]
    fn an_error_alone_is_data_and_other_text_is_refused() {
        let run = parse_reset(
            "-E- Reset-level '1' is not supported in the current state of this device.\n",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            run.error.map(|e| e.kind).as_deref(),
            Some("unsupported_level")
        );
        assert!(parse_reset("").is_err());
        assert!(parse_reset("Reset-levels:\n0: NIC Driver is taken down\n").is_err());
    }
}
