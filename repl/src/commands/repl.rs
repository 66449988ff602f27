//! `cairn repl`: pick the host, then hand over to the REPL.

use std::path::Path;
use std::process::ExitCode;

use cairn_runtime::inventory::{Address, HostSpec};

use crate::repl::{self, Target};

pub(crate) fn repl(
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
