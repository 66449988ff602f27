//! Layer 1: the simulated hardware every simulator printer reads, and the passthrough contract
//! between the ESXi host, vCenter and the guests.
//!
//! Files: `esxi.rs` (adapter kinds and their ports, an ESXi host's default adapters, the ports
//! published for guests); `guest.rs` (a guest's hardware and ports from its options, peers);
//! `host_hardware.rs` (a host's hardware by its model, above the files that describe each kind: the
//! adapters the MFT printers read, the option or the model's default, and `GuestHw::of`, the
//! hardware the Linux printers read); `interfaces.rs` (a guest's network interfaces, which `ip` and
//! `ibdev2netdev` print and the RDMA ports and sockperf read); `ports.rs` (a guest's RDMA ports as
//! its tools report them, its own and a peer's, which the `ib` printers print and perftest and
//! sockperf read); `processes.rs` (the guest's background processes); `passthrough.rs` (the
//! contract between the ESXi host, vCenter and a guest: the state views a guest reads, with a
//! round-trip test beside each owning tool, and the guest's hardware with the ports its VM has);
//! `host_vms.rs` (the VMs vCenter registers on an ESXi host, which keep it out of maintenance mode
//! while they run; whether a host is in maintenance mode, which keeps its VMs from powering on; a
//! guest whose VM is off, which does not answer); `durations.rs` (the `*_secs` options: how long a
//! VIB install, a firmware burn, an OFED install takes; docs/simulator.md "Operation durations");
//! `firmware_query.rs` (the `Device #N:` block of `mlxfwmanager`'s query, which the OFED
//! installers' firmware step prints too); `firmware.rs` (the firmware activation contract: the
//! image and NV configuration each adapter runs, the resets `mlxfwreset` counts, and the views that
//! apply a reset the owning tool has not applied yet); `metal.rs` (a bare-metal host's hardware,
//! composed of the files below it: its mark, its default adapters, and its ports, its own adapters'
//! with the link type in effect now, also a peer's); `ofed.rs` (the OFED driver stack's state the
//! `ib` and `net` printers read, and the adapter firmware they print); `gpu_server.rs` (the GPU
//! server's PCIe layout, its peer-memory modules and ACS, which the GPU tools print and perftest
//! reads for `--use_cuda`); `link_counters.rs` (an IB port's link health counters from its
//! cable's faults, which `perfquery`, `ibqueryerrors` and `mlxlink` all print); `qos.rs` (a Linux
//! host's runtime QoS settings of its RoCE ports, which the `qos` printer keeps and `cat` reads).

pub(crate) mod durations;
pub(crate) mod esxi;
pub(crate) mod firmware;
pub(crate) mod firmware_query;
pub(crate) mod gpu_server;
pub(crate) mod guest;
pub(crate) mod host_hardware;
pub(crate) mod host_vms;
pub(crate) mod interfaces;
pub(crate) mod link_counters;
pub(crate) mod metal;
pub(crate) mod ofed;
pub(crate) mod passthrough;
pub(crate) mod ports;
pub(crate) mod processes;
pub(crate) mod qos;
pub(crate) mod staged_faults;
