//! `cairn repl`: pick the host, then hand over to the REPL.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use cairn_runtime::inventory::{Address, HostSpec};
use clap::Args;

use super::Context;
use crate::repl::{self, Target};

/// `cairn repl -i INVENTORY --host HOST`, `cairn repl --sim MODEL`.
#[derive(Debug, Args)]
pub(crate) struct ReplArgs {
    /// The inventory (with --host).
    #[arg(short, long, requires = "host", conflicts_with = "sim")]
    inventory: Option<PathBuf>,
    /// The inventory host to start on.
    #[arg(long)]
    host: Option<String>,
    /// A throwaway simulated host instead: MODEL or MODEL?option=value&... (e.g. esxi7).
    #[arg(long, value_name = "MODEL")]
    sim: Option<String>,
}

impl ReplArgs {
    pub(crate) fn execute(self, context: &Context) -> miette::Result<ExitCode> {
        // A config file's inventory does not apply to a throwaway simulated host (clap still
        // refuses `-i` given with `--sim`).
        let inventory = self.inventory.filter(|_| self.sim.is_none());
        repl(
            &context.state,
            inventory.as_deref(),
            self.host,
            self.sim.as_deref(),
        )
    }
}

fn repl(
    state: &Path,
    inventory: Option<&Path>,
    host: Option<String>,
    sim: Option<&str>,
) -> miette::Result<ExitCode> {
    let target = match (inventory, host, sim) {
        (Some(inventory), Some(host), None) => {
            let hosts = repl::inventory_hosts(inventory)?;
            Target::Inventory { hosts, start: host }
        }
        (None, None, Some(model)) => {
            let address: Address = format!("sim:{model}").parse().map_err(|e| {
                miette::miette!(
                    help = "for example --sim esxi7 or --sim \"rhel8?clock=virtual\"",
                    "--sim {model}: {e}"
                )
            })?;
            let base = model.split('?').next().unwrap_or(model);
            let name = format!("sim-{base}");
            // `esxi7` is in group `esxi`, so a recipe's `on esxi` stages run on it under `:load`.
            let family = base.trim_end_matches(|c: char| c.is_ascii_digit());
            let mut groups = vec!["all".to_owned()];
            if !family.is_empty() && family != "all" {
                groups.push(family.to_owned());
            }
            Target::Sim {
                host: HostSpec {
                    address,
                    groups,
                    name,
                    vars: Default::default(),
                },
            }
        }
        _ => {
            return Err(miette::miette!(
                help = "cairn repl -i INVENTORY --host HOST, or cairn repl --sim MODEL",
                "choose a host: an inventory host, or a simulated one"
            ));
        }
    };
    repl::run(state, target, None)?;
    Ok(ExitCode::SUCCESS)
}
