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
            let name = format!("sim-{}", model.split('?').next().unwrap_or(model));
            Target::Sim {
                host: HostSpec {
                    address,
                    groups: vec!["all".into()],
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
    repl::run(state, target)?;
    Ok(ExitCode::SUCCESS)
}
