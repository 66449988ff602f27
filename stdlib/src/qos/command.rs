//! The commands `qos::` runs (argv, never a shell line): `mlnx_qos` with one setting each,
//! `cma_roce_tos`, and `cat`/`tee` of the ECN sysfs switches.

/// `mlnx_qos -i IFACE -a`: every traffic class, also those without a priority, so a share set
/// on one reads back.
pub(crate) fn show(ifname: &str) -> Vec<String> {
    ["mlnx_qos", "-i", ifname, "-a"].map(str::to_owned).to_vec()
}

/// `mlnx_qos -i IFACE FLAG VALUE [FLAG VALUE]...`: one setting (the tool refuses `--trust` with
/// `--dscp2prio`, so each goes alone).
pub(crate) fn set(ifname: &str, flags: &[(&str, String)]) -> Vec<String> {
    let mut argv: Vec<String> = ["mlnx_qos", "-i", ifname].map(str::to_owned).to_vec();
    for (flag, value) in flags {
        argv.push((*flag).to_owned());
        argv.push(value.clone());
    }
    argv
}

/// A list as `mlnx_qos` takes it: `0,0,0,1,0,0,0,0`.
pub(crate) fn list<T: ToString>(values: &[T]) -> String {
    values
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

/// `cma_roce_tos -d DEV -p 1 [-t TOS]`: RDMA-CM's default ToS of the device's port, printed
/// after setting it (an mlx5 RoCE device has one port).
pub(crate) fn roce_tos(device: &str, tos: Option<u8>) -> Vec<String> {
    let mut argv: Vec<String> = ["cma_roce_tos", "-d", device, "-p", "1"]
        .map(str::to_owned)
        .to_vec();
    if let Some(tos) = tos {
        argv.push("-t".to_owned());
        argv.push(tos.to_string());
    }
    argv
}

/// `/sys/class/net/IFACE/ecn/roce_np/enable/PRIO` (the notification point) or `roce_rp` (the
/// reaction point).
pub(crate) fn ecn_path(ifname: &str, notification_point: bool, prio: u8) -> String {
    let point = if notification_point {
        "roce_np"
    } else {
        "roce_rp"
    };
    format!("/sys/class/net/{ifname}/ecn/{point}/enable/{prio}")
}

/// The IP ToS byte of RoCE v2 packets from a DSCP and whether they are ECN-capable: the DSCP in
/// the upper six bits, ECT(0) (`0b10`) in the lower two. The one place it is computed: DSCP 26
/// with ECN is 106, not 26.
pub(crate) fn tos(dscp: u8, ecn: bool) -> u8 {
    (dscp << 2) | if ecn { 0b10 } else { 0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_and_the_tos_byte() {
        assert_eq!(show("ens1f0").join(" "), "mlnx_qos -i ens1f0 -a");
        assert_eq!(
            set("ens1f0", &[("--pfc", list(&[0, 0, 0, 1, 0, 0, 0, 0]))]).join(" "),
            "mlnx_qos -i ens1f0 --pfc 0,0,0,1,0,0,0,0"
        );
        assert_eq!(
            roce_tos("mlx5_0", Some(106)).join(" "),
            "cma_roce_tos -d mlx5_0 -p 1 -t 106"
        );
        assert_eq!(
            ecn_path("ens1f0", false, 3),
            "/sys/class/net/ens1f0/ecn/roce_rp/enable/3"
        );
        assert_eq!(tos(26, true), 106);
        assert_eq!(tos(26, false), 104);
        assert_eq!(tos(46, true), 186);
        assert_eq!(tos(63, true), 254);
    }
}
