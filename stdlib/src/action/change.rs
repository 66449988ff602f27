//! The change helper: the one sequence every change builtin follows, so none hand-writes it.
//!
//! Read what the host has now → compare it with what is wanted → in check mode report what
//! would change and stop → mark the action as acting (what it was, for a resume to reconcile)
//! → apply → the outcome (changed, reboot owed) → and, when the change waits for the next
//! boot, a probe that reads it back after that reboot (the reboot-loop breaker).
//!
//! The journal name is the builtin's registration: its namespace (the one `install()`
//! registers) and the name the script called it by, so it is never typed a second time.

use cairn_runtime::{ActionCall, ActionError, AfterBoot, HostIo, Outcome, Reconcile};
use rhai::{Dynamic, NativeCallContext};
use serde_json::Value;

use super::RhaiResult;

/// The journal name of the builtin being called: `namespace::name` as registered.
pub(crate) fn builtin_name(ctx: &NativeCallContext, namespace: &str) -> String {
    // A full name passed as the namespace would journal `ns::name::name`.
    debug_assert!(!namespace.contains("::"), "{namespace} is not a namespace");
    format!("{namespace}::{}", ctx.fn_name())
}

/// What comparing the host with what is wanted found.
pub(crate) enum Compared<T> {
    /// Already as wanted: the value the script gets, and no change.
    Same(Value),
    /// Nothing to change now, but a change made before still waits for the next boot.
    Owed(Value),
    /// It differs.
    Differs(Differs<T>),
}

/// A change to make.
pub(crate) struct Differs<T> {
    /// The value the script gets (also in check mode: what would change).
    pub(crate) value: Value,
    /// Whether the change waits for the next boot.
    pub(crate) reboot: bool,
    /// Recorded (`acting`) just before applying: what the host had, for reconciling. `None`
    /// for a change whose reconcile redoes it, which needs no mark.
    pub(crate) before: Option<Value>,
    /// What `apply` needs (a command line, a plan).
    pub(crate) todo: T,
}

impl<T> Compared<T> {
    /// A change with a mark and the value the script gets.
    pub(crate) fn differs(value: Value, reboot: bool, before: Value, todo: T) -> Self {
        Self::Differs(Differs {
            value,
            reboot,
            before: Some(before),
            todo,
        })
    }

    /// A change that needs no mark (its reconcile redoes it) and owes no reboot.
    pub(crate) fn unmarked(value: Value, todo: T) -> Self {
        Self::Differs(Differs {
            value,
            reboot: false,
            before: None,
            todo,
        })
    }
}

/// After a staged change's reboot: a label for the journal (`mlxconfig 3b:00.0
/// LINK_TYPE_P1`) and the check that reads the change back.
pub(crate) struct Probe {
    pub(crate) what: String,
    pub(crate) check: AfterBoot,
}

/// A change builtin's call: its arguments, what a resume assumes, how it is reconciled.
pub(crate) struct Change<'r> {
    /// The builtin's namespace, as `install()` registers it.
    pub(crate) namespace: &'static str,
    pub(crate) args: Value,
    pub(crate) assumed: Value,
    pub(crate) reconcile: Reconcile<'r>,
}

