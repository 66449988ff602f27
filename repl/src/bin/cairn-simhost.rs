//! `cairn-simhost`: answers as a simulated host, for a real sshd (`ForceCommand`).
//!
//! `cairn-simhost --state DIR --host NAME --model MODEL [--options 'k=v&...'] [-- ARGV...]`;
//! without `-- ARGV`, the command is sshd's `SSH_ORIGINAL_COMMAND`. The work is
//! `cairn_runtime::ssh::SimServe`'s; see docs/simulator.md and docs/ssh.md.

use std::io::{Read, Write};
use std::process::ExitCode;

use cairn_runtime::ssh::{SimRequest, SimServe};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let original = std::env::var("SSH_ORIGINAL_COMMAND").ok();
    match SimServe::parse(&args, original.as_deref()) {
        Ok(SimRequest::Command(serve)) => {
            let mut stdin = String::new();
            let _ = std::io::stdin().read_to_string(&mut stdin);
            let stdin = (!stdin.is_empty()).then_some(stdin);
            let output = serve.serve(&cairn_stdlib::sim_models(), stdin);
            let _ = std::io::stdout().write_all(output.stdout.as_bytes());
            let _ = std::io::stderr().write_all(output.stderr.as_bytes());
            ExitCode::from(u8::try_from(output.code.clamp(0, 255)).unwrap_or(255))
        }
        Ok(SimRequest::Sftp(argv)) => sftp(&argv),
        Err(message) => {
            eprintln!("cairn-simhost: {message}");
            ExitCode::from(2)
        }
    }
}

/// Hands sshd's SFTP subsystem to the real server, so uploads work in a lab.
fn sftp(argv: &[String]) -> ExitCode {
    let Some((program, args)) = argv.split_first() else {
        return ExitCode::from(2);
    };
    match std::process::Command::new(program).args(args).status() {
        Ok(status) if status.success() => ExitCode::SUCCESS,
        Ok(_) => ExitCode::from(1),
        Err(e) => {
            eprintln!("cairn-simhost: cannot start {program}: {e}");
            ExitCode::from(2)
        }
    }
}
