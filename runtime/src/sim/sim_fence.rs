//! The simulated host's fence: what `fence/fence.sh` does on a real host, kept in the host's
//! folder beside its state ([`FENCE_FILE`]), so that runs against the simulator (and the
//! torture harness) meet the same refusals.
//!
//! As the script does, it keeps the highest epoch seen and its owner, refuses a lower epoch (or
//! another owner at the same one) with exit 241 and a `cairn-fence:` line, replays a step
//! already done, refuses a step started and never finished with 242, and records each step
//! `started` then `done` with its exit code and output. As on a real host, `started` is written
//! before the command runs and `done` after its effect is saved: a crash between the two leaves
//! a step started and not done, whose outcome nobody knows (the resume asks). The fence is its
//! own file, not part of the host's state, since it is cairn's bookkeeping on the host, not
//! the host's configuration. It keeps only the records of the latest action (the one a
//! takeover may have to settle), not every step of the run.
//! Each changing command it runs is appended to [`FENCED_LOG`] in the host's folder.

use std::collections::BTreeMap;
use std::path::Path;

use super::{SimError, json_log};
use crate::ExecOutput;
use crate::fence::{FENCED_EXIT, FenceStep, StepRecord, UNFINISHED_EXIT};

/// The fence's own file in a simulated host's folder, as fence.sh keeps its own folder.
pub(crate) const FENCE_FILE: &str = "fence.json";

/// The log of changing commands a simulated host ran under its fence: one JSON object a line
/// ([`FencedLine`]), which the torture harness reads to count a step run twice.
pub const FENCED_LOG: &str = "fenced.log";

/// One line of [`FENCED_LOG`].
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FencedLine {
    /// The step id, `RUN.SEQ.AT.N`.
    pub step: String,
    /// The caller's epoch.
    pub epoch: u64,
    /// The caller, `RUN@CONTROLLER:PID`.
    pub owner: String,
    /// The command, its arguments joined by spaces (secrets redacted).
    pub command: String,
}

/// The fence's state on a simulated host.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub(crate) struct SimFence {
    /// The highest epoch seen.
    pub(crate) epoch: u64,
    /// Who called at it.
    pub(crate) owner: String,
    /// The latest action's steps (`RUN.SEQ.AT.`), by step id.
    #[serde(default)]
    pub(crate) steps: BTreeMap<String, SimStep>,
}

/// What the fence recorded of one step.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub(crate) struct SimStep {
    /// The epoch it ran under.
    pub(crate) epoch: u64,
    /// Who ran it.
    pub(crate) owner: String,
    /// Its result, once done.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) done: Option<ExecOutput>,
}

/// What the fence makes of a call before the command runs.
pub(crate) enum Admission {
    /// Run it (its step is recorded started).
    Run,
    /// Answer this instead of running it: a refusal, or a done step's replayed result.
    Answer(ExecOutput),
}

