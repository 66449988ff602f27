//! One boot of a simulated host: its number, its id and when it started.

use sha2::{Digest, Sha256};

/// A boot of a simulated host, as the state file records it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SimBoot {
    /// The boot id, UUID-shaped (`8f0e5c1a-3b2d-4c6e-9a7b-1d2e3f405162`), the same every time for
    /// a given host and boot number.
    pub id: String,
    /// When the host last answered a command during this boot, in milliseconds on its clock.
    pub last_seen_millis: u64,
    /// 1 for the boot that created the host, then one more at each reboot.
    pub number: u64,
    /// When the boot happened, in milliseconds on the host's clock.
    pub started_millis: u64,
}

impl SimBoot {
    /// The boot `number` of `host`, starting at `millis`.
    pub fn new(host: &str, number: u64, millis: u64) -> Self {
        Self {
            id: boot_id(host, number),
            last_seen_millis: millis,
            number,
            started_millis: millis,
        }
    }

    /// The id without dashes, as `journalctl` prints it.
    pub fn id_hex(&self) -> String {
        self.id.replace('-', "")
    }
}

/// A version-4-shaped UUID derived from the host name and the boot number.
fn boot_id(host: &str, number: u64) -> String {
    let mut hasher = Sha256::new();
    hasher.update(b"cairn-sim-boot\0");
    hasher.update(host.as_bytes());
    hasher.update(b"\0");
    hasher.update(number.to_be_bytes());
    let mut bytes = [0_u8; 16];
    for (slot, byte) in bytes.iter_mut().zip(hasher.finalize()) {
        *slot = byte;
    }
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_uuid_shaped_deterministic_and_distinct() {
        let one = SimBoot::new("node01", 1, 0);
        assert_eq!(one.id, SimBoot::new("node01", 1, 5).id);
        assert_ne!(one.id, SimBoot::new("node01", 2, 0).id);
        assert_ne!(one.id, SimBoot::new("node02", 1, 0).id);
        let groups: Vec<usize> = one.id.split('-').map(str::len).collect();
        assert_eq!(groups, [8, 4, 4, 4, 12]);
        assert_eq!(one.id.chars().nth(14), Some('4'));
        assert_eq!(one.id_hex().len(), 32);
    }
}
