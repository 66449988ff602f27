//! `cairn repl`: rhai lines on one host, with builtins, completion, history and help.

mod help;
mod helper;
mod render;

use std::path::{Path, PathBuf};

use cairn_runtime::inventory::{HostSpec, Inventory};
use cairn_runtime::{HostInfo, Session};
use rhai::{Array, Dynamic, Map};
use rustyline::error::ReadlineError;
use rustyline::{Config, Editor, history::DefaultHistory};

use helper::ReplHelper;

const COMMANDS: [&str; 8] = [
    ":help", ":hosts", ":journal", ":quit", ":use", ":vars", ":where", ":clear",
];

/// Where the REPL's hosts come from.
pub(crate) enum Target {
    /// A host of an inventory.
    Inventory { hosts: Vec<HostSpec>, start: String },
    /// A throwaway simulated host.
    Sim { host: HostSpec },
}

/// Runs the REPL until `:quit` or Ctrl-D.
pub(crate) fn run(state: &Path, target: Target) -> miette::Result<()> {
    let launcher = crate::commands::launcher(state);
    // A `--sim` host is throwaway: its state lives in a temporary folder, its journal stays.
    let scratch = match &target {
        Target::Sim { .. } => {
            Some(tempfile::tempdir().map_err(|e| miette::miette!("temporary folder: {e}"))?)
        }
        Target::Inventory { .. } => None,
    };
    let transports = crate::commands::launcher(scratch.as_ref().map_or(state, |dir| dir.path()));
    let hosts = match &target {
        Target::Inventory { hosts, .. } => hosts.clone(),
        Target::Sim { host } => vec![host.clone()],
    };
    let start = match &target {
        Target::Inventory { start, .. } => start.clone(),
        Target::Sim { host } => host.name.clone(),
    };
    let journals = state.join("repl");
    let open = |name: &str| -> miette::Result<Session> {
        let Some(spec) = hosts.iter().find(|h| h.name == name) else {
            return Err(miette::miette!(
                help = "`:hosts` lists them",
                "no host `{name}` in the inventory"
            ));
        };
        let transport = transports
            .open(spec, false)
            .map_err(|e| miette::miette!("{}: {e}", spec.name))?;
        let info = HostInfo {
            groups: spec.groups.clone(),
            name: spec.name.clone(),
            vars: spec.vars.clone(),
        };
        let journal = journals.join(format!(
            "{}-{}.jsonl",
            launcher.store.new_run_id(),
            spec.name
        ));
        Ok(Session::open(
            info,
            transport,
            &journal,
            &launcher.libraries,
            Path::new("runbooks"),
        )?)
    };
    let mut session = open(&start)?;
    let mut journal_path = latest(&journals, &start);

    let config = Config::builder()
        .auto_add_history(true)
        .max_history_size(5000)
        .map_err(|e| miette::miette!("{e}"))?
        .build();
    let mut editor: Editor<ReplHelper, DefaultHistory> =
        Editor::with_config(config).map_err(|e| miette::miette!("{e}"))?;
    editor.set_helper(Some(ReplHelper::new()));
    let history = history_file();
    let _ = editor.load_history(&history);
    let interrupter = session.interrupter();
    install_interrupt(interrupter);
    println!(
        "cairn repl on `{}` — :help for commands, Tab completes, Ctrl-D quits",
        session.host().name
    );

    loop {
        refresh_words(&mut editor, &session, &hosts);
        let prompt = helper::prompt(&session.host().name, false);
        let line = match editor.readline(&prompt) {
            Ok(line) => line,
            Err(ReadlineError::Interrupted) => continue,
            Err(ReadlineError::Eof) => break,
            Err(error) => return Err(miette::miette!("cannot read input: {error}")),
        };
        let input = line.trim();
        if input.is_empty() {
            continue;
        }
        if let Some(command) = input.strip_prefix(':') {
            let (name, argument) = command
                .split_once(' ')
                .map_or((command, ""), |(n, a)| (n, a.trim()));
            match name {
                "quit" | "q" => break,
                "help" | "h" => println!("{}", help::help(session.engine(), argument)),
                "hosts" => {
                    for host in &hosts {
                        let mark = if host.name == session.host().name {
                            "*"
                        } else {
                            " "
                        };
                        println!(
                            "{mark} {:<16} {:<32} {}",
                            host.name,
                            host.address.to_string(),
                            host.groups.join(",")
                        );
                    }
                }
                "use" => match open(argument) {
                    Ok(next) => {
                        session = next;
                        install_interrupt(session.interrupter());
                        journal_path = latest(&journals, argument);
                        println!("now on `{argument}` (a fresh scope)");
                    }
                    Err(error) => eprintln!("{error:?}"),
                },
                "vars" => {
                    for (name, value) in session.variables() {
                        println!("{name} = {}", one_line(value));
                    }
                }
                "where" => println!(
                    "host `{}`, journal {}",
                    session.host().name,
                    journal_path.display()
                ),
                "journal" => crate::commands::print_journal(&journal_path),
                "clear" => print!("\x1b[2J\x1b[H"),
                other => eprintln!("unknown command `:{other}`; :help lists them"),
            }
            continue;
        }
        match session.eval(input) {
            Ok(value) => {
                let shown = render::render(&value);
                if !shown.is_empty() {
                    println!("{shown}");
                }
            }
            Err(error) => eprintln!("{:?}", miette::Report::new(error)),
        }
    }
    let _ = std::fs::create_dir_all(history.parent().unwrap_or(Path::new(".")));
    let _ = editor.save_history(&history);
    Ok(())
}

