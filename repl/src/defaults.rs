//! The command line with `cairn.toml`'s defaults: each configurable option's default becomes the
//! config file's value (checked by the option's own parser, refused at its span), so clap's
//! precedence holds: the command line, then the environment, then the files, then built-in.

use std::path::{Path, PathBuf};

use crate::config::{Config, ConfigFile, Setting, project_file};
use clap::{Arg, ArgAction, ArgMatches, Command, CommandFactory, FromArgMatches};

use crate::cli::Cli;
use crate::commands::OptionInfo;

/// The options a config file may set, by their long name; `true` for a path, which is read
/// relative to the file's folder. A new option's default is one line here.
pub(crate) const CONFIGURABLE: &[(&str, bool)] = &[
    ("state-dir", true),
    ("inventory", true),
    ("forks", false),
    ("max-fail-percent", false),
    ("max-unavailable", false),
    ("reboot-timeout", false),
    ("color", false),
    ("lib", true),
    ("vault", true),
    ("vault-identity", true),
    ("vault-passphrase-file", true),
    ("vault-passphrase-command", false),
    ("store", false),
    ("lease-ttl", false),
];

/// The options that only mean something with a vault: a file's value for one is taken only when
/// a vault is named too (on the command line or in a file), so a user's identity in their own
/// config does not make every run without a vault a usage error.
const WITH_VAULT: &[&str] = &[
    "vault-identity",
    "vault-passphrase-file",
    "vault-passphrase-command",
];

/// The parsed command line, the files it took defaults from, and the options' built-in
/// defaults and sources for `cairn config`.
pub(crate) struct Parsed {
    pub(crate) cli: Cli,
    pub(crate) config: Config,
    /// Per configurable option: its built-in default, and where its value came from when not
    /// from a file (the command line or an environment variable).
    pub(crate) options: Vec<OptionInfo>,
}

/// The state folder's option, whose built-in default is read beside the project's file.
const STATE_DIR: &str = "state-dir";

/// The built-in state folder beside the project's `cairn.toml` when one was found below which
/// the command runs and no file sets `state-dir` (as Cargo puts `target/` beside
/// `Cargo.toml`): a run from a sub-folder and `cairn runs` from the top see the same runs and
/// the same simulated hosts. `None` in the file's own folder, where the default already is.
fn state_beside_project(config: &Config, options: &[OptionInfo], cwd: &Path) -> Option<String> {
    if config.get(STATE_DIR).is_some() {
        return None;
    }
    let project = project_file(cwd)?;
    let dir = project.parent()?;
    let built_in = options
        .iter()
        .find(|o| o.key == STATE_DIR)?
        .built_in
        .as_ref()?;
    (dir != cwd).then(|| dir.join(built_in).display().to_string())
}

/// Whether `--key` was typed on the command line, as a global option of this command.
fn on_command_line(matches: &ArgMatches, key: &str) -> bool {
    let id = key.replace('-', "_");
    matches.try_get_raw(&id).is_ok_and(|raw| raw.is_some())
        && matches.value_source(&id) == Some(clap::parser::ValueSource::CommandLine)
}

/// Parses the command line over the config files' defaults; exits as clap does on a usage
/// error, and returns the config file's diagnostic when a file is wrong.
pub(crate) fn parse() -> miette::Result<Parsed> {
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let keys: Vec<&str> = CONFIGURABLE.iter().map(|(key, _)| *key).collect();
    let config = Config::load(&cwd, &keys)?;
    let command = Cli::command();
    let options: Vec<OptionInfo> = CONFIGURABLE
        .iter()
        .map(|(key, _)| describe(&command, key))
        .collect();
    let mut from_files = Vec::new();
    for (key, is_path) in CONFIGURABLE {
        if let Some((file, setting)) = config.get(key) {
            let value = value_of(file, setting, *is_path, &cwd);
            check(&command, file, setting, &value)?;
            from_files.push((*key, value));
        }
    }
    let mut options = options;
    if let Some(beside) = state_beside_project(&config, &options, &cwd) {
        from_files.push((STATE_DIR, beside.clone()));
        if let Some(option) = options.iter_mut().find(|o| o.key == STATE_DIR) {
            option.built_in = Some(beside);
            option.beside_project = true;
        }
    }
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let with_defaults = |skip: &[&str]| {
        from_files
            .iter()
            .filter(|(key, _)| !skip.contains(key))
            .fold(command.clone(), |command, (key, value)| {
                with_default(command, key, value)
            })
    };
    let parse = |command: Command| {
        command
            .try_get_matches_from(&args)
            .unwrap_or_else(|e| e.exit())
    };
    let first = parse(with_defaults(&[]));
    let skip = overridden(&command, &first, &from_files);
    let matches = if skip.is_empty() {
        first
    } else {
        parse(with_defaults(&skip))
    };
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    let options = options
        .into_iter()
        .map(|option: OptionInfo| OptionInfo {
            on_command_line: on_command_line(&matches, option.key),
            ..option
        })
        .collect();
    Ok(Parsed {
        cli,
        config,
        options,
    })
}

