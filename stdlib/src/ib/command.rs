//! The commands `ib::` runs.

/// `ibstatus`.
pub(crate) const IBSTATUS: &[&str] = &["ibstatus"];
/// `ibstat`.
pub(crate) const IBSTAT: &[&str] = &["ibstat"];
/// `ibv_devinfo`.
pub(crate) const IBV_DEVINFO: &[&str] = &["ibv_devinfo"];
/// `ibnetdiscover`.
pub(crate) const IBNETDISCOVER: &[&str] = &["ibnetdiscover"];

/// `ibqueryerrors`: every port over its threshold (none given: above 0).
pub(crate) const IBQUERYERRORS: &[&str] = &["ibqueryerrors"];
/// `iblinkinfo`: every port's link and its peer.
pub(crate) const IBLINKINFO: &[&str] = &["iblinkinfo"];

/// `perfquery -x LID PORT`: a port's extended counters.
pub(crate) fn perfquery_extended(lid: u32, port: u32) -> Vec<String> {
    vec![
        "perfquery".into(),
        "-x".into(),
        lid.to_string(),
        port.to_string(),
    ]
}

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
