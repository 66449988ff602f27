//! The simulated ESXi host's ConnectX adapters, from the `adapters` option: shared by every
//! tool model (esxcli, mst, mlxconfig, mlxfwmanager, flint). A bare-metal host has the same
//! adapters with a default of its own (`metal.rs`); which default a host takes is
//! `host_hardware.rs`'s, above both.
//!
//! `adapters=cx4lx@1a,cx5@3b` (the default, the reference guide's host) lists adapter kinds and
//! PCI buses; each adapter has two ports (functions 0 and 1). `fw_version` and `fw_available`
//! set the ConnectX-5's running firmware and the version `mlxfwmanager --online` finds.

use cairn_runtime::sim::SimContext;

/// One adapter kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Kind {
    /// The option's name: `cx5`, `cx4lx`.
    pub(crate) key: &'static str,
    /// `mst status` device type.
    pub(crate) device_type: &'static str,
    /// PCI device id in decimal, as mst names it (`mt4119`).
    pub(crate) device_id: u32,
    /// Part number.
    pub(crate) part_number: &'static str,
    /// mlxfwmanager/mlxconfig description.
    pub(crate) description: &'static str,
    /// PSID.
    pub(crate) psid: &'static str,
    /// Firmware, PXE and UEFI versions.
    pub(crate) fw: &'static str,
    pub(crate) pxe: &'static str,
    pub(crate) uefi: &'static str,
    /// `esxcli network nic list` description.
    pub(crate) nic_description: &'static str,
    /// Link speed, Mb/s.
    pub(crate) speed: u64,
    /// Whether the ports take InfiniBand (VPI).
    pub(crate) vpi: bool,
}

pub(crate) const CX5: Kind = Kind {
    key: "cx5",
    device_type: "ConnectX5",
    device_id: 4119,
    part_number: "MCX556A-ECA_Ax",
    description: "ConnectX-5 VPI adapter card; EDR IB (100Gb/s) and 100GbE; dual-port QSFP28; PCIe3.0 x16; tall bracket; ROHS R6",
    psid: "MT_0000000008",
    fw: "16.32.1010",
    pxe: "3.6.0502",
    uefi: "14.25.0017",
    nic_description: "Mellanox Technologies MT27800 Family [ConnectX-5]",
    speed: 100_000,
    vpi: true,
};

pub(crate) const CX4LX: Kind = Kind {
    key: "cx4lx",
    device_type: "ConnectX4LX",
    device_id: 4117,
    part_number: "MCX4121A-ACA_Ax",
    description: "ConnectX-4 Lx EN network interface card; 25GbE dual-port SFP28; PCIe3.0 x8; ROHS R6",
    psid: "MT_2420110034",
    fw: "14.32.1010",
    pxe: "3.6.0502",
    uefi: "14.25.0017",
    nic_description: "Mellanox Technologies MT27710 Family [ConnectX-4 Lx]",
    speed: 25_000,
    vpi: false,
};

/// The reference guide's host: an ESXi host's adapters unless `adapters` says otherwise.
pub(crate) const DEFAULT_ADAPTERS: &str = "cx4lx@1a,cx5@3b";

/// One adapter of the host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Adapter {
    pub(crate) kind: Kind,
    /// PCI bus, two hex digits (`3b`).
    pub(crate) bus: String,
    /// Its index among the adapters, as mst numbers them (`mt4119_pciconf1`).
    pub(crate) index: usize,
}

impl Adapter {
    /// `mt4119_pciconf1`: the adapter's mst device (port 1's; port 2 adds `.1`).
    pub(crate) fn mst(&self) -> String {
        format!("mt{}_pciconf{}", self.kind.device_id, self.index)
    }

    /// `3b:00.F`.
    pub(crate) fn pci(&self, function: u32) -> String {
        format!("{}:00.{function}", self.bus)
    }

    /// `0000:3b:00.F`.
    pub(crate) fn full_pci(&self, function: u32) -> String {
        format!("0000:{}", self.pci(function))
    }

