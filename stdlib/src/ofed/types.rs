//! The typed result of `ofed_info`.

use serde::Serialize;

/// What `ofed_info` (or `ofed_info -s`) reports.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OfedInfo {
    /// The distribution name before the version (`MLNX_OFED_LINUX`, `OFED-internal`).
    pub distribution: String,
    /// The version string as printed (`5.4-3.0.3.0`).
    pub version: String,
    /// The components listed by the full `ofed_info`, in order; empty for `ofed_info -s`.
    pub components: Vec<OfedComponent>,
    /// The `Installed Packages:` list of the full `ofed_info`; empty for `ofed_info -s`.
    pub installed_packages: Vec<String>,
}

/// One component entry of the full `ofed_info`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OfedComponent {
    /// The component name (`perftest`, `mlnx-ofa_kernel`).
    pub name: String,
    /// The source it was built from: a source package path or URL, or a git repository URL.
    pub source: String,
    /// The git branch printed after a repository URL, if any.
    pub branch: Option<String>,
    /// The git commit of a repository source, if printed.
    pub commit: Option<String>,
}
