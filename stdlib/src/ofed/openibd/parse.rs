//! Reads an `openibd` transcript line by line into [`Openibd`]: the lines the script prints
//! (MLNX_OFED's `ofed_scripts/openibd`: `echo_success`/`echo_failure`/`echo_warning` steps,
//! `stop()`'s refusals, `rm_mod`'s `rmmod` error, `get_debug_info`'s advice, the usage line),
//! and every other line as a message with its line number.

use super::types::{DeviceHolder, ModuleInUse, Openibd, OpenibdStep};
use crate::ParseError;
use crate::grammar::ToolError;
use crate::grammar::transcript::{Line, lines};

const TOOL: &str = "openibd";

/// What the previous line asks of this one.
#[derive(Clone, Copy, PartialEq)]
enum Expect {
    Anything,
    /// After `Please stop the following applications still using Infiniband devices:`.
    Holders,
    /// After a line ending in `run:`; `blocking` after `To unload the blocking modules`.
    Command {
        blocking: bool,
    },
}

/// Parses `openibd restart|start|stop` output.
pub(super) fn parse(text: &str) -> Result<Openibd, ParseError> {
    let mut out = Openibd {
        steps: Vec::new(),
        ok: true,
        issues: Vec::new(),
        applications: Vec::new(),
        modules_in_use: Vec::new(),
        blocking_modules: Vec::new(),
        next_steps: Vec::new(),
        error: None,
        messages: Vec::new(),
    };
    let mut expect = Expect::Anything;
    for line in lines(text).filter(|l| !l.is_blank()) {
        expect = match expect {
            Expect::Command { blocking } => {
                command(&mut out, line.text, blocking);
                Expect::Anything
            }
            Expect::Holders if holder(&mut out, line.text) => Expect::Holders,
            _ => classify(&mut out, &line),
        };
    }
    let failed = out.steps.iter().find(|s| s.status == "FAILED");
    if let (None, Some(step)) = (&out.error, failed) {
        out.error = Some(ToolError {
            kind: "step_failed".into(),
            message: format!("{}: [FAILED]", step.name),
            line: step.line,
        });
    }
    out.ok = out.error.is_none()
        && out
            .steps
            .iter()
            .all(|s| matches!(s.status.as_str(), "OK" | "done"));
    if out.steps.is_empty() && out.error.is_none() && out.issues.is_empty() {
        let at = text.len() - text.trim_start().len();
        return Err(ParseError::at(
            TOOL,
            text,
            at,
            0,
            "expected an openibd step (`Loading HCA driver and Access Layer:  [  OK  ]`) or one of its error lines",
        ));
    }
    Ok(out)
}

/// One line outside a list; returns what the next line should be.
fn classify(out: &mut Openibd, line: &Line<'_>) -> Expect {
    let text = line.text;
    if let Some(step) = step(line) {
        out.steps.push(step);
    } else if let Some(module) = module_in_use(text) {
        out.modules_in_use.push(module);
        raise(out, "module_in_use", line, true);
    } else if text.starts_with("Error: Cannot unload the Infiniband driver stack") {
        raise(out, "blocked", line, true);
    } else if text.starts_with("There are active virtual functions") {
        out.issues.push(line.message());
        raise(out, "active_virtual_functions", line, false);
    } else if text.starts_with("ERROR: Option 'stop' is disabled") {
        raise(out, "stop_disabled", line, false);
    } else if text.starts_with("Usage: ") {
        raise(out, "usage", line, false);
    } else if text == "No InfiniBand configuration found" {
        raise(out, "not_configured", line, false);
    } else if text.starts_with("Please stop the following applications still using") {
        out.issues.push(line.message());
        return Expect::Holders;
    } else if is_issue(text) {
        out.issues.push(line.message());
    } else if let Some((_, inline)) = text.split_once(" run: ") {
        // `To unload MLX4_EN run: 'modprobe -r mlx4_en mlx4_core'`.
        out.next_steps.push(inline.trim_matches('\'').to_owned());
    } else if text.ends_with("run:") {
        return Expect::Command {
            blocking: text.starts_with("To unload the blocking modules"),
        };
    } else {
        out.messages.push(line.message());
    }
    Expect::Anything
}