/// The files' values that give way: one whose option conflicts with an option typed on the
/// command line (the file's `vault-identity` against a typed `--vault-passphrase-file`), and a
/// vault key when no vault is named.
fn overridden(
    command: &Command,
    matches: &ArgMatches,
    from_files: &[(&'static str, String)],
) -> Vec<&'static str> {
    // `cairn vault edit FILE` names its vault by position: only a command with `--vault` can
    // lack one.
    let mut ran = matches;
    while let Some((_, sub)) = ran.subcommand() {
        ran = sub;
    }
    let lacks_vault = matches!(ran.try_get_raw("vault"), Ok(None));
    from_files
        .iter()
        .map(|(key, _)| *key)
        .filter(|key| {
            (WITH_VAULT.contains(key) && lacks_vault)
                || conflicting(command, key).iter().any(|other| {
                    source_of(matches, other) == Some(clap::parser::ValueSource::CommandLine)
                })
        })
        .collect()
}

/// Where the value of the option with this id came from, on the command or the subcommand
/// that was run.
fn source_of(matches: &ArgMatches, id: &str) -> Option<clap::parser::ValueSource> {
    match matches.try_get_raw(id) {
        Ok(Some(_)) => matches.value_source(id),
        _ => matches.subcommand().and_then(|(_, sub)| source_of(sub, id)),
    }
}

/// The ids of the options `--key` conflicts with, whichever side declared the conflict.
fn conflicting(command: &Command, key: &str) -> Vec<String> {
    let Some(owner) = owner(command, key) else {
        return Vec::new();
    };
    let Some(arg) = owner.get_arguments().find(|a| a.get_long() == Some(key)) else {
        return Vec::new();
    };
    let mut ids: Vec<String> = owner
        .get_arg_conflicts_with(arg)
        .iter()
        .map(|other| other.get_id().to_string())
        .collect();
    for other in owner.get_arguments() {
        if owner
            .get_arg_conflicts_with(other)
            .iter()
            .any(|c| c.get_id() == arg.get_id())
        {
            ids.push(other.get_id().to_string());
        }
    }
    ids
}

/// The command or subcommand that declares `--key`.
fn owner<'a>(command: &'a Command, key: &str) -> Option<&'a Command> {
    if command
        .get_arguments()
        .any(|arg| arg.get_long() == Some(key))
    {
        return Some(command);
    }
    command.get_subcommands().find_map(|sub| owner(sub, key))
}

/// A path is relative to the file's folder (as Cargo reads `Cargo.toml`'s), written as given
/// when that folder is the working directory.
fn value_of(file: &ConfigFile, setting: &Setting, is_path: bool, cwd: &Path) -> String {
    let dir = file.path.parent().unwrap_or(Path::new(""));
    if !is_path || dir == cwd || Path::new(&setting.value).is_absolute() {
        return setting.value.clone();
    }
    dir.join(&setting.value).display().to_string()
}

/// Refuses a value the option's own parser refuses (`forks = 0`), at the value in the file.
fn check(
    command: &Command,
    file: &ConfigFile,
    setting: &Setting,
    value: &str,
) -> miette::Result<()> {
    let Some(arg) = find(command, &setting.key) else {
        return Ok(());
    };
    let probe = Command::new("cairn").no_binary_name(true).arg(
        Arg::new("value")
            .long(setting.key.clone())
            .value_parser(arg.get_value_parser().clone())
            .action(ArgAction::Set),
    );
    let flag = format!("--{}", setting.key);
    match probe.try_get_matches_from([flag.as_str(), value]) {
        Ok(_) => Ok(()),
        Err(error) => {
            // clap's message, less its usage lines: `invalid value '0' for '--forks'` and any
            // `[possible values: ...]`.
            let text = error.to_string().replace(" <value>", "");
            let reason = text
                .lines()
                .map(|line| line.trim().trim_start_matches("error: "))
                .filter(|line| !line.is_empty() && !line.starts_with("For more information"))
                .collect::<Vec<_>>()
                .join(" ");
            Err(file.refused(setting, reason).into())
        }
    }
}

/// The first argument named `--key`, on the command or one of its subcommands.
fn find<'a>(command: &'a Command, key: &str) -> Option<&'a Arg> {
    command
        .get_arguments()
        .find(|arg| arg.get_long() == Some(key))
        .or_else(|| command.get_subcommands().find_map(|sub| find(sub, key)))
}

/// Makes `value` the default of `--key` wherever it is declared; a required option (`-i`)
/// is no longer required, since the file gives it.
fn with_default(command: Command, key: &str, value: &str) -> Command {
    let set = |arg: Arg| {
        if arg.get_long() == Some(key) {
            arg.required(false).default_value(value.to_owned())
        } else {
            arg
        }
    };
    command
        .mut_args(set)
        .mut_subcommands(|sub| with_default(sub, key, value))
}

/// An option's built-in default and its environment variable's value, before any file.
fn describe(command: &Command, key: &'static str) -> OptionInfo {
    let arg = find(command, key);
    let built_in = arg.and_then(|arg| {
        arg.get_default_values()
            .first()
            .map(|v| v.to_string_lossy().into_owned())
    });
    let env = arg.and_then(Arg::get_env).and_then(|name| {
        let value = std::env::var_os(name)?;
        Some((
            name.to_string_lossy().into_owned(),
            value.to_string_lossy().into_owned(),
        ))
    });
    OptionInfo {
        key,
        built_in,
        env,
        on_command_line: false,
        beside_project: false,
    }
}
