//! Walks the `lspci` parse tree into [`Lspci`].

use pest::Parser as _;
use pest::iterators::Pair;

use super::types::{Lspci, PciDevice};
use crate::ParseError;

const TOOL: &str = "lspci";

#[derive(pest_derive::Parser)]
#[grammar = "src/grammar/lspci/lspci.pest"]
struct LspciParser;

/// Parses `lspci` device lines.
pub(super) fn parse(text: &str) -> Result<Lspci, ParseError> {
    let pairs = LspciParser::parse(Rule::lspci, text)
        .map_err(|error| ParseError::from_pest(TOOL, text, &error))?;
    let devices = pairs
        .flatten()
        .filter(|p| p.as_rule() == Rule::device)
        .map(device)
        .collect();
    Ok(Lspci { devices })
}

fn device(record: Pair<'_, Rule>) -> PciDevice {
    let mut device = PciDevice {
        address: String::new(),
        domain: None,
        class: String::new(),
        class_code: None,
        vendor: None,
        device: String::new(),
        model: None,
        pci_id: None,
        revision: None,
        virtual_function: false,
        vmnic: None,
    };
    for pair in record.into_inner() {
        let value = pair.as_str().to_owned();
        match pair.as_rule() {
            Rule::pci_address => {
                device.domain = (value.matches(':').count() == 2)
                    .then(|| value.split(':').next().unwrap_or_default().to_owned());
                device.address = value;
            }
            Rule::class => device.class = value,
            Rule::class_code => device.class_code = Some(value),
            Rule::vendor => device.vendor = Some(value),
            Rule::device_name => {
                let mut words = Vec::new();
                for part in pair.into_inner() {
                    match part.as_rule() {
                        Rule::model => {
                            device.model = part.into_inner().next().map(|p| p.as_str().to_owned());
                        }
                        Rule::vmkernel_name => {
                            device.vmnic = part.into_inner().next().map(|p| p.as_str().to_owned());
                        }
                        _ => words.push(part.as_str()),
                    }
                }
                device.device = words.join(" ");
            }
            Rule::pci_id => device.pci_id = Some(value),
            Rule::revision => device.revision = Some(value),
            _ => {}
        }
    }
    device.virtual_function = device
        .model
        .as_deref()
        .unwrap_or_default()
        .contains("Virtual Function")
        || device.device.contains("Virtual Function");
    device
}

#[cfg(test)]
mod tests {
    use super::parse;

    #[test]
    fn nn_ids_and_revision() {
        let out = "86:00.0 Infiniband controller [0207]: Mellanox Technologies MT27800 Family [ConnectX-5] [15b3:1017] (rev 01)\n";
        let lspci = parse(out).unwrap_or_else(|e| panic!("{e}"));
        let d = &lspci.devices[0];
        assert_eq!(d.class_code.as_deref(), Some("0207"));
        assert_eq!(d.model.as_deref(), Some("ConnectX-5"));
        assert_eq!(d.pci_id.as_deref(), Some("15b3:1017"));
        assert_eq!(d.revision.as_deref(), Some("01"));
        assert_eq!(d.device, "MT27800 Family");
    }

    #[test]
    fn device_without_brackets() {
        let out = "0000:03:00.0 Ethernet controller: Mellanox Technologies MT42822 BlueField-2 integrated ConnectX-6 Dx network controller (rev 01)\n";
        let lspci = parse(out).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(lspci.devices[0].model, None);
        assert_eq!(lspci.devices[0].domain.as_deref(), Some("0000"));
        assert_eq!(
            lspci.devices[0].device,
            "MT42822 BlueField-2 integrated ConnectX-6 Dx network controller"
        );
    }

    #[test]
    fn other_output_is_refused() {
        assert!(parse("mlx5_0 port 1 ==> ib0 (Up)\n").is_err());
        assert!(parse("").is_err());
    }
}
