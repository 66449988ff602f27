//! The part numbers in `lspci -vv`'s `Vital Product Data` capability, per function, as the
//! fabric manifest compares them: read by the `lspci-vv` parser (`verbose.rs`).

use serde::Serialize;

use super::verbose_types::LspciVerbose;

/// One function's part number.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct VpdPart {
    /// The function's address as printed (`0b:00.0`, or `0000:0b:00.0` with `-D`).
    pub address: String,
    /// The `[PN]` field.
    pub part_number: String,
}

/// Every Mellanox (or NVIDIA) function with a `[PN]` field, in output order; functions
/// without VPD (or whose VPD lspci could not read, as without root) are left out.
pub fn mellanox_part_numbers(parsed: &LspciVerbose) -> Vec<VpdPart> {
    parsed
        .devices
        .iter()
        .filter(|f| f.device.vendor.is_some())
        .filter_map(|f| {
            let part_number = f.vpd.as_ref()?.part_number.clone()?;
            Some(VpdPart {
                address: f.device.address.clone(),
                part_number,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_part_number_of_each_mellanox_function_with_vpd() {
        let text = "00:00.0 Host bridge: Intel Corporation 440BX/ZX/DX\n\tControl: I/O+ Mem+\n\
0b:00.0 Infiniband controller: Mellanox Technologies MT27800 Family [ConnectX-5]\n\
\tCapabilities: [48] Vital Product Data\n\t\tProduct Name: CX556A - ConnectX-5 QSFP28\n\
\t\tRead-only fields:\n\t\t\t[PN] Part number: MCX556A-ECAT\n\t\t\t[EC] Engineering changes: AC\n\
\t\tEnd\n0c:00.0 Ethernet controller: Mellanox Technologies MT27800 Family [ConnectX-5]\n\
\tCapabilities: [48] Vital Product Data\n\t\tNot readable\n";
        let parsed = super::super::parse_verbose(text).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            mellanox_part_numbers(&parsed),
            [VpdPart {
                address: "0b:00.0".into(),
                part_number: "MCX556A-ECAT".into()
            }]
        );
    }
}
