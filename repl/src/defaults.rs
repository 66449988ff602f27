//! The command line with `cairn.toml`'s defaults: each configurable option's default becomes the
//! config file's value (checked by the option's own parser, refused at its span), so clap's
//! precedence holds: the command line, then the environment, then the files, then built-in.

use std::path::{Path, PathBuf};

use cairn_runtime::config::{Config, ConfigFile, Setting};
use clap::{Arg, ArgAction, ArgMatches, Command, CommandFactory, FromArgMatches};

use crate::cli::Cli;

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

/// One configurable option as `cairn config` shows it.
pub(crate) struct OptionInfo {
    pub(crate) key: &'static str,
    pub(crate) built_in: Option<String>,
    /// `CAIRN_STATE_DIR` when the environment set it, for a global option.
    pub(crate) env: Option<(String, String)>,
    /// Whether the command line gave it (a global option, given to `cairn config`).
    pub(crate) on_command_line: bool,
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
    let mut command = Cli::command();
    let options: Vec<OptionInfo> = CONFIGURABLE
        .iter()
        .map(|(key, _)| describe(&command, key))
        .collect();
    for (key, is_path) in CONFIGURABLE {
        if let Some((file, setting)) = config.get(key) {
            let value = value_of(file, setting, *is_path, &cwd);
            check(&command, file, setting, &value)?;
            command = with_default(command, key, &value);
        }
    }
    let matches = command.get_matches();
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
        .mut_subcommands(|sub| sub.mut_args(set))
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
    }
}
