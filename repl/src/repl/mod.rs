//! `cairn repl`: rhai lines on one host, with builtins, completion, history and help. The same
//! prompt is the debugger's: `:load` a runbook and step through it (`cairn debug` starts that
//! way), or answer a failed action of a run (`cairn run --debug-on-failure`).

mod debug;
mod failure;
mod help;
mod helper;
mod render;
mod sessions;
mod type_ahead;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use cairn_runtime::inventory::{HostSpec, Inventory};
use cairn_runtime::{DebugRun, Pause, Session};
use rhai::{Dynamic, Map};
use rustyline::error::ReadlineError;
use rustyline::{Config, Editor, history::DefaultHistory};

pub(crate) use failure::FailurePrompt;
use helper::ReplHelper;
use sessions::Sessions;

const COMMANDS: [&str; 17] = [
    ":abort",
    ":break",
    ":clear",
    ":continue",
    ":help",
    ":hosts",
    ":journal",
    ":load",
    ":next",
    ":quit",
    ":retry",
    ":skip",
    ":step",
    ":unbreak",
    ":use",
    ":vars",
    ":where",
];

/// Where the REPL's hosts come from.
pub(crate) enum Target {
    /// A host of an inventory.
    Inventory { hosts: Vec<HostSpec>, start: String },
    /// A throwaway simulated host.
    Sim { host: HostSpec },
}

/// A runbook to load before the first prompt (`cairn debug`).
pub(crate) struct DebugStart {
    /// Breakpoints, as `:break` takes them.
    pub(crate) breakpoints: Vec<String>,
    /// `--param` values.
    pub(crate) params: BTreeMap<String, String>,
    /// The runbook.
    pub(crate) runbook: PathBuf,
}

/// What an input asks of the loop.
enum Flow {
    Continue,
    Quit,
}

/// The prompt: a session on one host, and a runbook under the debugger if one is loaded.
struct Repl {
    editor: Editor<ReplHelper, DefaultHistory>,
    /// A failed action of a run, waiting for `:retry`, `:skip` or `:abort`.
    failed: Option<Pause>,
    journal_path: PathBuf,
    loaded: Option<DebugRun>,
    /// The journal of the runbook loaded last, which `:journal` shows (also once it ended).
    runbook_journal: Option<PathBuf>,
    /// Methods by type, read from the engine once.
    methods: Option<help::Methods>,
    session: Session,
    sessions: Sessions,
}

/// Runs the REPL until `:quit` or Ctrl-D.
pub(crate) fn run(state: &Path, target: Target, start: Option<DebugStart>) -> miette::Result<()> {
    let sessions = Sessions::new(state, target)?;
    let (session, journal_path) = sessions.open(&sessions.start)?;
    let mut repl = Repl::new(session, journal_path, sessions)?;
    let _type_ahead = type_ahead::KeepTypeAhead::new();
    install_interrupt(repl.session.interrupter());
    println!(
        "cairn repl on `{}` — :help for commands, Tab completes, Ctrl-D quits",
        repl.session.host().name
    );
    if let Some(start) = start {
        repl.start_debugging(start)?;
    }
    repl.run_loop()?;
    repl.save_history();
    Ok(())
}

impl Repl {
    fn new(session: Session, journal_path: PathBuf, sessions: Sessions) -> miette::Result<Self> {
        // As bash: Tab completes the common prefix, a second Tab lists the candidates.
        let config = Config::builder()
            .completion_type(rustyline::CompletionType::List)
            .auto_add_history(true)
            .max_history_size(5000)
            .map_err(|e| miette::miette!("{e}"))?
            .build();
        let mut editor: Editor<ReplHelper, DefaultHistory> =
            Editor::with_config(config).map_err(|e| miette::miette!("{e}"))?;
        editor.set_helper(Some(ReplHelper::new()));
        let _ = editor.load_history(&history_file());
        Ok(Self {
            editor,
            failed: None,
            journal_path,
            loaded: None,
            runbook_journal: None,
            methods: None,
            session,
            sessions,
        })
    }

    fn save_history(&mut self) {
        let history = history_file();
        let _ = std::fs::create_dir_all(history.parent().unwrap_or(Path::new(".")));
        let _ = self.editor.save_history(&history);
    }

    /// Reads and handles inputs until `:quit`, Ctrl-D, or (at a failed action) an answer.
    fn run_loop(&mut self) -> miette::Result<()> {
        loop {
            self.refresh_words();
            let prompt = helper::prompt(&self.prompt_name(), false);
            let line = match self.editor.readline(&prompt) {
                Ok(line) => line,
                Err(ReadlineError::Interrupted) => continue,
                Err(ReadlineError::Eof) => {
                    self.quit_failed();
                    return Ok(());
                }
                Err(error) => return Err(miette::miette!("cannot read input: {error}")),
            };
            let input = line.trim();
            if input.is_empty() {
                continue;
            }
            let flow = match input.strip_prefix(':') {
                Some(command) => {
                    let (name, argument) = command
                        .split_once(' ')
                        .map_or((command, ""), |(n, a)| (n, a.trim()));
                    self.command(name, argument)
                }
                None => {
                    self.eval(input);
                    Flow::Continue
                }
            };
            if let Flow::Quit = flow {
                return Ok(());
            }
        }
    }

