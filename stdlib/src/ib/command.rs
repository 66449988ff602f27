//! The commands `ib::` runs.

/// `ibstatus`.
pub(crate) const IBSTATUS: &[&str] = &["ibstatus"];
/// `ibstat`.
pub(crate) const IBSTAT: &[&str] = &["ibstat"];
/// `ibv_devinfo`.
pub(crate) const IBV_DEVINFO: &[&str] = &["ibv_devinfo"];
/// `ibnetdiscover`.
pub(crate) const IBNETDISCOVER: &[&str] = &["ibnetdiscover"];

/// `ibstatus DEV:PORT`.
pub(crate) fn ibstatus_port(device: &str, port: u32) -> Vec<String> {
    vec!["ibstatus".into(), format!("{device}:{port}")]
}

/// Whether a name is an RDMA device name (`mlx5_0`, `rocep1s0f0`, `ibp59s0`).
pub(crate) fn valid_device(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.')
}

#[cfg(test)]
mod tests {
    #[test]
    fn device_names() {
        assert!(super::valid_device("mlx5_0"));
        assert!(!super::valid_device("mlx5_0; rm"));
        assert_eq!(
            super::ibstatus_port("mlx5_1", 1),
            vec!["ibstatus", "mlx5_1:1"]
        );
    }
}
