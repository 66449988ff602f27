//! `cairn join --store URL [RUN]`: drives a share of a run that `cairn run --controllers N`
//! cut between controllers (docs/fleet.md, "Several controllers on one run"). Which share is
//! the store's (`store-pg/src/fleet_share.rs`: two joins at once claim two shares); driving it
//! is a resume of that share's run, never begun until now, with the run's own params and
//! options.

use std::process::ExitCode;

use clap::Args;

use super::Context;
use super::resume::ResumeArgs;
use crate::arg_groups::{CommonRunArgs, DriveArgs};
use crate::store_args::StoreArgs;

/// No share was left to claim.
const NOTHING_JOINED: u8 = 3;

/// `cairn join --store URL [RUN]`.
#[derive(Debug, Args)]
pub(crate) struct JoinArgs {
    /// The shared run (its first share's id, as `cairn run --controllers` printed it);
    /// default: the newest one with a share no controller has claimed.
    run_id: Option<String>,
    #[command(flatten)]
    drive: DriveArgs,
    #[command(flatten)]
    store: StoreArgs,
}

impl JoinArgs {
    pub(crate) fn execute(self, context: &Context) -> miette::Result<ExitCode> {
        let Some(opened) = self.store.open()? else {
            return Err(miette::miette!(
                code = "cairn::cli::join_without_store",
                help = "give the store the run was started on: --store postgres://... (or CAIRN_STORE)",
                "a run shared between controllers lives in a shared store, and none was given; nothing was done"
            ));
        };
        let wanted = self.run_id.clone();
        let claimed = opened
            .shared
            .call("claim a share of a run", move |store, session| {
                store.claim_share(session, wanted.as_deref())
            })?;
        let Some(share) = claimed else {
            // A mistyped run id is refused as every command refuses one, not told "nothing left".
            if let Some(id) = &self.run_id {
                let ids = opened
                    .shared
                    .call("list the stored runs", |store, _| store.run_ids())?;
                if !ids.contains(id) {
                    opened.finish();
                    let what = format!("no run `{id}` in the store; nothing was done");
                    return Err(cairn_runtime::UnknownName::new(what, id, &ids, "its runs").into());
                }
            }
            opened.finish();
            match &self.run_id {
                Some(id) => say!(
                    "join: run {id} has no share left to drive (each is claimed by a controller, or it is not a shared run)"
                ),
                None => say!("join: no shared run has a share left to drive"),
            }
            return Ok(ExitCode::from(NOTHING_JOINED));
        };
        say!(
            "join: driving share {} of {} of run {}, as run {}",
            share.share,
            share.shares,
            share.fleet_run,
            share.run_id
        );
        let common = CommonRunArgs::run_own(self.drive);
        ResumeArgs::for_standby(share.run_id, common, self.store).execute_on(context, Some(opened))
    }
}
