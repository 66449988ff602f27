//! Why a simulated host could not be set up or its state read.

use std::path::PathBuf;

/// A failure to create, load or save a simulated host.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum SimError {
    /// An option has a value the simulator cannot use.
    #[error("sim option `{key}={value}` is invalid: expected {expected}")]
    #[diagnostic(code(cairn::runtime::sim_bad_option))]
    BadOption {
        /// What the option takes.
        expected: String,
        /// The option.
        key: String,
        /// The value given.
        value: String,
    },
    /// `CAIRN_SIM_DIR` names a folder that does not exist: a typo there would silently start a
    /// fresh simulated fleet instead of reaching the one other controllers share.
    #[error("{var} names `{path}`, which is not a folder", path = path.display())]
    #[diagnostic(
        code(cairn::runtime::sim_dir_missing),
        help("create that folder (`mkdir -p {path}`) to start a shared simulated fleet there, or unset {var}", path = path.display())
    )]
    SimDirMissing {
        /// The variable.
        var: &'static str,
        /// The folder it names.
        path: PathBuf,
    },
    /// The state directory holds something that is not a simulated host's state.
    #[error("simulator state `{path}` is unreadable: {reason}", path = path.display())]
    #[diagnostic(
        code(cairn::runtime::sim_corrupt_state),
        help("remove the directory to start the simulated host afresh")
    )]
    CorruptState {
        /// The state file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// Reading or writing the state directory failed.
    #[error("cannot {action} `{path}`", path = path.display())]
    #[diagnostic(code(cairn::runtime::sim_io))]
    Io {
        /// What was being done.
        action: &'static str,
        /// The file or directory.
        path: PathBuf,
        /// The operating system's reason.
        #[source]
        source: std::io::Error,
    },
    /// The state directory belongs to another host, model or kind of clock.
    #[error("simulator state `{path}` was created with {field} `{found}`, not `{wanted}`", path = path.display())]
    #[diagnostic(
        code(cairn::runtime::sim_state_mismatch),
        help(
            "remove the directory to start the simulated host afresh, or give it its own directory"
        )
    )]
    StateMismatch {
        /// What differs: `host`, `model` or `clock`.
        field: &'static str,
        /// What the state file says.
        found: String,
        /// The state directory.
        path: PathBuf,
        /// What was asked for.
        wanted: String,
    },
    /// The state directory's host was made from other `sim:` options than the inventory's: its
    /// hardware and first state are those options', so the inventory's would be silently
    /// ignored (another lab's host under the same name).
    #[error("the simulated host `{host}` kept in `{path}` was made from other options than this inventory gives it: {differences}", path = path.display())]
    #[diagnostic(
        code(cairn::runtime::sim_made_from),
        help(
            "a simulated host keeps its state between runs, whichever inventory names it: remove `{path}` to make it afresh from this inventory, or give this lab a state folder of its own (`--state-dir`)", path = path.display()
        )
    )]
    MadeFrom {
        /// The host.
        host: String,
        /// The state directory.
        path: PathBuf,
        /// Each option that differs: `vms=a@esx01` there, `vms=b@esx01` here.
        differences: String,
    },
    /// No model of that name is registered.
    #[error("no simulator model `{name}`")]
    #[diagnostic(code(cairn::runtime::sim_unknown_model), help("known models: {known}"))]
    UnknownModel {
        /// The registered models, comma-separated.
        known: String,
        /// The model asked for.
        name: String,
    },
    /// Neither the simulator nor the model's tools know this option.
    #[error("unknown sim option `{key}`")]
    #[diagnostic(
        code(cairn::runtime::sim_unknown_option),
        help("known options: {known}")
    )]
    UnknownOption {
        /// The options the simulator and the model's tools know, comma-separated.
        known: String,
        /// The option given.
        key: String,
    },
}

/// A simulated host's failure as the transport error its command fails with.
pub(crate) fn transport_error(error: SimError) -> crate::TransportError {
    match error {
        SimError::Io {
            action,
            path,
            source,
        } => crate::TransportError::HostState {
            // The reason goes in the message too: a host's failure keeps only its one line, and
            // "No space left on device" is the point.
            context: format!("cannot {action} `{}`: {source}", path.display()),
            source,
        },
        other => {
            let context = other.to_string();
            crate::TransportError::Io {
                source: std::io::Error::other(context.clone()),
                context,
            }
        }
    }
}
