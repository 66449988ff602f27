//! `cairn-simhost`: a simulated host's commands served behind a real sshd.
//!
//! sshd runs `cairn-simhost --state DIR --host NAME --model MODEL [--options k=v&...]` as the
//! `ForceCommand` of a lab server; the client's command line is in `SSH_ORIGINAL_COMMAND`,
//! shell-unquoted here into the argv the simulated host runs (`-- ARGV...` gives it directly).
//! While the host is down (rebooting) the command ends with exit 255 and a line starting with
//! [`SIMHOST_UNREACHABLE`] on standard error, which the ssh transport reports as
//! `TransportError::Unreachable`, as it would a refused connection; a `drop_once` fault ends
//! with [`SIMHOST_INTERRUPTED`] (`TransportError::Interrupted`).

use std::collections::BTreeMap;
use std::path::PathBuf;

use super::command_line::SUDO;
use crate::sim::{SimHost, SimRegistry};
use crate::{ExecOutput, ExecRequest, TransportError};

/// The exit code of a command the simulated host did not answer.
pub const SIMHOST_UNREACHABLE_CODE: i64 = 255;
/// How the standard error of a command refused by a down host starts.
pub const SIMHOST_UNREACHABLE: &str = "cairn-simhost: unreachable: ";
/// How the standard error of a command whose connection "dropped" starts.
pub const SIMHOST_INTERRUPTED: &str = "cairn-simhost: interrupted: ";

/// What `cairn-simhost` was asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimServe {
    /// The command, from `-- ARGV...` or `SSH_ORIGINAL_COMMAND`.
    pub argv: Vec<String>,
    /// The host's name.
    pub host: String,
    /// The model.
    pub model: String,
    /// The `sim:` address options.
    pub options: BTreeMap<String, String>,
    /// The host's state directory.
    pub state: PathBuf,
    /// The call through the host's fence the command line made, if it was one.
    pub fence: Option<FenceCall>,
}

/// A command line that runs through `fence.sh` (`sh -c SCRIPT cairn-fence MODE ...`),
/// which the simulated host answers with its own fence (`sim/sim_fence.rs`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FenceCall {
    /// `run DIR EPOCH OWNER STEP COMMAND`: the command (the argv) as this step.
    Run(crate::fence::FenceStep),
    /// `query DIR STEP`.
    Query(String),
    /// `check DIR [ID]`: a simulated host keeps its fence in its state folder, which is fine;
    /// that folder's id is the simulated host's name (the one `--host` gave).
    Check,
    /// `prune DIR EPOCH OWNER RUN`.
    Prune {
        /// The caller's epoch.
        epoch: u64,
        /// The caller.
        owner: String,
        /// The run whose step records go.
        run: String,
    },
}

/// What to do with the request: answer as the host, or hand over to the real SFTP server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SimRequest {
    /// A command for the simulated host.
    Command(SimServe),
    /// sshd's SFTP subsystem (its command line under `ForceCommand`): uploads go to this
    /// machine's file system, not the simulated one.
    Sftp(Vec<String>),
}

/// The usage line.
pub const SIMHOST_USAGE: &str = "usage: cairn-simhost --state DIR --host NAME --model MODEL [--options 'k=v&k=v'] [-- ARGV...] (or the command in SSH_ORIGINAL_COMMAND)";