impl Change<'_> {
    /// A change reconciled by doing it again (it compares first, so that is safe).
    pub(crate) fn redo(namespace: &'static str, args: Value, assumed: Value) -> Self {
        Self {
            namespace,
            args,
            assumed,
            reconcile: Reconcile::Redo,
        }
    }

    /// Runs the sequence: `read` the host, `compare` with what is wanted, and unless in check
    /// mode or already as wanted, mark and `apply`; `apply` gets the planned outcome and
    /// returns the one observed (a tool may say a reboot is or is not needed after all).
    pub(crate) fn run<N, T>(
        self,
        ctx: &NativeCallContext,
        read: impl FnOnce(&mut HostIo<'_>) -> Result<N, ActionError>,
        compare: impl FnOnce(&HostIo<'_>, N) -> Result<Compared<T>, ActionError>,
        apply: impl FnOnce(&mut HostIo<'_>, T, Outcome) -> Result<Outcome, ActionError>,
    ) -> RhaiResult<Dynamic> {
        let call = ActionCall {
            args: self.args,
            assumed: self.assumed,
            builtin: builtin_name(ctx, self.namespace),
            reconcile: self.reconcile,
        };
        super::act(ctx, call, |io| {
            let now = read(io)?;
            let differs = match compare(io, now)? {
                Compared::Same(value) => return Ok(Outcome::unchanged(value)),
                Compared::Owed(value) => {
                    return Ok(Outcome {
                        changed: false,
                        reboot_required: true,
                        value,
                    });
                }
                Compared::Differs(differs) => differs,
            };
            let planned = Outcome {
                changed: true,
                reboot_required: differs.reboot,
                value: differs.value,
            };
            if io.checking() {
                return Ok(planned);
            }
            if let Some(before) = differs.before {
                io.acting(before)?;
            }
            apply(io, differs.todo, planned)
        })
    }
}

/// The reboot-loop breaker's failure: `what` is still `seen` after the reboot that ended
/// now on the host's clock, and `why` says whose doing it is.
pub(crate) fn not_applied(io: &HostIo<'_>, what: String, seen: String, why: &str) -> ActionError {
    let minutes = io.clock().now_millis() / 60_000;
    ActionError::NotApplied {
        what,
        seen,
        at: format!("{:02}:{:02} UTC", minutes / 60 % 24, minutes % 60),
        why: why.into(),
        // The runtime's reboot names the stage that staged it (`ActionError::staged_in`).
        restage: "run `cairn resume --from-stage` with the stage that staged it".into(),
    }
}

#[cfg(test)]
mod tests {
    /// The journal names existing journals hold for the table's builtins (the literals the
    /// builtins typed before their names came from the registration; `fabric::` and
    /// `report::` as they first shipped). A resume matches each recorded intent by this name,
    /// so a renamed builtin would make old journals diverge.
    const OLD_JOURNAL_NAMES: &[&str] = &[
        "esxcli::advanced_get",
        "esxcli::advanced_set",
        "esxcli::maintenance_mode",
        "esxcli::maintenance_mode_set",
        "esxcli::module_parameters",
        "esxcli::module_parameters_set",
        "esxcli::nic_list",
        "esxcli::pcipassthru_list",
        "esxcli::pcipassthru_set",
        "esxcli::vib_install",
        "esxcli::vib_installed",
        "esxcli::vib_list",
        "fabric::all_pairs",
        "fabric::nccl_all_reduce",
        "fabric::nccl_pairs",
        "fabric::manifest_diff",
        "fabric::pairs",
        "flint::query",
        "gpu::acs",
        "gpu::disable_acs",
        "gpu::peermem",
        "gpu::topology",
        "ib::devinfo",
        "ib::ibdiagnet",
        "ib::netdiscover",
        "ib::stat",
        "ib::status",
        "ib::wait_active",
        "mlxconfig::query",
        "mlxconfig::set",
        "mlxfwmanager::query",
        "mlxfwmanager::update",
        "mlxfwreset::query",
        "mlxfwreset::reset",
        "mlxfwreset::status",
        "mst::restart",
        "mst::start",
        "mst::status",
        "net::addr_add",
        "net::ifname_for",
        "net::links",
        "net::set_mtu",
        "ofed::info",
        "ofed::install",
        "ofed::install_doca",
        "ofed::restart",
        "perftest::matrix",
        "perftest::read_bw",
        "perftest::read_lat",
        "perftest::send_bw",
        "perftest::send_lat",
        "perftest::write_bw",
        "perftest::write_lat",
        "qos::read",
        "qos::set",
        "qos::set_ecn",
        "qos::set_roce_tos",
        "report::table",
        "report::verdict",
        "sockperf::ping_pong",
        "vhpc::latency",
        "vhpc::passthru_add",
        "vhpc::passthru_remove",
        "vhpc::power",
        "vhpc::reserve",
        "vhpc::view",
        // The link health builtins (issue 48).
        "fabric::link_sweep",
        "ib::counter_deltas",
        "ib::error_counters",
        "ib::link_info",
        "ib::perfquery",
        "ib::query_errors",
        "mlxlink::read",
    ];

    /// Every builtin of the table's namespaces journals as `namespace::name` from its
    /// registration; the registered names, as the catalog reads them, must be exactly the names
    /// old journals hold.
    #[test]
    fn every_registered_builtin_name_is_the_one_old_journals_hold() {
        let mut engine = rhai::Engine::new_raw();
        crate::tools::install_tools(&mut engine);
        let registered: Vec<String> = cairn_runtime::Catalog::of(&engine)
            .names()
            .into_iter()
            .filter(|name| name.contains("::"))
            .collect();
        let mut old: Vec<String> = OLD_JOURNAL_NAMES.iter().map(|n| (*n).to_owned()).collect();
        old.sort();
        assert_eq!(registered, old);
    }
}
