//! PCI Access Control Services on the bridges above the GPUs and NICs: with ACS on, a switch
//! port redirects peer-to-peer traffic up to the root complex, so GPUDirect RDMA (GPU to NIC
//! under one switch) is slow or hangs. NCCL's troubleshooting guide ("PCI Access Control
//! Services (ACS)") says to check `lspci -vvv`'s `ACSCtl:` lines (`SrcValid+` and the others
//! on: ACS enabled) and to disable it with `setpci -s BDF ECAP_ACS+0x6.w=0000` on each bridge,
//! again after every reboot. The bridges read here are those whose buses (`Bus: secondary` to
//! `subordinate`) hold an NVIDIA GPU or a Mellanox/NVIDIA NIC, and that have the capability.

use serde::{Deserialize, Serialize};

use crate::grammar::lspci::{LspciVerbose, PciFunction};

/// The bridges above the GPUs and NICs, with their ACS control.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Acs {
    /// Each bridge with the ACS capability that has a GPU or NIC behind it, in output order.
    pub bridges: Vec<AcsBridge>,
    /// The addresses of those whose ACS is on (any `ACSCtl:` flag `+`).
    pub enabled: Vec<String>,
}

/// One bridge.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AcsBridge {
    /// `17:00.0`.
    pub address: String,
    /// The `ACSCtl:` flags that are on (`SrcValid`, `ReqRedir`, ...); `[]`: ACS off.
    pub acs_control: Vec<String>,
    /// The GPUs and NICs behind it, by address.
    pub behind: Vec<String>,
}

/// Whether a function is an NVIDIA GPU or a Mellanox/NVIDIA NIC.
fn is_gpu_or_nic(function: &PciFunction) -> bool {
    let device = &function.device;
    let gpu = matches!(
        device.class.as_str(),
        "3D controller" | "VGA compatible controller"
    );
    let nic = matches!(
        device.class.as_str(),
        "Infiniband controller" | "Ethernet controller"
    );
    device.vendor.is_some() && (gpu || nic)
}

/// The bus of `19:00.0` or `0000:19:00.0`.
fn bus_of(address: &str) -> Option<u8> {
    let mut parts = address.rsplit(':');
    parts.next()?;
    u8::from_str_radix(parts.next()?, 16).ok()
}

/// The bridges of `lspci` above its GPUs and NICs.
pub fn acs_bridges(lspci: &LspciVerbose) -> Acs {
    let endpoints: Vec<(&str, u8)> = lspci
        .devices
        .iter()
        .filter(|f| is_gpu_or_nic(f))
        .filter_map(|f| Some((f.device.address.as_str(), bus_of(&f.device.address)?)))
        .collect();
    let bridges: Vec<AcsBridge> = lspci
        .devices
        .iter()
        .filter_map(|f| {
            let buses = f.bridge_buses?;
            let acs_control = f.acs_control.clone()?;
            let behind: Vec<String> = endpoints
                .iter()
                .filter(|(_, bus)| (buses.secondary..=buses.subordinate).contains(bus))
                .map(|(address, _)| (*address).to_owned())
                .collect();
            (!behind.is_empty()).then(|| AcsBridge {
                address: f.device.address.clone(),
                acs_control,
                behind,
            })
        })
        .collect();
    let enabled = bridges
        .iter()
        .filter(|b| !b.acs_control.is_empty())
        .map(|b| b.address.clone())
        .collect();
    Acs { bridges, enabled }
}

#[cfg(test)]
mod tests {
    use super::acs_bridges;

    /// The published H100 server: the root port, the switch's upstream port and the downstream
    /// ports to the GPU and the ConnectX-7 are above them (the NVMe's port is not), all off; one
    /// turned on is named.
    #[test]
    fn the_bridges_above_the_gpu_and_nic_and_those_with_acs_on() {
        let fixture =
            include_str!("../../../tests/fixtures/lspci-vv/h100-pex890xx-switch-acs-vvv.txt");
        let text = crate::test_support::output_of(fixture);
        let parsed = crate::grammar::lspci::parse_verbose(text).unwrap_or_else(|e| panic!("{e}"));
        let acs = acs_bridges(&parsed);
        let addresses: Vec<&str> = acs.bridges.iter().map(|b| b.address.as_str()).collect();
        // The upstream port has no ACS capability; 17:00.0 leads to the NVMe drive.
        assert_eq!(addresses, ["15:01.0", "17:01.0", "17:02.0"]);
        assert_eq!(acs.bridges[0].behind, ["19:00.0", "1a:00.0"]);
        assert!(acs.enabled.is_empty());
        let (before, after) = text.split_at(text.find("17:01.0 PCI bridge").unwrap_or_default());
        let on = format!(
            "{before}{}",
            after.replacen(
                "ACSCtl:\tSrcValid- TransBlk- ReqRedir-",
                "ACSCtl:\tSrcValid+ TransBlk- ReqRedir+",
                1
            )
        );
        let parsed = crate::grammar::lspci::parse_verbose(&on).unwrap_or_else(|e| panic!("{e}"));
        let acs = acs_bridges(&parsed);
        assert_eq!(acs.enabled, ["17:01.0"]);
    }
}
