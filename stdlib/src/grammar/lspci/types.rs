//! The typed result of `lspci`.

use serde::Serialize;

/// Every device line `lspci` printed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Lspci {
    /// The devices, in output order.
    pub devices: Vec<PciDevice>,
}

/// One PCI function.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PciDevice {
    /// The PCI address as printed (`0000:32:00.0` with `-D`, `3b:00.0` without).
    pub address: String,
    /// The PCI domain (`0000`), when printed (`lspci -D`).
    pub domain: Option<String>,
    /// The device class (`Ethernet controller`, `Infiniband controller`).
    pub class: String,
    /// `lspci -nn`: the class code (`0207`).
    pub class_code: Option<String>,
    /// The vendor (`Mellanox Technologies`), when it is one lspci prints for these adapters.
    pub vendor: Option<String>,
    /// The device name without the bracketed model (`MT28800 Family`).
    pub device: String,
    /// The model in brackets (`ConnectX-5 Ex`, `ConnectX-5 Virtual Function`).
    pub model: Option<String>,
    /// `lspci -nn`: vendor and device id (`15b3:1017`).
    pub pci_id: Option<String>,
    /// The revision (`00`), when printed.
    pub revision: Option<String>,
    /// Whether this is an SR-IOV virtual function (the name says `Virtual Function`).
    pub virtual_function: bool,
    /// ESXi: the vmkernel's name for the function, printed in brackets after the model
    /// (`vmnic2`); absent elsewhere.
    pub vmnic: Option<String>,
}
