//! Reads an `mlnxofedinstall` transcript line by line (one pass, so linear in its length) into
//! [`OfedInstall`].
//!
//! The lines it knows come from published transcripts (see `docs/parsers.md` and the fixtures'
//! `.source` files) and from the installer itself (MLNX_OFED's `mlnxofedinstall` Perl script:
//! `main` prints `Logs dir:`, the selected packages, `Do you want to continue?[y/N]:`, then
//! `check_and_update_FW` prints `Attempting to perform Firmware update...` and runs
//! `mlxfwmanager`, `check_pcie_link` prints the `Device (ADDR):` blocks, and the end prints
//! `To load the new driver, run:` or `Please reboot your system ...`). The firmware part, from
//! `Querying Mellanox devices firmware ...`, is `mlxfwmanager`'s own output and is read by its
//! parser. Perl's `Term::ANSIColor` colours are dropped.

use super::installer_types::{
    FirmwareOutcome, FirmwareReport, InstallResult, InstalledPackage, NextStep, NotDistributed,
    OfedInstall, PcieLink,
};
use crate::ParseError;

const TOOL: &str = "mlnxofedinstall";

/// Where the line walker is.
enum Section {
    /// Lines on their own.
    Top,
    /// Under `Below is the list of ... packages`: `started` once a package was read.
    Selected { started: bool },
    /// Inside `mlxfwmanager`'s output, which began at this byte offset.
    Firmware { start: usize },
    /// Under `Device (ADDR):`.
    Pcie,
    /// After a line ending in `run:`: the next non-blank line is its command.
    Command,
}

