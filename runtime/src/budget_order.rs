//! The order in which hosts waiting for the disruption budget get a freed place: a host's
//! window (declared unavailable, or maintenance mode: a VM powered off, a firmware burn and a
//! reboot) before a lone reboot, and in arrival order among equals.
//!
//! Why windows first: a window is the long disruption of a roll and a reboot the short one
//! (recipe 1: an ESXi host's window is tens of minutes, a VM's OFED reboot two). Served as they
//! come, the VMs' reboots took places while ESXi hosts waited, so the last ESXi windows ran
//! with places idle and nothing short left to fill them; served windows first, the reboots
//! queue up and fill the places the last windows leave, as longest-first scheduling does.
//! No host waits for ever: the windows are finite, and a reboot is only passed over by a
//! window that can take a place at that moment.

use std::collections::BTreeMap;

/// Who waits for the budget, each with its place in the order.
#[derive(Debug, Default)]
pub(crate) struct WaitOrder {
    waiting: BTreeMap<String, (u8, u64)>,
    arrivals: u64,
}

impl WaitOrder {
    /// `host` waits for a place, of `rank` (0 a window, 1 a reboot: lower goes first; once: a
    /// host already waiting keeps its turn).
    pub(crate) fn enter(&mut self, host: &str, rank: u8) {
        if self.waiting.contains_key(host) {
            return;
        }
        self.arrivals += 1;
        self.waiting.insert(host.to_owned(), (rank, self.arrivals));
    }

    /// `host` no longer waits: it took a place, failed or was stopped.
    pub(crate) fn leave(&mut self, host: &str) {
        self.waiting.remove(host);
    }

    /// A waiting host ahead of `host` (which may not be waiting yet) that could take a place
    /// now (`could_take`), and to which `host` leaves it.
    pub(crate) fn ahead_of(
        &self,
        host: &str,
        rank: u8,
        could_take: impl Fn(&str) -> bool,
    ) -> Option<&str> {
        let mine = self.waiting.get(host).copied().unwrap_or((rank, u64::MAX));
        self.waiting
            .iter()
            .filter(|(other, key)| other.as_str() != host && **key < mine)
            .map(|(other, _)| other.as_str())
            .find(|other| could_take(other))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const WINDOW: u8 = 0;
    const REBOOT: u8 = 1;

    #[test]
    fn a_window_goes_before_a_reboot_and_equals_in_arrival_order() {
        let mut order = WaitOrder::default();
        order.enter("vm01", REBOOT);
        order.enter("esx02", WINDOW);
        order.enter("esx03", WINDOW);
        let anyone = |_: &str| true;
        assert_eq!(order.ahead_of("vm01", REBOOT, anyone), Some("esx02"));
        assert_eq!(order.ahead_of("esx03", WINDOW, anyone), Some("esx02"));
        assert_eq!(order.ahead_of("esx02", WINDOW, anyone), None);
        // A newcomer queues behind those waiting for the same.
        assert_eq!(order.ahead_of("esx04", WINDOW, anyone), Some("esx02"));
        // Only a host that could take the place now is let go first.
        assert_eq!(
            order.ahead_of("vm01", REBOOT, |h| h == "esx03"),
            Some("esx03")
        );
        assert_eq!(order.ahead_of("vm01", REBOOT, |_| false), None);
        order.leave("esx02");
        order.leave("esx03");
        assert_eq!(order.ahead_of("vm01", REBOOT, anyone), None);
    }
}
