//! Running a command from a builtin: failing on a non-zero exit, or telling "not installed"
//! (exit 127, as a POSIX shell reports a missing program) apart from a failure; and reading its
//! output into its parser's type, output that does not parse failing typed.

use cairn_runtime::{ActionError, ExecOutput, HostIo};

use super::parse_failure::{CommandText, parse_failure};
use crate::ParseError;

/// Runs `argv`, failing on a non-zero exit, and reads its output with `parse`: the one way a
/// builtin turns a command into the parser's type.
pub(crate) fn run_parsed<T, S: AsRef<str>>(
    io: &mut HostIo<'_>,
    argv: &[S],
    parse: impl FnOnce(&str) -> Result<T, ParseError>,
) -> Result<T, ActionError> {
    let words: Vec<&str> = argv.iter().map(AsRef::as_ref).collect();
    let output = io.run(&words)?;
    parsed(words.join(" ").as_str(), &output.stdout, parse)
}

/// `command`'s output `text` read with `parse`; output that does not parse is the typed
/// [`ActionError::OutputParse`] the failure report shows at the parser's span.
pub(crate) fn parsed<T>(
    command: &(impl CommandText + ?Sized),
    text: &str,
    parse: impl FnOnce(&str) -> Result<T, ParseError>,
) -> Result<T, ActionError> {
    // Read whatever its line ends; the failure shows the output as the parser read it.
    let text = crate::grammar::lone_cr_as_lf(text);
    parse(&text).map_err(|e| parse_failure(command, &e, &text))
}

/// Runs `argv`, failing on a non-zero exit.
pub(crate) fn run(io: &mut HostIo<'_>, argv: &[String]) -> Result<ExecOutput, ActionError> {
    let argv: Vec<&str> = argv.iter().map(String::as_str).collect();
    io.run(&argv)
}

/// Runs `argv`; `Ok(None)` when the program is not installed (exit 127).
pub(crate) fn run_if_installed(
    io: &mut HostIo<'_>,
    argv: &[String],
) -> Result<Option<ExecOutput>, ActionError> {
    let output = io.exec(&cairn_runtime::ExecRequest::new(argv.iter().cloned()))?;
    match output.code {
        0 => Ok(Some(output)),
        127 => Ok(None),
        code => Err(ActionError::CommandFailed {
            code,
            command: argv.join(" "),
            stderr: if output.stderr.trim().is_empty() {
                output.stdout
            } else {
                output.stderr
            },
        }),
    }
}

/// What check mode says of a value only MFT could read, on a host where MFT is not installed
/// yet (its install is only predicted): not a blank, and not a guess.
pub(crate) const UNKNOWN_UNTIL_MFT: &str = "unknown until MFT is installed";

/// The error for an MFT tool that is not installed on an ESXi host.
pub(crate) fn not_installed(program: &str, host: &str) -> ActionError {
    ActionError::NotInstalled {
        program: program.to_owned(),
        host: host.to_owned(),
        install:
            "install the MFT and NMST VIBs and reboot (esxcli::vib_install, reboot_if_pending)"
                .into(),
    }
}