/// Parses the transcript of `mlnxofedinstall` (or MLNX_EN's `install`).
pub(super) fn parse_install(text: &str) -> Result<OfedInstall, ParseError> {
    // Why long: one walk over the transcript's lines in the installer's order, each line kind a branch that also knows what came before it (the firmware step, the result).
    let mut out = OfedInstall {
        product: None,
        logs_dir: None,
        general_log: None,
        selected_packages: Vec::new(),
        confirmation: None,
        installed: Vec::new(),
        result: InstallResult::Unfinished,
        firmware: FirmwareReport {
            outcome: FirmwareOutcome::NotAttempted,
            query: None,
            not_distributed: Vec::new(),
            log_file: None,
        },
        pcie_links: Vec::new(),
        next_steps: Vec::new(),
        reboot_required: false,
        errors: Vec::new(),
        notes: Vec::new(),
        other: Vec::new(),
    };
    let mut attempted = false;
    let mut failed_firmware = false;
    let mut passed = false;
    let mut failed = false;
    let mut known = false;
    let mut section = Section::Top;
    let mut offset = 0;
    for raw in text.split_inclusive('\n') {
        let start = offset;
        offset += raw.len();
        let line = plain(raw);
        let trimmed = line.trim();
        if let Section::Firmware { start: from } = section {
            if !ends_firmware(trimmed) {
                continue;
            }
            out.firmware.query = Some(firmware_query(text, from, start)?);
            section = Section::Top;
        }
        match section {
            Section::Selected { started } => {
                if trimmed.is_empty() {
                    if started {
                        section = Section::Top;
                    }
                    continue;
                }
                if trimmed.starts_with('(') {
                    continue;
                }
                if !trimmed.contains(' ') {
                    out.selected_packages.push(trimmed.to_owned());
                    section = Section::Selected { started: true };
                    continue;
                }
                section = Section::Top;
            }
            Section::Pcie => {
                if let Some(link) = out.pcie_links.last_mut() {
                    if let Some(width) = trimmed.strip_prefix("Link Width:") {
                        link.link_width = Some(width.trim().to_owned());
                        continue;
                    }
                    if let Some(width) = trimmed.strip_prefix("Link Width is ") {
                        link.link_width = Some(width.trim().to_owned());
                        continue;
                    }
                    if let Some(speed) = trimmed.strip_prefix("PCI Link Speed:") {
                        link.link_speed = Some(speed.trim().to_owned());
                        continue;
                    }
                    if let Some(rest) = trimmed
                        .strip_prefix(link.pci.as_str())
                        .filter(|_| link.description.is_none())
                    {
                        link.description = Some(rest.trim().to_owned());
                        continue;
                    }
                }
                section = Section::Top;
                if trimmed.is_empty() {
                    continue;
                }
            }
            Section::Command => {
                if trimmed.is_empty() {
                    continue;
                }
                section = Section::Top;
                if !is_installer_line(trimmed) {
                    if let Some(step) = out.next_steps.last_mut() {
                        step.command = Some(trimmed.to_owned());
                    }
                    continue;
                }
            }
            Section::Top | Section::Firmware { .. } => {}
        }
        if trimmed.is_empty() {
            continue;
        }
        known |= is_installer_line(trimmed);
        if let Some(dir) = trimmed.strip_prefix("Logs dir:") {
            out.logs_dir = Some(dir.trim().to_owned());
        } else if let Some(log) = trimmed.strip_prefix("General log file:") {
            out.general_log = Some(log.trim().to_owned());
        } else if let Some(product) = between(trimmed, "Below is the list of ", " packages") {
            out.product.get_or_insert_with(|| product.to_owned());
            section = Section::Selected { started: false };
        } else if let Some(product) = between(trimmed, "This program will install the ", " package")
        {
            out.product.get_or_insert_with(|| product.to_owned());
        } else if let Some(answer) = trimmed.strip_prefix("Do you want to continue?[y/N]:") {
            out.confirmation = Some(answer.trim().to_owned());
        } else if let Some(package) = installing(trimmed) {
            out.installed.push(package);
        } else if trimmed == "Installation passed successfully"
            || trimmed == "Installation finished successfully."
        {
            passed = true;
        } else if trimmed.starts_with("Attempting to perform Firmware update") {
            attempted = true;
        } else if trimmed.starts_with("Querying Mellanox devices firmware") {
            attempted = true;
            section = Section::Firmware { start };
        } else if let Some(rest) = trimmed
            .strip_prefix("The firmware for this device is not distributed inside Mellanox driver:")
        {
            attempted = true;
            out.firmware.not_distributed.push(not_distributed(rest));
        } else if trimmed == "Failed to update Firmware." {
            failed_firmware = true;
            out.errors.push(trimmed.to_owned());
        } else if let Some(log) = trimmed.strip_prefix("See ").filter(|_| failed_firmware) {
            out.firmware.log_file = Some(log.trim().to_owned());
        } else if let Some(log) = trimmed
            .strip_prefix("Real log file:")
            .or_else(|| trimmed.strip_prefix("Log File:"))
        {
            out.firmware.log_file = Some(log.trim().to_owned());
        } else if let Some(pci) = trimmed
            .strip_prefix("Device (")
            .and_then(|rest| rest.strip_suffix("):"))
        {
            out.pcie_links.push(PcieLink {
                pci: pci.to_owned(),
                description: None,
                link_width: None,
                link_speed: None,
            });
            section = Section::Pcie;
        } else if trimmed.starts_with("Please reboot your system") {
            out.reboot_required = true;
            out.next_steps.push(NextStep {
                what: trimmed.to_owned(),
                command: None,
            });
        } else if trimmed.ends_with("run:") || trimmed.ends_with("Run:") {
            out.next_steps.push(NextStep {
                what: trimmed.to_owned(),
                command: None,
            });
            section = Section::Command;
        } else if is_failure(trimmed) {
            failed = true;
            out.errors.push(trimmed.to_owned());
        } else if trimmed.starts_with("Error:") || trimmed.starts_with("Error ") {
            out.errors.push(trimmed.to_owned());
        } else if trimmed.starts_with("Note:") {
            out.notes.push(trimmed.to_owned());
        } else {
            out.other.push(trimmed.to_owned());
        }
    }
    if let Section::Firmware { start } = section {
        out.firmware.query = Some(firmware_query(text, start, text.len())?);
    }
    if !known {
        let first = text.lines().next().map_or(0, str::len);
        return Err(ParseError::at(
            TOOL,
            text,
            0,
            first,
            "expected mlnxofedinstall output (`Logs dir:`, `Installing ...`, `Installation passed successfully`)",
        ));
    }
    let errors_without_firmware = out
        .errors
        .iter()
        .any(|e| e.as_str() != "Failed to update Firmware.");
    out.result = if passed {
        InstallResult::Passed
    } else if failed || errors_without_firmware {
        InstallResult::Failed
    } else if out
        .confirmation
        .as_deref()
        .is_some_and(|a| !a.starts_with(['y', 'Y']))
    {
        InstallResult::NotConfirmed
    } else {
        InstallResult::Unfinished
    };
    let query = out.firmware.query.as_ref();
    let updated = query.is_some_and(|q| q.updates.iter().any(|u| u.done));
    let unfinished_update = query.is_some_and(|q| q.updates.iter().any(|u| !u.done));
    out.reboot_required |= query.is_some_and(|q| q.restart_needed);
    out.firmware.outcome = if failed_firmware || unfinished_update {
        FirmwareOutcome::Failed
    } else if updated {
        FirmwareOutcome::Updated
    } else if attempted {
        FirmwareOutcome::UpToDate
    } else {
        FirmwareOutcome::NotAttempted
    };
    if out.firmware.log_file.is_none() {
        // After an up-to-date query with no update, mlxfwmanager's parser keeps `Log File:` as
        // a field of the last device block.
        out.firmware.log_file = query.and_then(|q| {
            q.log_file.clone().or_else(|| {
                q.devices
                    .last()
                    .and_then(|d| d.other.get("Log File").cloned())
            })
        });
    }
    Ok(out)
}

