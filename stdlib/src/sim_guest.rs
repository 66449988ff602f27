//! The simulated Linux guest (`sim:rhel8`): its tools are added by the vendor modules.

use cairn_runtime::sim::{BootMarker, SimModel};

/// The `rhel8` model.
pub(crate) fn rhel8() -> SimModel {
    SimModel::new("rhel8", BootMarker::ProcBootId)
}