impl SimServe {
    /// Reads the arguments (without the program name) and `SSH_ORIGINAL_COMMAND`.
    pub fn parse(args: &[String], original_command: Option<&str>) -> Result<SimRequest, String> {
        let mut state = None;
        let mut host = None;
        let mut model = None;
        let mut options = BTreeMap::new();
        let mut argv = Vec::new();
        let mut rest = args.iter();
        while let Some(arg) = rest.next() {
            let mut value = |name: &str| {
                rest.next()
                    .cloned()
                    .ok_or_else(|| format!("`{name}` needs a value; {SIMHOST_USAGE}"))
            };
            match arg.as_str() {
                "--state" => state = Some(PathBuf::from(value("--state")?)),
                "--host" => host = Some(value("--host")?),
                "--model" => model = Some(value("--model")?),
                "--options" => options = parse_options(&value("--options")?)?,
                "--" => {
                    argv = rest.by_ref().cloned().collect();
                    break;
                }
                other => return Err(format!("unknown argument `{other}`; {SIMHOST_USAGE}")),
            }
        }
        if argv.is_empty() {
            let Some(line) = original_command else {
                return Err(format!("no command to run; {SIMHOST_USAGE}"));
            };
            argv = shlex::split(line)
                .ok_or_else(|| format!("cannot split the command line `{line}`"))?;
            if argv.first().is_some_and(|program| {
                program.ends_with("/sftp-server") && program.starts_with('/')
            }) {
                return Ok(SimRequest::Sftp(argv));
            }
        }
        // The simulated user is root already: `sudo -n --` (become) is a no-op.
        if argv.get(..SUDO.len()).is_some_and(|head| head == SUDO) {
            argv.drain(..SUDO.len());
        }
        let fence = fence_call(&mut argv)?;
        if argv.is_empty() {
            return Err("an empty command".into());
        }
        let (Some(state), Some(host), Some(model)) = (state, host, model) else {
            return Err(format!(
                "`--state`, `--host` and `--model` are required; {SIMHOST_USAGE}"
            ));
        };
        Ok(SimRequest::Command(Self {
            argv,
            fence,
            host,
            model,
            options,
            state,
        }))
    }

    /// Runs the command on the simulated host: its output, or a marked failure.
    pub fn serve(&self, registry: &SimRegistry, stdin: Option<String>) -> ExecOutput {
        let failed = |stderr: String| ExecOutput {
            code: SIMHOST_UNREACHABLE_CODE,
            stderr,
            stdout: String::new(),
        };
        let model = match registry.model(&self.model) {
            Ok(model) => model,
            Err(e) => return failed(format!("cairn-simhost: {e}\n")),
        };
        let host = match SimHost::open(&self.host, &self.state, model, self.options.clone()) {
            Ok(host) => host,
            Err(e) => return failed(format!("cairn-simhost: {e}\n")),
        };
        let step = match &self.fence {
            None => None,
            Some(FenceCall::Run(step)) => Some(step.clone()),
            Some(FenceCall::Check) => {
                let id: String = (self.host.chars())
                    .map(|c| match c {
                        'A'..='Z' | 'a'..='z' | '0'..='9' | '.' | '_' | ':' | '@' | '-' => c,
                        _ => '-',
                    })
                    .collect();
                return answer(0, format!("ok sim sim-{id}\n"), String::new());
            }
            Some(FenceCall::Prune { epoch, owner, run }) => {
                return match host.fence_prune(*epoch, owner, run) {
                    Ok(Ok(pruned)) => answer(0, format!("pruned {pruned}\n"), String::new()),
                    Ok(Err(said)) => answer(
                        i64::from(crate::fence::FENCED_EXIT),
                        String::new(),
                        format!("cairn-fence: {said}\n"),
                    ),
                    Err(e) => failed(format!("cairn-simhost: {e}\n")),
                };
            }
            Some(FenceCall::Query(step)) => {
                return match host.fence_record(step) {
                    Ok(Some(record)) => answer(0, query_answer(&record), String::new()),
                    Ok(None) => answer(
                        i64::from(crate::fence::USAGE_EXIT),
                        String::new(),
                        "cairn-fence: this simulated host keeps no fence (fence=false)\n".into(),
                    ),
                    Err(e) => failed(format!("cairn-simhost: {e}\n")),
                };
            }
        };
        let request = ExecRequest {
            interrupt: None,
            argv: self.argv.clone(),
            stdin,
            timeout: None,
            fence: step,
        };
        match host.exec(&request) {
            Ok(output) => output,
            Err(TransportError::Unreachable { reason, .. }) => {
                failed(format!("{SIMHOST_UNREACHABLE}{reason}\n"))
            }
            Err(TransportError::Interrupted { command, .. }) => {
                failed(format!("{SIMHOST_INTERRUPTED}{command}\n"))
            }
            Err(other) => failed(format!("cairn-simhost: {other}\n")),
        }
    }
}

