//! One argument vector as one command line for the remote shell, each argument quoted so it
//! arrives as one literal word; `sudo -n --` in front for a host whose user is not root.

use super::SshError;

/// The words `become = true` puts in front: non-interactive sudo, end of sudo's options.
pub const SUDO: [&str; 3] = ["sudo", "-n", "--"];

/// `argv` quoted for a POSIX shell (`sh`, ESXi's busybox `ash`), with `sudo -n --` first when
/// `become_root`. An empty argv or one with a NUL byte (which no shell can pass) is refused.
pub fn command_line(argv: &[String], become_root: bool) -> Result<String, SshError> {
    if argv.is_empty() {
        return Err(SshError::Invalid("cannot run an empty command".into()));
    }
    let sudo = if become_root { &SUDO[..] } else { &[] };
    let words = sudo.iter().copied().chain(argv.iter().map(String::as_str));
    shlex::try_join(words).map_err(|e| {
        SshError::Invalid(format!(
            "cannot quote `{}` for the remote shell: {e}",
            argv.join(" ")
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| (*w).to_owned()).collect()
    }

    #[test]
    fn hostile_values_round_trip_as_single_words() {
        let hostile = argv(&[
            "printf",
            "%s",
            "a; echo pwned $(id) `id` 'q' \"d\"\nline2 \\ * ~ #",
            "",
            "-rf",
        ]);
        let Ok(line) = command_line(&hostile, false) else {
            panic!("quotes");
        };
        assert_eq!(shlex::split(&line), Some(hostile));
    }

    #[test]
    fn sudo_and_refusals() {
        assert_eq!(
            command_line(&argv(&["id", "-u"]), true).ok().as_deref(),
            Some("sudo -n -- id -u")
        );
        assert!(command_line(&[], false).is_err());
        assert!(command_line(&argv(&["echo", "a\0b"]), false).is_err());
    }
}
