//! A run's inputs read, converted and checked once, before any host is touched: the runbook
//! compiled once (its syntax tree shared by every host's instance, which only binds its own
//! host to an engine), its outline, and its params as typed values with every secret
//! registered with the redactor. `launch/` builds one for a run or a resume (merging the param
//! file and the vault in between), the debugger and the benches through [`PreparedRun::new`];
//! the executor owns it.

use std::collections::BTreeMap;
use std::sync::Arc;

use rhai::{AST, Engine};

use crate::{Installer, Outline, ParamError, RunError, RunParams, Runbook, RunbookError};

/// A runbook compiled, with its outline; its params are not merged yet.
pub struct CompiledRunbook {
    /// The runbook.
    pub runbook: Runbook,
    /// Its syntax tree, shared by every host's instance.
    pub ast: Arc<AST>,
    /// Its stages and params.
    pub outline: Outline,
    /// The engine it was compiled with: the checks read their signatures from it.
    pub engine: Engine,
}

impl CompiledRunbook {
    /// Compiles `runbook` with an engine holding `libraries`' builtins.
    pub fn compile(
        runbook: Runbook,
        libraries: &[Installer],
        max_operations: u64,
    ) -> Result<Self, RunbookError> {
        let engine = crate::build_engine(&runbook.imports(), libraries, max_operations);
        let ast = runbook.compile(&engine)?;
        let outline = Outline::of(&ast);
        Ok(Self {
            runbook,
            ast: Arc::new(ast),
            outline,
            engine,
        })
    }

    /// Registers the values `params` gives the runbook's secret params with the redactor: the
    /// one place a secret param's value becomes a secret, before any param is checked, so a
    /// message shows each value whole or redacted whole, whichever source gave it.
    pub fn register_secrets(&self, params: &BTreeMap<String, String>) {
        for param in self.outline.params.iter().filter(|p| p.secret) {
            if let Some(value) = params.get(&param.name) {
                crate::secrets::register(&crate::secrets::param_name(&param.name), value);
            }
        }
    }

    /// The run's inputs, with `params` (every source merged) registered, checked and converted.
    pub fn with_params(self, params: BTreeMap<String, String>) -> Result<PreparedRun, ParamError> {
        self.register_secrets(&params);
        let params = RunParams::check(&self.ast, params)?;
        Ok(PreparedRun {
            compiled: self,
            params,
        })
    }
}

/// Everything a run reads from its runbook and params, read once.
pub struct PreparedRun {
    /// The compiled runbook.
    pub compiled: CompiledRunbook,
    /// The params.
    pub params: RunParams,
}

impl PreparedRun {
    /// `runbook` compiled and `params` checked: a run whose params have one source.
    pub fn new(
        runbook: Runbook,
        libraries: &[Installer],
        max_operations: u64,
        params: BTreeMap<String, String>,
    ) -> Result<Self, RunError> {
        let compiled = CompiledRunbook::compile(runbook, libraries, max_operations)?;
        Ok(compiled.with_params(params)?)
    }

    /// The runbook.
    pub fn runbook(&self) -> &Runbook {
        &self.compiled.runbook
    }
}
