//! The names builtins take from a runbook, in one normal form whatever namespace reads them: a
//! PCI address (as `esxcli` and vCenter print it), an RDMA device name and an interface name.

/// `3b:00.0`, `0000:3B:00.0` → `0000:3b:00.0`.
pub(crate) fn full_pci(pci: &str) -> String {
    let pci = pci.trim().to_ascii_lowercase();
    if pci.matches(':').count() == 1 {
        format!("0000:{pci}")
    } else {
        pci
    }
}

/// Whether a name is an RDMA device name (`mlx5_0`, `rocep1s0f0`, `ibp59s0`).
pub(crate) fn valid_device(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.')
}

/// Whether an interface name is one `ip` accepts (at most 15 bytes, no `/`, blank or `:`).
pub(crate) fn valid_ifname(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 15
        && !name.contains(['/', ' ', ':', '\t', '\n'])
        && name != "."
        && name != ".."
}

#[cfg(test)]
mod tests {
    use super::{full_pci, valid_device, valid_ifname};

    #[test]
    fn pci_addresses_and_device_names() {
        assert_eq!(full_pci(" 3B:00.0"), "0000:3b:00.0");
        assert_eq!(full_pci("0000:3b:00.1"), "0000:3b:00.1");
        assert!(valid_device("mlx5_0"));
        assert!(!valid_device("mlx5_0; rm"));
        assert!(!valid_device(""));
        assert!(valid_ifname("ens224f1"));
        assert!(!valid_ifname("a b"));
        assert!(!valid_ifname("averyveryverylongname"));
    }
}