impl SimFence {
    /// The fence of the host whose folder is `dir`; a host that has seen none has epoch 0.
    pub(crate) fn load(dir: &Path) -> Result<Self, SimError> {
        let path = dir.join(FENCE_FILE);
        match std::fs::read_to_string(&path) {
            Ok(text) => serde_json::from_str(&text).map_err(|e| SimError::Io {
                action: "read the fence of",
                path,
                source: std::io::Error::new(std::io::ErrorKind::InvalidData, e),
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Self::default()),
            Err(source) => Err(SimError::Io {
                action: "read the fence of",
                path,
                source,
            }),
        }
    }

    /// Writes the fence into `dir` atomically and privately (`0600`, a synced temporary
    /// renamed over it), as fence.sh writes its records.
    pub(crate) fn save(&self, dir: &Path) -> Result<(), SimError> {
        let path = dir.join(FENCE_FILE);
        let io = |source| SimError::Io {
            action: "write the fence of",
            path: path.clone(),
            source,
        };
        let text = serde_json::to_string_pretty(self)
            .map_err(|e| io(std::io::Error::new(std::io::ErrorKind::InvalidData, e)))?;
        crate::private_files::write_atomic(&path, text.as_bytes()).map_err(io)
    }

    /// Raises the epoch seen to `epoch` for `owner` without running anything (a takeover
    /// claiming the host before its first action); the refusal's `cairn-fence:` text when the
    /// host has seen a higher epoch, or the same one from another owner.
    pub(crate) fn claim(&mut self, epoch: u64, owner: &str) -> Result<(), String> {
        if epoch < self.epoch {
            return Err(format!(
                "fenced: epoch {epoch} is below {}, which {} holds",
                self.epoch, self.owner
            ));
        }
        if epoch == self.epoch && owner != self.owner {
            return Err(format!("fenced: epoch {epoch} is already {}'s", self.owner));
        }
        self.epoch = epoch;
        self.owner = owner.to_owned();
        Ok(())
    }

    /// Removes run `run`'s step records, as `fence.sh prune` does: fenced as a claim is; how
    /// many steps went.
    pub(crate) fn prune(&mut self, epoch: u64, owner: &str, run: &str) -> Result<u64, String> {
        self.claim(epoch, owner)?;
        let prefix = format!("{}.", crate::fence::run_word(run));
        let before = self.steps.len();
        self.steps.retain(|id, _| !id.starts_with(&prefix));
        Ok(u64::try_from(before - self.steps.len()).unwrap_or(u64::MAX))
    }

    /// Admits `step` (or not), raising the epoch seen and recording the step started.
    pub(crate) fn admit(&mut self, step: &FenceStep) -> Admission {
        if step.epoch < self.epoch {
            return refuse(
                FENCED_EXIT,
                &format!(
                    "fenced: epoch {} is below {}, which {} holds",
                    step.epoch, self.epoch, self.owner
                ),
            );
        }
        if step.epoch == self.epoch && step.owner != self.owner {
            return refuse(
                FENCED_EXIT,
                &format!("fenced: epoch {} is already {}'s", step.epoch, self.owner),
            );
        }
        if step.epoch > self.epoch {
            self.epoch = step.epoch;
            self.owner = step.owner.clone();
        }
        match self.steps.get(&step.step) {
            Some(SimStep {
                done: Some(done), ..
            }) => return Admission::Answer(done.clone()),
            Some(started) => {
                return refuse(
                    UNFINISHED_EXIT,
                    &format!(
                        "step {} started before ({} {}) and never finished",
                        step.step, started.epoch, started.owner
                    ),
                );
            }
            None => {}
        }
        // Only the latest action's records are kept: a takeover settles one open intent. Its
        // claim (over SSH, a step of its own) is no action: the open intent it is about to
        // settle keeps its record, as fence.sh keeps every step's.
        if !crate::fence::is_claim(&step.step) {
            let action = action_of(&step.step);
            self.steps.retain(|id, _| action_of(id) == action);
        }
        self.steps.insert(
            step.step.clone(),
            SimStep {
                epoch: step.epoch,
                owner: step.owner.clone(),
                done: None,
            },
        );
        Admission::Run
    }

    /// Records `step` done with `output`, secrets redacted: the simulated host's state is
    /// kept in the controller's folder, where no secret may be written (its command log is
    /// redacted likewise).
    pub(crate) fn finish(&mut self, step: &FenceStep, output: &ExecOutput) {
        if let Some(record) = self.steps.get_mut(&step.step) {
            let mut kept = output.clone();
            kept.stdout = crate::secrets::redact(&kept.stdout);
            kept.stderr = crate::secrets::redact(&kept.stderr);
            record.done = Some(kept);
        }
    }
}

/// What `fence` recorded of `step`, as `fence.sh query` tells it.
pub(crate) fn record_of(fence: Option<&SimFence>, step: &str) -> StepRecord {
    match fence.and_then(|fence| fence.steps.get(step)) {
        None => StepRecord::None,
        Some(SimStep {
            epoch,
            owner,
            done: None,
        }) => StepRecord::Started {
            epoch: *epoch,
            owner: owner.clone(),
        },
        Some(SimStep {
            epoch,
            owner,
            done: Some(done),
        }) => StepRecord::Done {
            code: i32::try_from(done.code).unwrap_or(i32::MAX),
            epoch: *epoch,
            owner: owner.clone(),
            output: format!("{}{}", done.stdout, done.stderr),
        },
    }
}

/// `RUN.SEQ.AT` of the step `RUN.SEQ.AT.N`: the attempt of an action.
fn action_of(step: &str) -> &str {
    step.rsplit_once('.').map_or(step, |(action, _)| action)
}

fn refuse(code: i32, said: &str) -> Admission {
    Admission::Answer(ExecOutput {
        code: code.into(),
        stderr: format!("cairn-fence: {said}\n"),
        stdout: String::new(),
    })
}

/// Appends the changing command `argv` of `step` to the host's [`FENCED_LOG`] in `dir`.
pub(crate) fn log_fenced(dir: &Path, step: &FenceStep, argv: &[String]) -> Result<(), SimError> {
    let command: Vec<String> = argv.iter().map(|a| crate::secrets::redact(a)).collect();
    let line = FencedLine {
        step: step.step.clone(),
        epoch: step.epoch,
        owner: step.owner.clone(),
        command: command.join(" "),
    };
    json_log::append(&dir.join(FENCED_LOG), &line).map(drop)
}

/// The lines of the [`FENCED_LOG`] in `dir`, oldest first; a torn last line is left out.
pub fn read_fenced_log(dir: &Path) -> Vec<FencedLine> {
    json_log::read(&dir.join(FENCED_LOG))
}

/// Passes a changing command through the fence in `dir`: `Some` answer (a refusal, or a done
/// step's recorded result) instead of running it; `None` to run it, recorded started and
/// logged to [`FENCED_LOG`]. The fence is saved either way (the epoch it raised).
pub(crate) fn admit_in(
    dir: &Path,
    step: &FenceStep,
    argv: &[String],
) -> Result<Option<ExecOutput>, SimError> {
    let mut fence = SimFence::load(dir)?;
    let admission = fence.admit(step);
    fence.save(dir)?;
    match admission {
        Admission::Answer(answer) => Ok(Some(answer)),
        Admission::Run => {
            log_fenced(dir, step, argv)?;
            Ok(None)
        }
    }
}

/// Records a fenced command done with its output in the fence in `dir`, after its effect was
/// saved.
pub(crate) fn finish_in(dir: &Path, step: &FenceStep, output: &ExecOutput) -> Result<(), SimError> {
    let mut fence = SimFence::load(dir)?;
    fence.finish(step, output);
    fence.save(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(epoch: u64, owner: &str, id: &str) -> FenceStep {
        FenceStep {
            epoch,
            owner: owner.into(),
            step: id.into(),
        }
    }

    fn ran(code: i64) -> ExecOutput {
        ExecOutput {
            code,
            stderr: String::new(),
            stdout: "out\n".into(),
        }
    }

    #[test]
    fn a_lower_epoch_or_another_owner_at_the_same_is_refused_as_fenced() {
        let mut fence = SimFence::default();
        assert!(matches!(
            fence.admit(&step(10, "b@c:2", "r.1.5.1")),
            Admission::Run
        ));
        for (epoch, owner) in [(9, "a@c:1"), (10, "a@c:1")] {
            match fence.admit(&step(epoch, owner, "r.2.5.1")) {
                Admission::Answer(out) => {
                    assert_eq!(out.code, i64::from(FENCED_EXIT));
                    assert!(
                        out.stderr.starts_with("cairn-fence: fenced: "),
                        "{}",
                        out.stderr
                    );
                }
                Admission::Run => panic!("epoch {epoch} by {owner} ran"),
            }
        }
        assert_eq!((fence.epoch, fence.owner.as_str()), (10, "b@c:2"));
        assert!(matches!(
            fence.admit(&step(11, "a@c:1", "r.2.5.1")),
            Admission::Run
        ));
    }

    #[test]
    fn a_claim_raises_the_epoch_so_the_paused_holder_is_fenced_before_the_new_one_acts() {
        let mut fence = SimFence::default();
        // The old holder ran a step at epoch 10, then was paused past its TTL.
        assert!(matches!(
            fence.admit(&step(10, "r@old:1", "r.1.5.1")),
            Admission::Run
        ));
        // The taker claims at 11 before running anything.
        assert_eq!(fence.claim(11, "r@new:2"), Ok(()));
        assert!(fence.steps.len() == 1, "a claim runs no step");
        // Woken, the old holder's next command is refused although the new one sent none.
        match fence.admit(&step(10, "r@old:1", "r.2.6.1")) {
            Admission::Answer(out) => assert_eq!(out.code, i64::from(FENCED_EXIT)),
            Admission::Run => panic!("the paused holder acted after the claim"),
        }
        // A claim below what the host saw, or by another owner at the same epoch, is refused.
        assert!(
            fence
                .claim(10, "r@old:1")
                .is_err_and(|said| said.starts_with("fenced: "))
        );
        assert!(fence.claim(11, "r@third:3").is_err());
        assert_eq!(
            fence.claim(11, "r@new:2"),
            Ok(()),
            "the same claim again is fine"
        );
    }

    #[test]
    fn a_done_step_is_replayed_and_a_started_one_is_refused_as_unfinished() {
        let mut fence = SimFence::default();
        let first = step(10, "b@c:2", "r.1.5.1");
        assert!(matches!(fence.admit(&first), Admission::Run));
        fence.finish(&first, &ran(3));
        match fence.admit(&first) {
            Admission::Answer(out) => assert_eq!(out, ran(3)),
            Admission::Run => panic!("a done step ran again"),
        }
        let second = step(10, "b@c:2", "r.1.5.2");
        assert!(matches!(fence.admit(&second), Admission::Run));
        match fence.admit(&second) {
            Admission::Answer(out) => assert_eq!(out.code, i64::from(UNFINISHED_EXIT)),
            Admission::Run => panic!("a started step ran again"),
        }
        // The next action's first step drops the last action's records.
        assert!(matches!(
            fence.admit(&step(10, "b@c:2", "r.2.9.1")),
            Admission::Run
        ));
        assert_eq!(fence.steps.len(), 1);
    }

    #[test]
    fn a_takeovers_claim_over_ssh_keeps_the_open_intents_record_it_settles() {
        // The old owner's command ran to its end; its outcome never reached the journal.
        let mut fence = SimFence::default();
        let open = step(10, "r@old:1", "r.3.7.1");
        assert!(matches!(fence.admit(&open), Admission::Run));
        fence.finish(&open, &ran(0));
        // The takeover claims the host as a step of its own (what cairn-simhost is sent), then
        // asks what the open intent's step did: done, so it is not run again.
        let claim = step(11, "r@new:2", &crate::fence::claim_step(11));
        assert!(matches!(fence.admit(&claim), Admission::Run));
        fence.finish(&claim, &ran(0));
        assert!(
            matches!(record_of(Some(&fence), "r.3.7.1"), StepRecord::Done { .. }),
            "{:?}",
            record_of(Some(&fence), "r.3.7.1")
        );
    }
}
