//! Layer 1: the simulated hardware every simulator printer reads, and the passthrough contract
//! between the ESXi host, vCenter and the guests.

pub(crate) mod durations;
pub(crate) mod esxi;
pub(crate) mod firmware;
pub(crate) mod firmware_query;
pub(crate) mod guest;
pub(crate) mod host_hardware;
pub(crate) mod host_vms;
pub(crate) mod interfaces;
pub(crate) mod metal;
pub(crate) mod ofed;
pub(crate) mod passthrough;
pub(crate) mod ports;
pub(crate) mod processes;
pub(crate) mod staged_faults;
