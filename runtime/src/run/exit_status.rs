//! How a run ended, as one exit code a script or CI can branch on: a stop is not a failure.

use serde::Serialize;

/// The four ways a run ends; `cairn --help` and the README list their codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ExitStatus {
    /// 0: every host finished.
    Succeeded,
    /// 1: some host (or the controller) failed.
    Failed,
    /// 2: a usage, runbook or journal error.
    Error,
    /// 130: a signal (Ctrl-C, SIGTERM, SIGHUP) stopped the run before every host finished;
    /// `cairn resume` continues it.
    Stopped,
}

impl ExitStatus {
    /// The process exit code: 0, 1, 2 or 130 (128 + SIGINT, as shells report a Ctrl-C).
    pub fn code(self) -> u8 {
        match self {
            Self::Succeeded => 0,
            Self::Failed => 1,
            Self::Error => 2,
            Self::Stopped => 130,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::ExitStatus;

    #[test]
    fn each_status_has_its_own_code_and_name() {
        let all = [
            ExitStatus::Succeeded,
            ExitStatus::Failed,
            ExitStatus::Error,
            ExitStatus::Stopped,
        ];
        let codes: Vec<u8> = all.iter().map(|s| s.code()).collect();
        assert_eq!(codes, [0, 1, 2, 130]);
        let names: Vec<String> = all
            .iter()
            .map(|s| serde_json::to_string(s).unwrap_or_default())
            .collect();
        assert_eq!(
            names,
            ["\"succeeded\"", "\"failed\"", "\"error\"", "\"stopped\""]
        );
    }
}
