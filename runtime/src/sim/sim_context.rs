//! What a simulated tool sees of its host while it runs.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use serde::Serialize;
use serde::de::DeserializeOwned;

use super::sim_state::SimState;
use super::{BootMarker, SimBoot};
use crate::{Cancel, Clock};

static NULL: serde_json::Value = serde_json::Value::Null;

/// The host as one tool sees it during one command, boot or initialisation.
///
/// Changes to files, marks and the tool's state are saved with the host's state when the command
/// ends.
pub struct SimContext<'a> {
    boot_marker: BootMarker,
    clock: &'a Clock,
    dir: &'a std::path::Path,
    host: &'a str,
    interrupt: Option<&'a crate::Cancel>,
    /// The operator stopped the command during a wait (the REPL's Ctrl-C).
    pub(crate) interrupted: bool,
    options: &'a BTreeMap<String, String>,
    /// The options asked for, so the host knows what its first state was made from.
    options_read: std::cell::RefCell<BTreeSet<String>>,
    pub(crate) reboot_requested: bool,
    slept: Duration,
    state: &'a mut SimState,
    stdin: Option<&'a str>,
    pub(crate) timed_out: bool,
    timeout: Option<Duration>,
    tool: &'a str,
}

/// The parts of a host a [`SimContext`] is built from.
pub(crate) struct SimContextParts<'a> {
    pub(crate) boot_marker: BootMarker,
    pub(crate) clock: &'a Clock,
    pub(crate) dir: &'a std::path::Path,
    pub(crate) host: &'a str,
    pub(crate) interrupt: Option<&'a crate::Cancel>,
    pub(crate) options: &'a BTreeMap<String, String>,
    pub(crate) stdin: Option<&'a str>,
    pub(crate) timeout: Option<Duration>,
}

impl<'a> SimContext<'a> {
    /// The context of `tool` over `state`.
    pub(crate) fn new(parts: &SimContextParts<'a>, state: &'a mut SimState, tool: &'a str) -> Self {
        Self {
            boot_marker: parts.boot_marker,
            clock: parts.clock,
            dir: parts.dir,
            host: parts.host,
            interrupt: parts.interrupt,
            interrupted: false,
            options: parts.options,
            options_read: std::cell::RefCell::default(),
            reboot_requested: false,
            slept: Duration::ZERO,
            state,
            stdin: parts.stdin,
            timed_out: false,
            timeout: parts.timeout,
            tool,
        }
    }

    /// Runs tool `tool`'s initialisation `init` over `state`, which then keeps the options it
    /// read as what the host was made from (`made_from`).
    pub(crate) fn initialise(
        parts: &SimContextParts<'a>,
        state: &'a mut SimState,
        tool: &'a str,
        init: impl FnOnce(&mut Self),
    ) {
        let mut context = SimContext::new(parts, state, tool);
        init(&mut context);
        let made_from = context.options_read();
        context.state.made_from.extend(made_from);
    }

    /// The folder that holds this host's state directory and its peers' (`<state>/sim`), so a
    /// tool modelling a fabric can read the other end's state, read-only.
    pub fn sim_root(&self) -> Option<&std::path::Path> {
        self.dir.parent()
    }

    /// The host's name.
    pub fn host_name(&self) -> &str {
        self.host
    }

    /// One option of the host's `sim:` address.
    pub fn option(&self, key: &str) -> Option<&str> {
        self.options_read.borrow_mut().insert(key.to_owned());
        self.options.get(key).map(String::as_str)
    }

    /// The options asked for so far, with their values (`None`: not given), but the faults
    /// (`fault_...`): a lab injects and removes those between runs of one host.
    pub(crate) fn options_read(&self) -> BTreeMap<String, Option<String>> {
        (self.options_read.borrow().iter())
            .filter(|key| !key.starts_with("fault_"))
            .map(|key| (key.clone(), self.options.get(key).cloned()))
            .collect()
    }

    /// The host's clock.
    pub fn clock(&self) -> &Clock {
        self.clock
    }

    /// The time on the host's clock, in milliseconds (Unix epoch for a real clock).
    pub fn now_millis(&self) -> u64 {
        self.clock.now_millis()
    }