    /// Whether `dev` names this adapter: mst name (with or without `/dev/mst/`, `.1`), PCI
    /// address with or without domain.
    pub(crate) fn matches(&self, dev: &str) -> bool {
        let dev = dev.trim().to_ascii_lowercase();
        let dev = dev.strip_prefix("/dev/mst/").unwrap_or(&dev);
        let dev = dev.strip_prefix("0000:").unwrap_or(dev);
        let mst = self.mst();
        dev == mst || dev == format!("{mst}.1") || dev == self.pci(0) || dev == self.pci(1)
    }

    /// The base MAC, derived from the bus.
    pub(crate) fn base_mac(&self) -> String {
        format!(
            "b8599f{}{:02x}{:02x}",
            self.bus,
            self.index * 16,
            0x40 + self.index
        )
    }

    /// The base GUID.
    pub(crate) fn base_guid(&self) -> String {
        format!(
            "b8599f0300{}{:02x}{:02x}",
            self.bus,
            self.index * 16,
            0x40 + self.index
        )
    }

    /// A port's MAC as esxcli prints it.
    pub(crate) fn port_mac(&self, function: u32) -> String {
        let last = 0x40 + self.index * 2 + usize::try_from(function).unwrap_or(0);
        format!(
            "b8:59:9f:{}:{:02x}:{:02x}",
            self.bus,
            self.index * 16,
            last % 256
        )
    }
}

/// Reads an `adapters` option value.
pub(crate) fn parse_adapters(spec: &str) -> Result<Vec<Adapter>, String> {
    let mut adapters = Vec::new();
    for item in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let (kind, bus) = item
            .split_once('@')
            .ok_or_else(|| format!("adapter `{item}` is not KIND@BUS (e.g. cx5@3b)"))?;
        let kind = match kind {
            "cx5" => CX5,
            "cx4lx" => CX4LX,
            other => return Err(format!("unknown adapter kind `{other}` (cx5, cx4lx)")),
        };
        let bus = bus.to_ascii_lowercase();
        if bus.len() != 2 || !bus.chars().all(|c| c.is_ascii_hexdigit()) {
            return Err(format!("adapter bus `{bus}` is not two hex digits"));
        }
        adapters.push((kind, bus));
    }
    adapters.sort_by(|a, b| a.1.cmp(&b.1));
    Ok(adapters
        .into_iter()
        .enumerate()
        .map(|(index, (kind, bus))| Adapter { kind, bus, index })
        .collect())
}

/// The host's adapters: its `adapters` option, else `default`, its model's (a bad `adapters`
/// value is refused when the host opens). Which model the host is, and so its default, is
/// `host_hardware.rs`'s question, not this file's.
pub(crate) fn adapters_or(host: &SimContext<'_>, default: &str) -> Vec<Adapter> {
    parse_adapters(host.option("adapters").unwrap_or(default)).unwrap_or_default()
}

/// Every port of `adapters`: `(adapter, function)`, two functions each.
pub(crate) fn ports_of(adapters: Vec<Adapter>) -> Vec<(Adapter, u32)> {
    adapters
        .into_iter()
        .flat_map(|a| [(a.clone(), 0), (a, 1)])
        .collect()
}

/// `preset=passthrough`: the host as sections 2.2 to 2.3 of the guide leave it (MFT and the
/// native driver installed, port 1 InfiniBand and port 2 Ethernet, SR-IOV off, the ConnectX-5's
/// ports enabled for passthrough), so a lab can start where the guest half of the guide starts.
pub(crate) const PRESET_PASSTHROUGH: &str = "passthrough";

/// Whether the host was created with `preset=passthrough`.
pub(crate) fn preset_passthrough(host: &SimContext<'_>) -> bool {
    host.option("preset") == Some(PRESET_PASSTHROUGH)
}

/// The marks set at boot once the VIBs are in: the MFT tools and the NMST driver.
pub(crate) const MFT_MARK: &str = "mft_loaded";
pub(crate) const NMST_MARK: &str = "nmst_loaded";

/// Whether the firmware tools run: both VIBs installed and the host rebooted since.
pub(crate) fn tools_loaded(host: &SimContext<'_>) -> bool {
    host.is_marked(MFT_MARK) && host.is_marked(NMST_MARK)
}