fn answer(code: i64, stdout: String, stderr: String) -> ExecOutput {
    ExecOutput {
        code,
        stderr,
        stdout,
    }
}

/// `record` as `fence.sh query` prints it.
fn query_answer(record: &crate::fence::StepRecord) -> String {
    use crate::fence::StepRecord;
    match record {
        StepRecord::None => "none\n".into(),
        StepRecord::Started { epoch, owner } => format!("started {epoch} {owner}\n"),
        StepRecord::Done {
            code,
            epoch,
            owner,
            output,
        } => format!("done {code} {epoch} {owner}\n{output}"),
    }
}

/// Takes the fence's wrapping off `argv` (`sh -c SCRIPT cairn-fence MODE ARGS...`): the
/// fenced command's own argv stays, and the call is returned.
fn fence_call(argv: &mut Vec<String>) -> Result<Option<FenceCall>, String> {
    let wrapped = argv.len() >= 5
        && argv[0] == "sh"
        && argv[1] == "-c"
        && argv[2] == crate::fence::fence_script()
        && argv[3] == "cairn-fence";
    if !wrapped {
        return Ok(None);
    }
    let args: Vec<String> = argv.drain(..).skip(4).collect();
    let words: Vec<&str> = args.iter().map(String::as_str).collect();
    match words.as_slice() {
        ["run", _dir, epoch, owner, step, command] => {
            let epoch = epoch
                .parse()
                .map_err(|_| format!("cairn-fence: the epoch `{epoch}` is not a number"))?;
            *argv = shlex::split(command)
                .ok_or_else(|| format!("cannot split the fenced command `{command}`"))?;
            Ok(Some(FenceCall::Run(crate::fence::FenceStep {
                epoch,
                owner: (*owner).to_owned(),
                step: (*step).to_owned(),
            })))
        }
        ["query", _dir, step] => {
            *argv = vec!["cairn-fence".into(), "query".into()];
            Ok(Some(FenceCall::Query((*step).to_owned())))
        }
        ["check", _dir] | ["check", _dir, _] => {
            *argv = vec!["cairn-fence".into(), "check".into()];
            Ok(Some(FenceCall::Check))
        }
        ["prune", _dir, epoch, owner, run] => {
            let epoch = epoch
                .parse()
                .map_err(|_| format!("cairn-fence: the epoch `{epoch}` is not a number"))?;
            *argv = vec!["cairn-fence".into(), "prune".into()];
            Ok(Some(FenceCall::Prune {
                epoch,
                owner: (*owner).to_owned(),
                run: (*run).to_owned(),
            }))
        }
        _ => Err(format!("cairn-fence: usage error: {}", args.join(" "))),
    }
}

