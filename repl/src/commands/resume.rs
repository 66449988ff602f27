//! `cairn resume`: continue a run that stopped, with the run's own options unless given again.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use cairn_runtime::Assumptions;
use cairn_runtime::launch::RunOverrides;
use clap::Args;

use super::Context;
use super::run::{display, drive, inputs, params};
use crate::arg_groups::CommonRunArgs;
use crate::repl::FailurePrompt;

/// `cairn resume [RUN-ID] [--assume [HOST=]done|redo] [--restart-host HOST] ...`.
#[derive(Debug, Args)]
pub(crate) struct ResumeArgs {
    /// The run (default: the newest unfinished one in the state folder).
    run_id: Option<String>,
    /// For actions that started but whose outcome was not recorded: `done` records them as
    /// done, `redo` runs them again. `HOST=done|redo` answers for one host (repeatable); a
    /// bare answer covers every host not named.
    #[arg(long, value_name = "[HOST=]done|redo")]
    assume: Vec<String>,
    /// A host whose journal is lost (missing, empty, no header): run it again from scratch,
    /// every action included (repeatable).
    #[arg(long, value_name = "HOST")]
    restart_host: Vec<String>,
    /// Forget what the journals hold from this stage on, and run it again (after an edit):
    /// its number in the progress (`1` is the first), its name, or a unique prefix of it.
    #[arg(long, value_name = "STAGE")]
    from_stage: Option<String>,
    /// The run's runbook, moved since the run started: accepted if its content is the same.
    #[arg(long, value_name = "PATH")]
    runbook: Option<PathBuf>,
    #[command(flatten)]
    common: CommonRunArgs,
    #[command(flatten)]
    store: crate::store_args::StoreArgs,
    /// A standby's resume: nobody is at its terminal to answer an unknown outcome.
    #[arg(skip)]
    never_ask: bool,
}

impl ResumeArgs {
    /// The resume a standby starts of run `run_id`, which its session already drives: the
    /// run's own options, with the standby's display, vault and SSH options.
    pub(super) fn for_standby(
        run_id: String,
        common: CommonRunArgs,
        store: crate::store_args::StoreArgs,
    ) -> Self {
        Self {
            run_id: Some(run_id),
            assume: Vec::new(),
            restart_host: Vec::new(),
            from_stage: None,
            runbook: None,
            common,
            store,
            never_ask: true,
        }
    }

    pub(crate) fn execute(self, context: &Context) -> miette::Result<ExitCode> {
        let opened = self.store.open()?;
        self.execute_on(context, opened)
    }

    /// Resumes on `opened`, this controller's session on the shared store (none: the folder
    /// store), and ends that session when the resume ends.
    pub(super) fn execute_on(
        self,
        context: &Context,
        opened: Option<crate::store_args::Opened>,
    ) -> miette::Result<ExitCode> {
        let resumed = self.resume_on(context, opened.as_ref());
        // Ended whatever happened, so that its hosts are given back at once, not at its TTL.
        if let Some(opened) = opened {
            opened.finish();
        }
        resumed
    }

    fn resume_on(
        self,
        context: &Context,
        opened: Option<&crate::store_args::Opened>,
    ) -> miette::Result<ExitCode> {
        let Self {
            run_id,
            assume,
            restart_host: restart_hosts,
            from_stage,
            runbook,
            common,
            store: _,
            never_ask,
        } = self;
        let state = context.state.as_path();
        let run_id = match opened {
            Some(opened) => crate::store_args::take_over(opened, state, run_id)?,
            None => run_id,
        };
        let assume = Assumptions::parse(&assume).map_err(|message| {
            miette::miette!(
                code = "cairn::cli::assume_syntax",
                help = "write --assume done, --assume redo, or per host --assume HOST=done",
                "{message}"
            )
        })?;
        let (vault, param_file) = inputs(&common)?;
        let prompt = common
            .debug_on_failure
            .then(|| FailurePrompt::start(state))
            .transpose()?;
        let overrides = RunOverrides {
            accept_new_host_keys: common.drive.accept_new_host_keys,
            debugger: prompt.as_ref().map(|(debugger, _)| debugger.clone()),
            forks: common.forks,
            max_fail_percent: common.max_fail_percent,
            max_unavailable: common.max_unavailable.clone(),
            from_stage,
            params: params(&common.params)?,
            param_file,
            vault,
            reboot_timeout: common.reboot_timeout.map(Duration::from_secs),
            wait_for_hosts: common.drive.wait_for_hosts,
            restart_hosts,
            ask: if common.drive.json || never_ask {
                None
            } else {
                super::ask_undecided::on_terminal()
            },
            runbook,
            shared_store: opened.map(|opened| {
                opened.shared.clone() as std::sync::Arc<dyn cairn_runtime::SharedStore>
            }),
        };
        let code = drive(
            display(&common),
            false,
            |launcher, cancel, events| {
                launcher
                    .resume(run_id, assume, overrides, cancel, events)
                    .map_err(Into::into)
            },
            crate::assembly::launcher_for(state, opened.is_some()),
        );
        if let Some((debugger, prompt)) = prompt {
            // The prompt ends once the run's last hold on the debugger is gone.
            drop(debugger);
            prompt.finish();
        }
        code
    }
}
