//! An interactive session on one host: lines evaluated in a persistent scope, with every action
//! journaled in a journal of the session's own, so what was done by hand can be reviewed. Its
//! sibling `session/debug.rs` is a runbook's instance on one host under the debugger.

pub(crate) mod debug;

use std::path::Path;
use std::sync::{Arc, Mutex};

use rhai::{Dynamic, Engine, EvalAltResult, Scope};

use crate::journal::{
    HostJournal, JOURNAL_VERSION, JournalEvent, JournalWriter, RunHeader, now_millis,
};
use crate::{
    Cancel, EventSink, HostContext, HostInfo, Installer, Mode, Role, RunOptions, RunShared,
    RunbookError, Transport, bind_host, build_engine, error_in,
};

/// A REPL session bound to one host.
pub struct Session {
    /// The functions (and closures' bodies) defined so far; statements are dropped after each
    /// input, as rhai's own REPL (`rhai-repl`) keeps its `main_ast`.
    ast: rhai::AST,
    cancel: Cancel,
    engine: Engine,
    host: Arc<HostContext>,
    scope: Scope<'static>,
}

impl Session {
    /// Opens a session on `info` through `transport`, journaling to `journal` (a new file).
    ///
    /// Builtins run as if inside a stage named `repl`, so every action is journaled with it.
    pub fn open(
        info: HostInfo,
        transport: Box<dyn Transport>,
        journal: &Path,
        libraries: &[Installer],
        module_dir: &Path,
    ) -> Result<Self, RunbookError> {
        let transport = Arc::new(Mutex::new(transport));
        Self::open_shared(info, transport, journal, libraries, module_dir)
    }

    /// Opens a session on a transport it shares: a runbook paused by the debugger on the same
    /// host, so what is typed at the pause acts on that host.
    pub fn open_shared(
        info: HostInfo,
        transport: Arc<Mutex<Box<dyn Transport>>>,
        journal: &Path,
        libraries: &[Installer],
        module_dir: &Path,
    ) -> Result<Self, RunbookError> {
        let peers = vec![info.clone()];
        Self::open_among(info, transport, journal, libraries, module_dir, peers)
    }

    /// Opens a session whose `hosts("GROUP")` sees `peers` (the inventory's hosts, for
    /// `cairn repl -i`), not only the session's own host.
    pub fn open_among(
        info: HostInfo,
        transport: Arc<Mutex<Box<dyn Transport>>>,
        journal: &Path,
        libraries: &[Installer],
        module_dir: &Path,
        peers: Vec<HostInfo>,
    ) -> Result<Self, RunbookError> {
        let failed = |message: String| error_in("repl", "", message, rhai::Position::NONE, None);
        if let Some(dir) = journal.parent() {
            std::fs::create_dir_all(dir)
                .map_err(|e| failed(format!("cannot create {}: {e}", dir.display())))?;
        }
        let mut writer = JournalWriter::open(journal).map_err(|e| failed(e.to_string()))?;
        let header = RunHeader {
            at: now_millis(),
            host: info.name.clone(),
            hosts: vec![info.name.clone()],
            inventory: String::new(),
            params: Default::default(),
            run_id: journal
                .file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or("repl")
                .to_owned(),
            runbook: "repl".into(),
            runbook_hash: String::new(),
            version: JOURNAL_VERSION,
        };
        writer
            .append(&JournalEvent::Header(header), true)
            .map_err(|e| failed(e.to_string()))?;
        let cancel = Cancel::default();
        let shared = Arc::new(RunShared::new(
            1,
            peers,
            RunOptions::default(),
            Default::default(),
            cancel.clone(),
            EventSink::none(),
        ));
        let host = Arc::new(
            HostContext::new(
            info,
            Role::Host,
            Mode::Live,
            shared,
            transport,
            HostJournal::default(),
            Some(writer),
            "repl".into(),
        )
        // Ctrl-C stops the command that runs, not only the next one.
        .with_interrupt(cancel.clone()),
        );
        host.enter_stage("repl", "all")
            .map_err(|e| failed(e.to_string()))?;
        let mut engine = build_engine(
            &crate::ImportPath::at(module_dir),
            libraries,
            RunOptions::default().max_operations,
        );
        bind_host(&mut engine, &host);
        Ok(Self {
            ast: rhai::AST::empty(),
            cancel,
            engine,
            host,
            scope: Scope::new(),
        })
    }

