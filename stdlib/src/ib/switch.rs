//! A simulated InfiniBand switch's identity, from its name and the hosts' rate: what the
//! simulated `ibnetdiscover` prints for every switch of the fabric and the simulated
//! `ibdiagnet` scans, so the two agree on each switch.

use crate::machine::guest::{GuestHw, hash};

/// A switch's identity: node GUID, description, device id, port count.
pub(crate) fn switch_of(hw: &GuestHw) -> (String, String, &'static str, u32) {
    let h = hash(&[&hw.ib_switch, "switch"]);
    let guid = format!("9c05910300{:06x}", h & 0xff_ffff);
    if hw.rate_gbps >= 200 {
        (
            guid,
            format!("MF0;{}:MQM9700/U1", hw.ib_switch),
            "0xd2f2",
            129,
        )
    } else {
        (
            guid,
            format!("MF0;{}:MSB7800/U1", hw.ib_switch),
            "0xcf08",
            37,
        )
    }
}
