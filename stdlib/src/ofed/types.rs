//! The typed result of `ofed_info`.

use serde::{Deserialize, Serialize};

/// What `ofed_info` (or `ofed_info -s`) reports.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OfedInfo {
    /// The distribution name before the version (`MLNX_OFED_LINUX`, `OFED-internal`).
    pub distribution: String,
    /// Which NVIDIA stack printed it, read from the distribution name.
    pub flavour: OfedFlavour,
    /// The version string as printed (`5.4-3.0.3.0`).
    pub version: String,
    /// The OFED release it is built on, which only the full `ofed_info` prints
    /// (`OFED-5.0-2.1.8` in `MLNX_OFED_LINUX-5.0-2.1.8.0 (OFED-5.0-2.1.8):`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub base_release: Option<String>,
    /// The components listed by the full `ofed_info`, in order; empty for `ofed_info -s`.
    pub components: Vec<OfedComponent>,
    /// The `Installed Packages:` list of the full `ofed_info` (package names; on Debian the
    /// name column of its `dpkg -l` rows, `:amd64` kept); empty for `ofed_info -s`.
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

/// The driver stack behind an `ofed_info` line. MLNX_OFED prints `MLNX_OFED_LINUX-<ver>:`
/// (`MLNX_OFED_LINUX-23.07-0.5.1.2:`, DaoCloud's OFED guide); DOCA-OFED, which replaced it,
/// prints `OFED-internal-<ver>:` (`OFED-internal-25.10-1.7.1:` after `apt-get install
/// doca-ofed` in NVIDIA's DGX Spark Aerial guide; `OFED-internal-26.01-1.0.0:` in the corpus).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OfedFlavour {
    /// MLNX_OFED (`MLNX_OFED_LINUX`), whose last release was an LTS.
    MlnxOfed,
    /// DOCA-OFED, the `doca-ofed` profile of DOCA-Host (`OFED-internal`).
    Doca,
    /// Any other distribution name (such as the community OFED's `OFED`).
    Other,
}

impl OfedFlavour {
    /// The flavour a distribution name stands for.
    pub fn of(distribution: &str) -> Self {
        if distribution.starts_with("MLNX_OFED") {
            Self::MlnxOfed
        } else if distribution == "OFED-internal" {
            Self::Doca
        } else {
            Self::Other
        }
    }

    /// The name scripts see (`mlnx_ofed`, `doca`, `other`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::MlnxOfed => "mlnx_ofed",
            Self::Doca => "doca",
            Self::Other => "other",
        }
    }
}