    /// Evaluates one input (one or more lines) in the session's scope.
    pub fn eval(&mut self, input: &str) -> Result<Dynamic, RunbookError> {
        self.cancel.reset();
        let compiled = self
            .engine
            .compile_with_scope(&self.scope, input)
            .map_err(|error| Box::new(EvalAltResult::from(error)));
        let result = compiled.and_then(|ast| {
            // New definitions replace old ones of the same name and arity; earlier inputs'
            // statements are gone, so only this input's run.
            self.ast += ast;
            let result = self
                .engine
                .eval_ast_with_scope::<Dynamic>(&mut self.scope, &self.ast);
            self.ast.clear_statements();
            result
        });
        result.map_err(|error| {
            let position = error.position();
            let message = crate::raised_error::error_message(&error);
            error_in("input", input, message, position, None)
        })
    }

    /// Stops a running action (Ctrl-C): it ends at its next wait or before its next command.
    pub fn interrupt(&self) {
        self.cancel.cancel();
    }

    /// A handle that interrupts this session from another thread.
    pub fn interrupter(&self) -> Cancel {
        self.cancel.clone()
    }

    /// The engine, for completion and help.
    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// The variables in scope, by name.
    pub fn variables(&self) -> impl Iterator<Item = (&str, &Dynamic)> {
        self.scope.iter_raw().map(|(name, _, value)| (name, value))
    }

    /// The host's transport, to share with a runbook loaded for debugging.
    pub fn transport(&self) -> Arc<Mutex<Box<dyn Transport>>> {
        self.host.transport().clone()
    }

    /// Evaluates `input` as a value for the journal (`:skip VALUE`): rhai, then JSON.
    pub fn eval_json(&mut self, input: &str) -> Result<serde_json::Value, RunbookError> {
        let value = self.eval(input)?;
        rhai::serde::from_dynamic(&value).map_err(|error| {
            error_in(
                "input",
                input,
                format!("this value cannot be journaled: {error}"),
                rhai::Position::new(1, 1),
                None,
            )
        })
    }

    /// The host this session acts on.
    pub fn host(&self) -> &HostInfo {
        &self.host.info
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::LocalTransport;

    fn session(dir: &Path) -> Session {
        let info = HostInfo {
            groups: vec!["all".into()],
            name: "local".into(),
            vars: BTreeMap::new(),
        };
        Session::open(
            info,
            Box::new(LocalTransport),
            &dir.join("s.jsonl"),
            &[],
            dir,
        )
        .expect("session")
    }

    #[test]
    fn the_scope_persists_and_actions_are_journaled() {
        let dir = tempfile::tempdir().expect("dir");
        let mut s = session(dir.path());
        let _ = s.eval("let r = run([\"echo\", \"hi\"]);").expect("run");
        let out = s.eval("r.stdout").expect("read back");
        assert_eq!(out.to_string(), "hi\n");
        let journal = HostJournal::load(&dir.path().join("s.jsonl"), false).expect("journal");
        assert_eq!(journal.actions.len(), 1);
        assert_eq!(
            journal
                .actions
                .values()
                .next()
                .map(|a| a.intent.stage.as_str()),
            Some("repl")
        );
    }

    #[test]
    fn functions_and_closures_stay_defined() {
        let dir = tempfile::tempdir().expect("dir");
        let mut s = session(dir.path());
        let mut eval = |input: &str| s.eval(input).map(|v| v.to_string()).map_err(|e| e.message);
        assert_eq!(eval("fn f(a) { a * 2 }"), Ok(String::new()));
        assert_eq!(eval("f(4)"), Ok("8".into()));
        assert_eq!(eval("let k = 10; let add = |x| x + k;"), Ok(String::new()));
        assert_eq!(eval("add.call(2)"), Ok("12".into()));
        assert_eq!(eval("fn f(a) { a * 3 }"), Ok(String::new()));
        assert_eq!(
            eval("f(4)"),
            Ok("12".into()),
            "a new definition replaces the old"
        );
        assert_eq!(eval("let n = 1;"), Ok(String::new()));
        assert_eq!(
            eval("n"),
            Ok("1".into()),
            "earlier statements do not run again"
        );
    }

    #[test]
    fn an_error_points_into_the_input() {
        let dir = tempfile::tempdir().expect("dir");
        let mut s = session(dir.path());
        let error = s.eval("let x = 1;\nrun([\"false\"])").unwrap_err();
        assert!(
            error.message.contains("`false` exited with 1"),
            "{}",
            error.message
        );
        let span = error.span.expect("span");
        assert_eq!(span.offset(), "let x = 1;\n".len());
    }
}
