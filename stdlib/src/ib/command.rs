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

#[cfg(test)]
mod tests {
    #[test]
    fn device_names() {
        assert_eq!(
            super::ibstatus_port("mlx5_1", 1),
            vec!["ibstatus", "mlx5_1:1"]
        );
    }
}