    /// Lets `duration` pass on the host's clock, within the command's timeout. Returns `false`
    /// when the timeout cut the sleep short: the command is then reported as timed out.
    pub fn sleep(&mut self, duration: Duration) -> bool {
        let allowed = self.timeout.map_or(duration, |limit| {
            duration.min(limit.saturating_sub(self.slept))
        });
        let never = Cancel::default();
        if self
            .clock
            .sleep(allowed, self.interrupt.unwrap_or(&never))
            .is_err()
        {
            // Killed during the wait, as Ctrl-C kills a real command.
            self.interrupted = true;
            return false;
        }
        self.slept += allowed;
        if allowed < duration {
            self.timed_out = true;
        }
        !self.timed_out
    }

    /// The command's input, if the caller gave any.
    pub fn stdin(&self) -> Option<&str> {
        self.stdin
    }

    /// How long the command may run, if the caller set a limit.
    pub fn timeout(&self) -> Option<Duration> {
        self.timeout
    }

    /// How the host's model shows a boot.
    pub fn boot_marker(&self) -> BootMarker {
        self.boot_marker
    }

    /// Every boot so far, oldest first; the last is the current one.
    pub fn boots(&self) -> &[SimBoot] {
        &self.state.boots
    }

    /// The current boot's number (1 for the first boot).
    pub fn boot_number(&self) -> u64 {
        self.state.current_boot().map_or(0, |boot| boot.number)
    }

    /// A file of the virtual file system.
    pub fn file(&self, path: &str) -> Option<&str> {
        self.state.files.get(path).map(String::as_str)
    }

    /// The whole virtual file system: absolute path to contents.
    pub fn files(&self) -> &BTreeMap<String, String> {
        &self.state.files
    }

    /// Creates or replaces a file.
    pub fn write_file(&mut self, path: impl Into<String>, contents: impl Into<String>) {
        self.state.files.insert(path.into(), contents.into());
    }

    /// Appends to a file, creating it if needed.
    pub fn append_file(&mut self, path: &str, text: &str) {
        self.state
            .files
            .entry(path.to_owned())
            .or_default()
            .push_str(text);
    }

    /// Removes a file, returning its contents.
    pub fn remove_file(&mut self, path: &str) -> Option<String> {
        self.state.files.remove(path)
    }

    /// This tool's state slot: `null` until the tool stores something.
    pub fn state(&self) -> &serde_json::Value {
        self.state.tools.get(self.tool).unwrap_or(&NULL)
    }

    /// This tool's state slot, for changing.
    pub fn state_mut(&mut self) -> &mut serde_json::Value {
        self.state
            .tools
            .entry(self.tool.to_owned())
            .or_insert(serde_json::Value::Null)
    }

    /// This tool's state as `T`; `T::default()` while the slot is `null`.
    pub fn load_state<T: DeserializeOwned + Default>(&self) -> Result<T, serde_json::Error> {
        match self.state() {
            serde_json::Value::Null => Ok(T::default()),
            value => T::deserialize(value),
        }
    }

    /// Replaces this tool's state with `value`.
    pub fn save_state<T: Serialize>(&mut self, value: &T) -> Result<(), serde_json::Error> {
        *self.state_mut() = serde_json::to_value(value)?;
        Ok(())
    }

    /// Another tool's state slot, read-only (a fabric model reading the adapter's settings).
    pub fn tool_state(&self, tool: &str) -> Option<&serde_json::Value> {
        self.state.tools.get(tool)
    }

    /// Sets a named flag on the host, e.g. `reboot_pending` or `device_missing`.
    pub fn mark(&mut self, name: impl Into<String>) {
        self.state.marks.insert(name.into());
    }

    /// Clears a named flag; returns whether it was set.
    pub fn unmark(&mut self, name: &str) -> bool {
        self.state.marks.remove(name)
    }

    /// Whether a named flag is set.
    pub fn is_marked(&self, name: &str) -> bool {
        self.state.marks.contains(name)
    }

    /// Every flag set on the host.
    pub fn marks(&self) -> &BTreeSet<String> {
        &self.state.marks
    }

    /// Reboots the host once the command has answered, as the `reboot` command does (for tools
    /// such as `esxcli system shutdown reboot`).
    pub fn request_reboot(&mut self) {
        self.reboot_requested = true;
    }
}