fn parse_options(text: &str) -> Result<BTreeMap<String, String>, String> {
    let mut options = BTreeMap::new();
    for pair in text.split('&').filter(|pair| !pair.is_empty()) {
        let (key, value) = pair.split_once('=').unwrap_or((pair, "true"));
        if key.is_empty() {
            return Err(format!("option `{pair}` has no name"));
        }
        options.insert(key.to_owned(), value.to_owned());
    }
    Ok(options)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| (*w).to_owned()).collect()
    }

    /// `line` served to the `linux` host `n1` whose state is in `dir`, with `options` after
    /// the others.
    fn serve_n1(
        dir: &std::path::Path,
        registry: &SimRegistry,
        options: &[&str],
        line: &str,
    ) -> ExecOutput {
        let state = dir.display().to_string();
        let mut args = vec!["--state", &state, "--host", "n1", "--model", "linux"];
        args.extend_from_slice(options);
        match SimServe::parse(&strings(&args), Some(line)) {
            Ok(SimRequest::Command(serve)) => serve.serve(registry, None),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn the_original_command_is_unquoted_into_literal_arguments() {
        let args = strings(&[
            "--state",
            "/s",
            "--host",
            "n1",
            "--model",
            "linux",
            "--options",
            "reboot_secs=1&clock",
        ]);
        let line = "echo 'a; $(id)' \"b\nc\"";
        let Ok(SimRequest::Command(serve)) = SimServe::parse(&args, Some(line)) else {
            panic!("parses");
        };
        assert_eq!(serve.argv, strings(&["echo", "a; $(id)", "b\nc"]));
        assert_eq!(serve.options.get("clock").map(String::as_str), Some("true"));
        let Ok(SimRequest::Command(sudo)) = SimServe::parse(&args, Some("sudo -n -- hostname"))
        else {
            panic!("parses");
        };
        assert_eq!(sudo.argv, strings(&["hostname"]));
        assert!(matches!(
            SimServe::parse(&args, Some("/usr/lib/openssh/sftp-server")),
            Ok(SimRequest::Sftp(_))
        ));
        assert!(SimServe::parse(&args, Some("echo 'unclosed")).is_err());
        assert!(SimServe::parse(&args, None).is_err());
        assert!(SimServe::parse(&strings(&["--bogus"]), Some("true")).is_err());
    }

    #[test]
    fn a_down_host_answers_with_the_unreachable_mark() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let registry = SimRegistry::with_builtin_models();
        let serve = |line: &str| {
            serve_n1(
                dir.path(),
                &registry,
                &["--options", "reboot_secs=60"],
                line,
            )
        };
        assert_eq!(serve("hostname").stdout, "n1\n");
        assert_eq!(serve("reboot").code, 0);
        let down = serve("hostname");
        assert_eq!(down.code, SIMHOST_UNREACHABLE_CODE);
        assert!(
            down.stderr.starts_with(SIMHOST_UNREACHABLE),
            "{}",
            down.stderr
        );
    }

    #[test]
    fn a_fenced_command_line_is_run_through_the_simulated_hosts_own_fence() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let registry = SimRegistry::with_builtin_models();
        let fence = crate::fence::Fence::new(crate::fence::FencePlace::linux(), 7, "r1@c:1")
            .unwrap_or_else(|e| panic!("{e}"));
        let serve = |line: &str| serve_n1(dir.path(), &registry, &[], line);
        let wrapped = fence
            .wrap("r1.1.5.1", "echo 'a b'")
            .unwrap_or_else(|e| panic!("{e}"));
        let ran = serve(&format!("sudo -n -- {wrapped}"));
        assert_eq!((ran.code, ran.stdout.as_str()), (0, "a b\n"));
        let asked = serve(&fence.query("r1.1.5.1").unwrap_or_else(|e| panic!("{e}")));
        assert_eq!(asked.stdout, "done 0 7 r1@c:1\na b\n");
        // Run again, the step is replayed, not run: the host ran `echo` once.
        assert_eq!(serve(&wrapped).stdout, "a b\n");
        let log = std::fs::read_to_string(dir.path().join("commands.log")).unwrap_or_default();
        assert_eq!(log.matches("echo").count(), 1, "{log}");
        let checked = serve(&fence.check("f1").unwrap_or_else(|e| panic!("{e}")));
        assert_eq!(checked.stdout, "ok sim sim-n1\n", "{checked:?}");
        let lower = crate::fence::Fence::new(crate::fence::FencePlace::linux(), 3, "old@c:2")
            .unwrap_or_else(|e| panic!("{e}"));
        let refused = serve(
            &lower
                .wrap("r0.1.1.1", "echo no")
                .unwrap_or_else(|e| panic!("{e}")),
        );
        assert_eq!(
            refused.code,
            i64::from(crate::fence::FENCED_EXIT),
            "{refused:?}"
        );
        // A prune by a caller below the epoch keeps the records; the owner's removes them.
        let kept = serve(&lower.prune("r1").unwrap_or_else(|e| panic!("{e}")));
        assert_eq!(kept.code, i64::from(crate::fence::FENCED_EXIT), "{kept:?}");
        let pruned = serve(&fence.prune("r1").unwrap_or_else(|e| panic!("{e}")));
        assert_eq!((pruned.code, pruned.stdout.as_str()), (0, "pruned 1\n"));
        let gone = serve(&fence.query("r1.1.5.1").unwrap_or_else(|e| panic!("{e}")));
        assert_eq!(gone.stdout, "none\n");
    }
}