/// A line of the installer's own (not `mlxfwmanager`'s, not a command it shows): what makes a
/// transcript one of `mlnxofedinstall`, and what ends a firmware part or a command.
fn is_installer_line(line: &str) -> bool {
    const STARTS: &[&str] = &[
        "Logs dir:",
        "General log file:",
        "Below is the list of ",
        "This program will install the ",
        "Do you want to continue?[y/N]:",
        "Installation passed successfully",
        "Installation finished successfully.",
        "Attempting to perform Firmware update",
        "Removing old packages...",
        "Installing new packages",
        "Failed to update Firmware.",
        "Failure: Failed to install ",
        "Error: One or more required packages for installing ",
        "To load the new driver, run:",
        "Please reboot your system",
        "Real log file:",
        "Added 'RUN_FW_UPDATER_ONBOOT=",
        "Configuring /etc/security/limits.conf",
        "You may need to update your initramfs",
        "The firmware for this device is not distributed",
    ];
    STARTS.iter().any(|s| line.starts_with(s))
        || installing(line).is_some()
        || (line.starts_with("Device (") && line.ends_with("):"))
}

/// Whether `line` ends `mlxfwmanager`'s part of the transcript.
fn ends_firmware(line: &str) -> bool {
    is_installer_line(line) || line.starts_with("Initializing...") || line.starts_with("Note:")
}

/// `mlxfwmanager`'s output between two offsets, parsed; an error points into the whole text.
fn firmware_query(
    text: &str,
    from: usize,
    to: usize,
) -> Result<crate::grammar::mlxfwmanager::Mlxfwmanager, ParseError> {
    let part = text.get(from..to).unwrap_or_default();
    crate::grammar::mlxfwmanager::parse(part).map_err(|e| {
        ParseError::at(
            TOOL,
            text,
            from + e.span.offset(),
            e.span.len(),
            format!("in the firmware update: {}", e.message),
        )
    })
}

/// `Installing ofed-scripts-5.6...` as a package and its version.
fn installing(line: &str) -> Option<InstalledPackage> {
    let rest = line.strip_prefix("Installing ")?.strip_suffix("...")?;
    if rest.is_empty() || rest.contains(' ') {
        return None;
    }
    let split = rest
        .char_indices()
        .filter(|&(i, c)| {
            c == '-'
                && rest[i + 1..]
                    .chars()
                    .next()
                    .is_some_and(|d| d.is_ascii_digit())
        })
        .map(|(i, _)| i)
        .next_back();
    Some(match split {
        Some(i) => InstalledPackage {
            name: rest[..i].to_owned(),
            version: rest[i + 1..].to_owned(),
        },
        None => InstalledPackage {
            name: rest.to_owned(),
            version: String::new(),
        },
    })
}

/// `Failure: ...`, `ERROR: ...`, `Failed to install X DEB`: the installation did not pass.
fn is_failure(line: &str) -> bool {
    line.starts_with("Failure:")
        || line.starts_with("ERROR:")
        || (line.starts_with("Failed to ") && line != "Failed to update Firmware.")
}

/// ` 01:00.0 (PSID: HUA0020040036)`.
fn not_distributed(rest: &str) -> NotDistributed {
    let rest = rest.trim();
    let (pci, psid) = rest.split_once(" (PSID:").unwrap_or((rest, ""));
    NotDistributed {
        pci: pci.trim().to_owned(),
        psid: psid.trim().trim_end_matches(')').trim().to_owned(),
    }
}

/// The text between `prefix` and the first `suffix` after it.
fn between<'a>(line: &'a str, prefix: &str, suffix: &str) -> Option<&'a str> {
    let rest = line.strip_prefix(prefix)?;
    rest.find(suffix).map(|end| &rest[..end])
}

/// The line without its end and without terminal colour escapes (`ESC[34m`, `ESC[0m`).
fn plain(raw: &str) -> std::borrow::Cow<'_, str> {
    let line = raw.trim_end_matches(['\n', '\r']);
    if !line.contains('\u{1b}') {
        return std::borrow::Cow::Borrowed(line);
    }
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' && chars.peek() == Some(&'[') {
            chars.next();
            while chars
                .peek()
                .is_some_and(|d| d.is_ascii_digit() || *d == ';')
            {
                chars.next();
            }
            chars.next();
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::super::installer_types::{FirmwareOutcome, InstallResult};
    use super::parse_install;

    #[test]
    fn versions_split_at_the_last_dash_before_a_digit() {
        let text = "Installing libibverbs1-56mlnx40...\nInstalling mlnx-ofed-kernel-utils-5.6...\n";
        let out = parse_install(text).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(out.installed[0].name, "libibverbs1");
        assert_eq!(out.installed[0].version, "56mlnx40");
        assert_eq!(out.installed[1].name, "mlnx-ofed-kernel-utils");
        assert_eq!(out.result, InstallResult::Unfinished);
        assert_eq!(out.firmware.outcome, FirmwareOutcome::NotAttempted);
    }

    #[test]
    fn coloured_lines_and_a_declined_prompt() {
        let text = "\u{1b}[34mLogs dir: /tmp/MLNX_OFED_LINUX.1.logs\u{1b}[0m\nDo you want to continue?[y/N]:\n";
        let out = parse_install(text).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(out.logs_dir.as_deref(), Some("/tmp/MLNX_OFED_LINUX.1.logs"));
        assert_eq!(out.result, InstallResult::NotConfirmed);
    }

    #[test]
    fn other_text_is_refused() {
        assert!(parse_install("MLNX_OFED_LINUX-5.4-3.0.3.0:\n").is_err());
        assert!(parse_install("").is_err());
    }
}
