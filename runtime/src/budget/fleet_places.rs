//! The disruption budget of a share of a run shared between controllers (`fleet.rs`): its
//! places taken in the store too, so that the limit counts the hosts down in every share.

use super::{DisruptionBudget, Full};

impl DisruptionBudget {
    /// Whether the other shares of a shared run leave `host` a place in every pool that
    /// covers it, taking it in the store if so; when not, the pool and the hosts that fill
    /// it. A store that fails is a full budget for now: the host waits and asks again.
    pub(super) fn fleet_place(&self, host: &str) -> Option<Full> {
        let fleet = self.fleet.as_ref()?;
        let pools: Vec<(String, usize)> = self
            .pools
            .iter()
            .filter(|p| p.covers(host))
            .map(|p| (p.group.clone().unwrap_or_default(), p.limit))
            .collect();
        if pools.is_empty() {
            return None;
        }
        let (group, limit) = self
            .pools
            .iter()
            .find(|p| p.covers(host))
            .map(|p| (p.group.clone(), p.limit))
            .unwrap_or_default();
        let holders = match fleet.take_place(host, &pools) {
            Ok(None) => return None,
            Ok(Some(hosts)) => hosts
                .into_iter()
                .map(|h| (h, "down in the shared run".to_owned()))
                .collect(),
            Err(reason) => vec![("the store".to_owned(), format!("not answering: {reason}"))],
        };
        Some(Full {
            group,
            limit,
            holders,
        })
    }

    /// Holds `host`'s place in the store whatever the other shares hold: a host a share's
    /// resume finds down was down before, and counts so for everyone.
    pub(super) fn force_fleet_place(&self, host: &str) {
        if let Some(fleet) = &self.fleet {
            let pools: Vec<(String, usize)> = self
                .pools
                .iter()
                .filter(|p| p.covers(host))
                .map(|p| (p.group.clone().unwrap_or_default(), usize::MAX))
                .collect();
            if !pools.is_empty() {
                let _ = fleet.take_place(host, &pools);
            }
        }
    }

    /// On a share's resume, before its hosts start: the store's places of `hosts` are what
    /// the journals say (`down`: in a reboot or maintenance mode, or declared unavailable),
    /// so that a controller that died with a host up does not keep its place for ever, nor a
    /// host it left down lose it.
    pub fn settle_fleet_places(&self, hosts: &[String], down: &dyn Fn(&str) -> bool) {
        let Some(fleet) = &self.fleet else {
            return;
        };
        let (down, up): (Vec<&String>, Vec<&String>) = hosts
            .iter()
            .partition(|host| down(host) || self.holds(host));
        let up: Vec<String> = up.into_iter().cloned().collect();
        let _ = fleet.give_places(&up);
        for host in down {
            self.force_fleet_place(host);
        }
    }
}