/// Ctrl-C while an action runs stops that action; at the prompt it clears the line.
fn install_interrupt(cancel: cairn_runtime::Cancel) {
    use std::sync::{Mutex, OnceLock};
    static CURRENT: OnceLock<Mutex<Option<cairn_runtime::Cancel>>> = OnceLock::new();
    let slot = CURRENT.get_or_init(|| {
        std::thread::spawn(|| {
            let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            else {
                return;
            };
            runtime.block_on(async {
                while tokio::signal::ctrl_c().await.is_ok() {
                    if let Some(Ok(guard)) = CURRENT.get().map(|slot| slot.lock())
                        && let Some(cancel) = guard.as_ref()
                    {
                        cancel.cancel();
                    }
                }
            });
        });
        Mutex::new(None)
    });
    if let Ok(mut guard) = slot.lock() {
        *guard = Some(cancel);
    }
}

fn refresh_words(
    editor: &mut Editor<ReplHelper, DefaultHistory>,
    session: &Session,
    hosts: &[HostSpec],
) {
    let Some(helper) = editor.helper_mut() else {
        return;
    };
    if helper.words.builtins.is_empty() {
        helper.words.builtins = help::builtin_names(session.engine());
    }
    helper.words.commands = COMMANDS.to_vec();
    helper.words.hosts = hosts.iter().map(|h| h.name.clone()).collect();
    helper.words.variables = session
        .variables()
        .map(|(name, value)| (name.to_owned(), keys_of(value)))
        .collect();
}

/// The keys of a map, or of the first map in a list: what `x.` can complete to.
fn keys_of(value: &Dynamic) -> Vec<String> {
    if let Some(map) = value.read_lock::<Map>() {
        return map.keys().map(ToString::to_string).collect();
    }
    if let Some(array) = value.read_lock::<Array>()
        && let Some(map) = array.first().and_then(|first| first.read_lock::<Map>())
    {
        return map.keys().map(ToString::to_string).collect();
    }
    Vec::new()
}

fn one_line(value: &Dynamic) -> String {
    let text = value.to_string().replace('\n', "⏎");
    if text.chars().count() > 100 {
        text.chars().take(99).collect::<String>() + "…"
    } else {
        text
    }
}

fn latest(dir: &Path, host: &str) -> PathBuf {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.ends_with(&format!("-{host}.jsonl")))
        })
        .collect();
    files.sort();
    files
        .pop()
        .unwrap_or_else(|| dir.join(format!("{host}.jsonl")))
}

fn history_file() -> PathBuf {
    let base = std::env::var_os("XDG_STATE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".local/state")))
        .unwrap_or_else(|| PathBuf::from("."));
    base.join("cairn").join("history")
}

/// The hosts of an inventory, for `cairn repl -i`.
pub(crate) fn inventory_hosts(path: &Path) -> miette::Result<Vec<HostSpec>> {
    Ok(Inventory::load(path)?.hosts().to_vec())
}