/// A program that does not exist on the host.
pub(crate) fn not_found(program: &str) -> cairn_runtime::ExecOutput {
    cairn_runtime::ExecOutput {
        code: 127,
        stdout: String::new(),
        stderr: format!("sh: {program}: not found\n"),
    }
}

/// A successful output.
pub(crate) fn ok(stdout: String) -> cairn_runtime::ExecOutput {
    cairn_runtime::ExecOutput {
        code: 0,
        stdout,
        stderr: String::new(),
    }
}

/// A failed output.
pub(crate) fn error(code: i64, stderr: String) -> cairn_runtime::ExecOutput {
    cairn_runtime::ExecOutput {
        code,
        stdout: String::new(),
        stderr,
    }
}

/// The value after `flag` in `argv`.
pub(crate) fn flag_value<'a>(argv: &'a [String], flags: &[&str]) -> Option<&'a str> {
    argv.iter()
        .position(|a| flags.contains(&a.as_str()))
        .and_then(|i| argv.get(i + 1))
        .map(String::as_str)
        .or_else(|| {
            argv.iter().find_map(|a| {
                flags
                    .iter()
                    .find_map(|f| a.strip_prefix(f).and_then(|rest| rest.strip_prefix('=')))
            })
        })
}

/// Whether `argv` holds `flag`.
pub(crate) fn has(argv: &[String], flags: &[&str]) -> bool {
    argv.iter().any(|a| flags.contains(&a.as_str()))
}

/// A table in esxcli's layout: titles, a dashes line, cells padded to each column's width.
pub(crate) fn table(titles: &[&str], rows: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = titles.iter().map(|t| t.len()).collect();
    for row in rows {
        for (i, cell) in row.iter().enumerate() {
            if let Some(w) = widths.get_mut(i) {
                *w = (*w).max(cell.len());
            }
        }
    }
    let line = |cells: Vec<&str>| {
        let mut text = String::new();
        for (i, (cell, width)) in cells.iter().zip(&widths).enumerate() {
            if i > 0 {
                text.push_str("  ");
            }
            if i + 1 == cells.len() {
                text.push_str(cell);
            } else {
                text.push_str(&format!("{cell:<width$}"));
            }
        }
        text.push('\n');
        text
    };
    let mut out = line(titles.to_vec());
    let dashes: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
    out.push_str(&line(dashes.iter().map(String::as_str).collect()));
    for row in rows {
        out.push_str(&line(row.iter().map(String::as_str).collect()));
    }
    out
}

/// One ConnectX port of an ESXi host, as its guests see it: what the host's `esxi` state slot
/// publishes for the simulated guests (`sim:rhel8?esxi=HOST`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct PublishedPort {
    /// `0000:3b:00.0`.
    pub(crate) pci: String,
    /// The adapter's mst device, whose `LINK_TYPE_P<function + 1>` sets the port's type.
    pub(crate) mst: String,
    pub(crate) function: u32,
    /// Whether the port takes InfiniBand; other ports are Ethernet only.
    pub(crate) vpi: bool,
    pub(crate) speed_gbps: u64,
    /// `Mellanox Technologies MT27800 Family [ConnectX-5]`.
    pub(crate) model: String,
}

/// The `esxi` state slot: the host's ConnectX ports, published at creation and every boot so
/// that guests can read them without knowing the host's options.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct PublishedHardware {
    pub(crate) ports: Vec<PublishedPort>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_is_the_guides_host() {
        let adapters = parse_adapters(DEFAULT_ADAPTERS).unwrap_or_default();
        let names: Vec<String> = adapters.iter().map(Adapter::mst).collect();
        assert_eq!(names, ["mt4117_pciconf0", "mt4119_pciconf1"]);
        assert!(
            adapters
                .get(1)
                .is_some_and(|a| a.matches("/dev/mst/mt4119_pciconf1.1"))
        );
        assert!(adapters.get(1).is_some_and(|a| a.matches("0000:3B:00.0")));
        assert!(parse_adapters("cx9@3b").is_err());
        assert!(parse_adapters("cx5@3bb").is_err());
    }
}
