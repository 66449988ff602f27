//! What a fenced command's exit says, and what the fence recorded of a step.

use super::{FENCED_EXIT, STATE_EXIT, UNFINISHED_EXIT, USAGE_EXIT, VOLATILE_EXIT};

/// The fence's verdict on one call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FenceVerdict {
    /// The command ran (or had run: its record was replayed) and exited with this code.
    Ran(i32),
    /// A higher epoch (or another owner at this one) holds the host: this controller must stop.
    Fenced(String),
    /// The step was started before and never finished.
    Unfinished(String),
    /// The fence folder would not survive a reboot.
    Volatile(String),
    /// The fence could not keep its state, or was called wrongly.
    Broken(String),
}

impl FenceVerdict {
    /// Reads the exit code and standard error of a fenced call. Codes 240-244 are the fence's
    /// own only with its `cairn-fence:` line; without it they are the command's.
    pub fn judge(exit: i32, stderr: &str) -> Self {
        let said = stderr
            .lines()
            .rev()
            .find_map(|line| line.strip_prefix("cairn-fence: "))
            .map(str::to_owned);
        match (exit, said) {
            (FENCED_EXIT, Some(said)) => Self::Fenced(said),
            (UNFINISHED_EXIT, Some(said)) => Self::Unfinished(said),
            (VOLATILE_EXIT, Some(said)) => Self::Volatile(said),
            (USAGE_EXIT | STATE_EXIT, Some(said)) => Self::Broken(said),
            (code, _) => Self::Ran(code),
        }
    }
}

/// What the fence recorded of a step (`fence.sh query`), for settling an open intent after a
/// takeover: never ran, ran with a known result, or started with no known outcome.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StepRecord {
    /// Not started: it never ran, and under a raised epoch it never will.
    None,
    /// Started at this epoch by this owner, never finished.
    Started {
        /// The epoch it ran under.
        epoch: u64,
        /// Who ran it.
        owner: String,
    },
    /// Finished.
    Done {
        /// Its exit code.
        code: i32,
        /// The epoch it ran under.
        epoch: u64,
        /// Who ran it.
        owner: String,
        /// Its output (standard output and error together).
        output: String,
    },
}

impl StepRecord {
    /// Parses `fence.sh query`'s output; `None` for anything else.
    pub fn parse(text: &str) -> Option<Self> {
        let (first, rest) = text.split_once('\n').unwrap_or((text, ""));
        let mut words = first.split(' ');
        match words.next()? {
            "none" => Some(Self::None),
            "started" => Some(Self::Started {
                epoch: words.next()?.parse().ok()?,
                owner: words.next()?.to_owned(),
            }),
            "done" => Some(Self::Done {
                code: words.next()?.parse().ok()?,
                epoch: words.next()?.parse().ok()?,
                owner: words.next()?.to_owned(),
                output: rest.to_owned(),
            }),
            _ => None,
        }
    }
}
