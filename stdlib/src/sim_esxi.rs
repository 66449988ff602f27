//! The simulated ESXi host (`sim:esxi7`): its tools are added by the vendor modules.

use cairn_runtime::sim::{BootMarker, SimModel};

/// The `esxi7` model.
pub(crate) fn esxi7() -> SimModel {
    SimModel::new("esxi7", BootMarker::VmkSummary)
}