/// Records the script's error: the first one, except that `blocked` (the script's conclusion
/// after listing its issues) and `module_in_use` replace a weaker one.
fn raise(out: &mut Openibd, kind: &str, line: &Line<'_>, conclusive: bool) {
    let weaker = out
        .error
        .as_ref()
        .is_some_and(|e| e.kind == "active_virtual_functions");
    if out.error.is_none() || (conclusive && weaker) {
        out.error = Some(ToolError::new(kind, line));
    }
}

/// The reasons `stop()` gives before it refuses.
fn is_issue(text: &str) -> bool {
    [
        "Please stop ",
        "Please close all ",
        "Please make sure module ",
        "Please logout from all open-iscsi",
        "Please flush multipath devices",
        "MLX4_EN module is loaded and in use",
    ]
    .iter()
    .any(|start| text.starts_with(start))
}

/// The command after a line ending in `run:`, printed after `# `.
fn command(out: &mut Openibd, text: &str, blocking: bool) {
    let command = text.strip_prefix('#').unwrap_or(text).trim();
    if blocking && let Some(modules) = command.strip_prefix("modprobe -rv") {
        out.blocking_modules
            .extend(modules.split_whitespace().map(str::to_owned));
    }
    out.next_steps.push(command.to_owned());
}

/// `opensm(1632) user root is using device umad0`.
fn holder(out: &mut Openibd, text: &str) -> bool {
    let parsed = (|| {
        let (program, rest) = text.split_once('(')?;
        let (pid, rest) = rest.split_once(')')?;
        let (user, device) = rest
            .strip_prefix(" user ")?
            .split_once(" is using device ")?;
        Some(DeviceHolder {
            program: program.to_owned(),
            pid: pid.parse().ok()?,
            user: user.to_owned(),
            device: device.to_owned(),
        })
    })();
    parsed.map(|h| out.applications.push(h)).is_some()
}

/// `rmmod: ERROR: Module mlx_compat is in use by: nvme_core nvme_fabrics` (the script's `sed`
/// takes the colon after `by` as optional, and `rmmod` separates the users with commas or blanks).
fn module_in_use(text: &str) -> Option<ModuleInUse> {
    let rest = text.strip_prefix("rmmod: ERROR: Module ")?;
    let (module, users) = rest.split_once(" is in use")?;
    let users = users.trim_start_matches(" by").trim_start_matches(':');
    Some(ModuleInUse {
        module: module.to_owned(),
        used_by: users
            .split([',', ' '])
            .filter(|u| !u.is_empty())
            .map(str::to_owned)
            .collect(),
    })
}

/// `NAME:` then blanks or the cursor escape `ESC[60G` (`[60G` once a log lost the escape byte),
/// then `[  OK  ]`, `[FAILED]`, `[WARNING]` or `[  done  ]`, colour escapes around the word.
fn step(line: &Line<'_>) -> Option<OpenibdStep> {
    let plain = strip_colours(line.text);
    let body = plain.strip_suffix(']')?;
    let open = body.rfind('[')?;
    let status = body[open + 1..].trim();
    if !matches!(status, "OK" | "FAILED" | "WARNING" | "done") {
        return None;
    }
    let name = strip_column(body[..open].trim_end()).trim_end();
    let name = name.strip_suffix(':').unwrap_or(name).trim();
    (!name.is_empty()).then(|| OpenibdStep {
        name: name.to_owned(),
        status: status.to_owned(),
        line: line.number,
    })
}

/// The line without `ESC[1;31m`-style colour escapes (kept as `[1;31m` by a log without the
/// escape byte).
fn strip_colours(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('[') {
        let tail = &rest[at + 1..];
        let code = tail
            .find('m')
            .filter(|&end| end > 0 && tail[..end].bytes().all(|b| b.is_ascii_digit() || b == b';'));
        match code {
            Some(end) => {
                out.push_str(rest[..at].strip_suffix('\u{1b}').unwrap_or(&rest[..at]));
                rest = &tail[end + 1..];
            }
            None => {
                out.push_str(&rest[..=at]);
                rest = tail;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The name without the cursor escape `ESC[60G` / `[60G` at its end.
fn strip_column(name: &str) -> &str {
    let Some(body) = name.strip_suffix('G') else {
        return name;
    };
    let digits = body.trim_end_matches(|c: char| c.is_ascii_digit());
    match digits.strip_suffix('[') {
        Some(head) if digits.len() < body.len() => head.strip_suffix('\u{1b}').unwrap_or(head),
        _ => name,
    }
}
