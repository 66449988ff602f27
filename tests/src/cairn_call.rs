//! One `cairn` call built up before it runs, and the checks a test makes on what it left: each
//! check that fails prints what the run printed, so a failure says why without a rerun.

use std::path::Path;
use std::process::Command;

use crate::{Lab, Run};

/// A `cairn ARGS` call in a lab, given its environment before it runs.
pub struct CairnCall {
    command: Command,
}

impl CairnCall {
    /// Sets the environment variable `key` to `value` for this call.
    pub fn env(mut self, key: &str, value: impl AsRef<std::ffi::OsStr>) -> Self {
        self.command.env(key, value);
        self
    }

    /// Sets each `(key, value)` environment variable for this call.
    pub fn envs(mut self, vars: &[(&str, &str)]) -> Self {
        for (key, value) in vars {
            self.command.env(key, value);
        }
        self
    }

    /// Runs in `dir` instead of the lab folder.
    pub fn current_dir(mut self, dir: impl AsRef<Path>) -> Self {
        self.command.current_dir(dir);
        self
    }

    /// Runs the call to its end.
    pub fn run(mut self) -> Run {
        Run::from(
            self.command
                .output()
                .unwrap_or_else(|e| panic!("cairn runs: {e}")),
        )
    }
}

/// The run of the runbook and inventory a lab made by [`Lab::with_book`] holds.
pub const RUN_BOOK: [&str; 4] = ["run", "book.rhai", "-i", "lab.toml"];

/// [`RUN_BOOK`] and then `extra`.
pub fn run_book_args<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    [&RUN_BOOK[..], extra].concat()
}

impl Lab {
    /// A lab holding the runbook `book` as `book.rhai` and the inventory `inventory` as
    /// `lab.toml`.
    pub fn with_book(book: &str, inventory: &str) -> Self {
        let lab = Self::new();
        lab.write("book.rhai", book);
        lab.write("lab.toml", inventory);
        lab
    }

    /// Runs `cairn run book.rhai -i lab.toml EXTRA` (see [`run_book_args`]).
    pub fn run_book(&self, extra: &[&str]) -> Run {
        self.cairn(&run_book_args(extra))
    }

    /// A `cairn ARGS` call in the lab, to give environment variables or a folder before `run`.
    pub fn call(&self, args: &[&str]) -> CairnCall {
        CairnCall {
            command: self.command(args),
        }
    }

    /// Runs `cairn ARGS`, which must exit with `code` and say every one of `needles` on stderr.
    #[track_caller]
    pub fn assert_fails(&self, args: &[&str], code: i32, needles: &[&str]) -> Run {
        let run = self.cairn(args).fails(code);
        for needle in needles {
            run.stderr_has(needle);
        }
        run
    }
}

impl Run {
    /// Both streams, for a failure message.
    pub fn said(&self) -> String {
        format!(
            "exit code {}\n--- stdout\n{}\n--- stderr\n{}",
            self.code, self.stdout, self.stderr
        )
    }

    /// What the run printed: stdout, a line break, then stderr.
    pub fn output(&self) -> String {
        format!("{}\n{}", self.stdout, self.stderr)
    }

    /// The run, which must have exited 0.
    #[track_caller]
    pub fn succeeds(self) -> Self {
        assert_eq!(self.code, 0, "cairn failed\n{}", self.said());
        self
    }

    /// The run, which must have exited with `code`.
    #[track_caller]
    pub fn fails(self, code: i32) -> Self {
        assert_eq!(self.code, code, "the wrong exit code\n{}", self.said());
        self
    }

    /// Checks that stderr contains `needle`.
    #[track_caller]
    pub fn stderr_has(&self, needle: &str) -> &Self {
        assert!(
            self.stderr.contains(needle),
            "stderr lacks {needle:?}\n--- stderr\n{}",
            self.stderr
        );
        self
    }

    /// Checks that stderr does not contain `needle`.
    #[track_caller]
    pub fn stderr_lacks(&self, needle: &str) -> &Self {
        assert!(
            !self.stderr.contains(needle),
            "stderr has {needle:?}\n--- stderr\n{}",
            self.stderr
        );
        self
    }

    /// Checks that stdout contains `needle`.
    #[track_caller]
    pub fn stdout_has(&self, needle: &str) -> &Self {
        assert!(
            self.stdout.contains(needle),
            "stdout lacks {needle:?}\n--- stdout\n{}",
            self.stdout
        );
        self
    }

    /// Checks that stdout does not contain `needle`.
    #[track_caller]
    pub fn stdout_lacks(&self, needle: &str) -> &Self {
        assert!(
            !self.stdout.contains(needle),
            "stdout has {needle:?}\n--- stdout\n{}",
            self.stdout
        );
        self
    }
}
