//! The part numbers in `lspci -vv`'s `Vital Product Data` capability: under each function's
//! line, `[PN] Part number: MCX556A-ECAT` among the `Read-only fields:` (the form pciutils'
//! `ls-vpd.c` prints: `[KW] name: value`, one field a line, the keyword in brackets).

use serde::Serialize;

/// One function's part number.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct VpdPart {
    /// The function's address as printed (`0b:00.0`, or `0000:0b:00.0` with `-D`).
    pub address: String,
    /// The `[PN]` field.
    pub part_number: String,
}

/// Every function with a `[PN]` field, in output order; functions without VPD (or whose VPD
/// lspci could not read, as without root) are left out.
pub fn parse_vpd(text: &str) -> Vec<VpdPart> {
    let mut found = Vec::new();
    let mut address: Option<&str> = None;
    for line in text.lines() {
        if !line.starts_with(char::is_whitespace) {
            // A function's first line: `0b:00.0 Infiniband controller: ...`.
            address = line
                .split_whitespace()
                .next()
                .filter(|a| a.contains(':') && a.contains('.'));
            continue;
        }
        let Some(value) = line.trim_start().strip_prefix("[PN] Part number:") else {
            continue;
        };
        if let Some(address) = address {
            found.push(VpdPart {
                address: address.to_owned(),
                part_number: value.trim().to_owned(),
            });
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_part_number_of_each_function_with_vpd() {
        let text = "00:00.0 Host bridge: Intel Corporation 440BX/ZX/DX\n\tControl: I/O+ Mem+\n\
0b:00.0 Infiniband controller: Mellanox Technologies MT27800 Family [ConnectX-5]\n\
\tCapabilities: [48] Vital Product Data\n\t\tProduct Name: CX556A - ConnectX-5 QSFP28\n\
\t\tRead-only fields:\n\t\t\t[PN] Part number: MCX556A-ECAT\n\t\t\t[EC] Engineering changes: AC\n\
\t\tEnd\n0c:00.0 Ethernet controller: Mellanox Technologies MT27800 Family [ConnectX-5]\n\
\tCapabilities: [48] Vital Product Data\n\t\tNot readable\n";
        assert_eq!(
            parse_vpd(text),
            [VpdPart {
                address: "0b:00.0".into(),
                part_number: "MCX556A-ECAT".into()
            }]
        );
    }
}
