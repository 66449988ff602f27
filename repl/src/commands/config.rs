//! `cairn config`: each configurable option's effective value and where it came from.

use std::path::Path;
use std::process::ExitCode;

use crate::config::{Config, project_file, user_file};

/// One configurable option as `cairn config` shows it.
pub(crate) struct OptionInfo {
    pub(crate) key: &'static str,
    pub(crate) built_in: Option<String>,
    /// `CAIRN_STATE_DIR` when the environment set it, for a global option.
    pub(crate) env: Option<(String, String)>,
    /// Whether the command line gave it (a global option, given to `cairn config`).
    pub(crate) on_command_line: bool,
    /// Whether its built-in default was read beside the project's file (the state folder).
    pub(crate) beside_project: bool,
}

/// One line per file considered, then one per option: `forks  8  (cairn.toml:3)`.
pub(crate) fn config(context: &super::Context) -> miette::Result<ExitCode> {
    let (config, options) = (&context.config, &context.options);
    let cwd = std::env::current_dir().unwrap_or_default();
    let files = [
        ("user file", user_file()),
        ("project file", project_file(&cwd)),
    ];
    for (what, path) in files {
        match path {
            Some(path) if path.is_file() => say!("{what}: {}", shown(&path, &cwd)),
            Some(path) => say!("{what}: {} (none)", shown(&path, &cwd)),
            None => say!("{what}: (none)"),
        }
    }
    let width = options.iter().map(|o| o.key.len()).max().unwrap_or(0);
    for option in options {
        let (value, from) = effective(config, option, &cwd);
        // A store URL may carry a password: shown as `***`, as every store message shows it.
        let value = match option.key {
            "store" if value != "-" => cairn_store_pg::StoreUrl::parse(&value)
                .map_or_else(|_| "(not a store URL)".to_owned(), |url| url.redacted()),
            _ => value,
        };
        say!("{:<width$} {:<36} ({from})", option.key, value);
    }
    Ok(ExitCode::SUCCESS)
}

/// A path relative to the working directory when it is below it (`cairn.toml`).
fn shown(path: &Path, cwd: &Path) -> String {
    path.strip_prefix(cwd).unwrap_or(path).display().to_string()
}

/// The value that applies and its source: the command line, the environment, a file's line,
/// the built-in default, or nothing.
fn effective(config: &Config, option: &OptionInfo, cwd: &Path) -> (String, String) {
    if option.on_command_line {
        return ("(given)".into(), "command line".into());
    }
    if let Some((name, value)) = &option.env {
        return (value.clone(), format!("environment {name}"));
    }
    if let Some((file, setting)) = config.get(option.key) {
        let from = format!("{}:{}", shown(&file.path, cwd), setting.line);
        return (setting.value.clone(), from);
    }
    match &option.built_in {
        Some(value) if option.beside_project => {
            (value.clone(), "built-in default, beside cairn.toml".into())
        }
        Some(value) => (value.clone(), "built-in default".into()),
        None => ("-".into(), "not set".into()),
    }
}
