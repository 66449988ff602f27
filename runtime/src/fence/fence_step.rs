//! What a changing command carries to its host's fence: who calls, at which epoch, as which step.

/// One changing command's call through the fence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FenceStep {
    /// The caller's lease epoch: the host refuses it when it has seen a higher one.
    pub epoch: u64,
    /// The caller, `RUN@CONTROLLER:PID`.
    pub owner: String,
    /// The step, unique per command ([`step_id`]).
    pub step: String,
}

/// The step id of command `command` (1-based) of the attempt of action `seq` whose intent was
/// journaled at `intent_at` (milliseconds): `RUN.SEQ.AT.N`. The intent's time tells attempts of
/// one action apart and is in the journal, so a resume names the steps of the attempt it settles.
/// Characters of the run id the fence does not keep become `-`.
pub fn step_id(run: &str, seq: u64, intent_at: u64, command: u64) -> String {
    format!("{}.{seq}.{intent_at}.{command}", run_word(run))
}

/// Run id `run` as its steps start ([`step_id`]): characters the fence does not keep, and the
/// dot that separates a step's parts, become `-`.
pub fn run_word(run: &str) -> String {
    run.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "_-".contains(c) {
                c
            } else {
                '-'
            }
        })
        .collect()
}

/// The step of a takeover's claim, `true` run under the fence at the new `epoch` before the
/// host's first action (`claim.EPOCH`). A claim is no action of the runbook: the previous
/// owner's open intent, which the takeover settles from the fence's records right after it,
/// must keep its record.
pub fn claim_step(epoch: u64) -> String {
    format!("claim.{epoch}")
}

/// Whether `step` is a takeover's claim ([`claim_step`]); a runbook's steps start with the run
/// id, which starts with a digit.
pub fn is_claim(step: &str) -> bool {
    step.starts_with("claim.")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_step_id_names_run_action_attempt_and_command_in_words_the_fence_keeps() {
        assert_eq!(
            step_id("20261201-101500", 7, 1_796_120_103_000, 2),
            "20261201-101500.7.1796120103000.2"
        );
        // A dot in the run id would make the step's parts ambiguous; a slash a path.
        assert_eq!(step_id("a.b/c", 1, 2, 3), "a-b-c.1.2.3");
        assert_ne!(step_id("r", 1, 2, 3), step_id("r", 1, 2, 4));
        assert_ne!(step_id("r", 1, 2, 3), step_id("r", 1, 5, 3));
    }
}