    /// The prompt's host name, marked while a runbook waits.
    fn prompt_name(&self) -> String {
        let host = &self.session.host().name;
        match (
            &self.failed,
            self.loaded.as_ref().and_then(DebugRun::paused),
        ) {
            (Some(_), _) => format!("{host} (failed)"),
            (None, Some(pause)) if pause.failed() => format!("{host} (failed)"),
            (None, Some(pause)) => format!("{host} @{}", pause.point.site.line),
            (None, None) => host.clone(),
        }
    }

    fn command(&mut self, name: &str, argument: &str) -> Flow {
        match name {
            "quit" | "q" => {
                self.quit_failed();
                return Flow::Quit;
            }
            "help" | "h" => println!("{}", help::help(self.session.engine(), argument)),
            "hosts" => self
                .sessions
                .print_hosts(&self.session.host().name, argument),
            "use" if self.failed.is_some() => {
                eprintln!("a failed action waits on this host: :retry, :skip or :abort first");
            }
            "use" => match self.sessions.open(argument) {
                Ok((next, journal)) => {
                    self.loaded = None;
                    self.runbook_journal = None;
                    self.session = next;
                    self.journal_path = journal;
                    install_interrupt(self.session.interrupter());
                    println!("now on `{argument}` (a fresh scope)");
                }
                Err(error) => eprintln!("{error:?}"),
            },
            "vars" => self.print_vars(),
            "where" => self.print_where(),
            "journal" => crate::timeline::print_timeline(self.journal(argument)),
            "clear" => print!("\x1b[2J\x1b[H"),
            "load" => self.load(argument),
            "break" => self.set_break(argument),
            "unbreak" => self.remove_break(argument),
            "step" | "s" => self.go(cairn_runtime::Resume::Step),
            "next" | "n" => self.go(cairn_runtime::Resume::Next),
            "continue" | "c" => self.go(cairn_runtime::Resume::Continue),
            "retry" | "skip" | "abort" => return self.decide(name, argument),
            other => eprintln!("unknown command `:{other}`; :help lists them"),
        }
        Flow::Continue
    }

    /// The journal `:journal` shows: the runbook's loaded last, else (or with `repl`) the
    /// session's.
    fn journal(&self, argument: &str) -> &Path {
        match &self.runbook_journal {
            Some(path) if argument != "repl" => path,
            _ => &self.journal_path,
        }
    }

    fn eval(&mut self, input: &str) {
        match self.session.eval(input) {
            Ok(value) => {
                let shown = render::render(&value);
                if !shown.is_empty() {
                    println!("{shown}");
                }
            }
            Err(error) => eprintln!("{:?}", miette::Report::new(error)),
        }
    }

    fn print_vars(&self) {
        let paused = self
            .failed
            .as_ref()
            .or_else(|| self.loaded.as_ref().and_then(DebugRun::paused));
        if let Some(pause) = paused {
            match &pause.vars {
                None => {
                    println!("runbook: (a run does not track them; `cairn debug` and `:load` do)")
                }
                Some(vars) if vars.is_empty() => println!("runbook: (none seen yet)"),
                Some(vars) => {
                    println!("runbook:");
                    for (name, value) in vars {
                        println!("  {name} = {}", one_line(value));
                    }
                }
            }
            println!("repl:");
        }
        for (name, value) in self.session.variables() {
            println!(
                "{}{name} = {}",
                if paused.is_some() { "  " } else { "" },
                one_line(value)
            );
        }
    }

    fn refresh_words(&mut self) {
        let Some(helper) = self.editor.helper_mut() else {
            return;
        };
        let catalog = (helper.words.builtins.is_empty() || helper.words.methods.is_empty())
            .then(|| cairn_runtime::Catalog::of(self.session.engine()));
        if let Some(catalog) = catalog
            .as_ref()
            .filter(|_| helper.words.builtins.is_empty())
        {
            helper.words.builtins = help::builtin_names(catalog);
        }
        helper.words.commands = COMMANDS.to_vec();
        helper.words.hosts = self.sessions.names();
        if let Some(catalog) = catalog.as_ref().filter(|_| helper.words.methods.is_empty()) {
            let methods = help::methods(catalog);
            let mut all: Vec<String> = [&methods.string, &methods.array, &methods.map]
                .into_iter()
                .flatten()
                .cloned()
                .collect();
            all.sort();
            all.dedup();
            helper.words.methods = all;
            self.methods = Some(methods);
        }
        let Some(methods) = &self.methods else {
            return;
        };
        let mut variables = Vec::new();
        for (name, value) in self.session.variables() {
            variables.push((name.to_owned(), members_of(value, methods)));
            // One level into a map: `r.stdout.` completes a string's methods.
            if let Some(map) = value.read_lock::<Map>() {
                for (key, field) in map.iter() {
                    variables.push((format!("{name}.{key}"), members_of(field, methods)));
                }
            }
        }
        helper.words.variables = variables;
    }
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

/// What `x.` can complete to for the value `x`: a map's keys and methods, a string's or an
/// array's methods; nothing for other values.
fn members_of(value: &Dynamic, methods: &help::Methods) -> Vec<String> {
    let mut members: Vec<String> = if let Some(map) = value.read_lock::<Map>() {
        map.keys()
            .map(ToString::to_string)
            .chain(methods.map.iter().cloned())
            .collect()
    } else if value.is_string() {
        methods.string.clone()
    } else if value.is_array() {
        methods.array.clone()
    } else {
        Vec::new()
    };
    members.sort();
    members.dedup();
    members
}

fn one_line(value: &Dynamic) -> String {
    let text = value.to_string().replace('\n', "⏎");
    if text.chars().count() > 100 {
        text.chars().take(99).collect::<String>() + "…"
    } else {
        text
    }
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
