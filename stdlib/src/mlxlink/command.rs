//! The commands `mlxlink::` runs.

/// `mlxlink -d DEVICE -c`: the port with its physical counters and BER.
pub(crate) fn read(device: &str) -> Vec<String> {
    vec!["mlxlink".into(), "-d".into(), device.into(), "-c".into()]
}
