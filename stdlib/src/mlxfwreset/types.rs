//! What `mlxfwreset query` and `mlxfwreset status` print, typed.

use serde::{Deserialize, Serialize};

/// One row of a query section: a reset level, type, sync or request method.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResetOption {
    /// `3`.
    pub number: u32,
    /// `Driver restart and PCI reset`.
    pub description: String,
    /// `-Supported` (else `-Not Supported`).
    pub supported: bool,
    /// Marked `(default)`: the tool's choice when none is given.
    pub default: bool,
}

/// `mlxfwreset -d DEV query`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResetQuery {
    /// `Reset-levels:` (0 live patch, 1 immediate reset, 3 driver restart and PCI reset, 4
    /// warm reboot).
    pub levels: Vec<ResetOption>,
    /// `Reset-types (relevant only for reset-levels ...)`.
    pub types: Vec<ResetOption>,
    /// `Reset-sync` / `Reset sync (relevant only for reset-level 3)`.
    pub syncs: Vec<ResetOption>,
    /// `Reset request method (relevant only for reset-level 3)`.
    pub methods: Vec<ResetOption>,
    /// `-E-` lines, without the tag (`There is no supported reset-level.`).
    pub errors: Vec<String>,
    /// `-W-`/`-I-` lines and any other text, as printed.
    pub notes: Vec<String>,
}

impl ResetQuery {
    /// The levels marked `-Supported`, lowest first.
    pub fn supported_levels(&self) -> Vec<u32> {
        let mut levels: Vec<u32> = self
            .levels
            .iter()
            .filter(|l| l.supported)
            .map(|l| l.number)
            .collect();
        levels.sort_unstable();
        levels
    }
}

/// One row of `Pending NVCONFIG parameters:`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PendingParam {
    pub name: String,
    pub default: String,
    pub current: String,
    pub next_boot: String,
}

/// `mlxfwreset -d DEV status`: what waits for a reset.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResetStatus {
    /// `Status for device: DEV`.
    pub device: Option<String>,
    /// `Pending FW version : 16.35.2000`; `None` for `N/A (FW is up to date)`.
    pub pending_fw_version: Option<String>,
    /// `Running FW version : 16.32.1010`.
    pub running_fw_version: Option<String>,
    /// The NVCONFIG parameters whose next-boot value differs from the current one.
    pub pending_nvconfig: Vec<PendingParam>,
    /// `Description action : Driver restart and PCI reset (Level 3)` or `No action required`.
    pub description_action: Option<String>,
    /// `Command required : mlxfwreset -d DEV reset --level 3 ...`.
    pub command_required: Option<String>,
    /// `Reasons : Pending FW update, Pending NVCONFIG parameter change`.
    pub reasons: Vec<String>,
    /// `-E-` lines, without the tag.
    pub errors: Vec<String>,
}

impl ResetStatus {
    /// Whether a firmware image or NVCONFIG change waits for a reset.
    pub fn pending(&self) -> bool {
        self.pending_fw_version.is_some() || !self.pending_nvconfig.is_empty()
    }
}
