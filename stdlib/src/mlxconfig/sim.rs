//! The simulated `mlxconfig`: each adapter's firmware configuration, with next-boot values that
//! become current at the next boot, printed as MFT prints it (`query`, `-e query`, `set`).
//!
//! The reference guide's starting point: the ConnectX-5 has SR-IOV on (`SRIOV_EN=1`,
//! `NUM_OF_VFS=8`, `ADVANCED_PCI_SETTINGS=1`) and both ports in Ethernet (`LINK_TYPE_P1/P2=2`).

use std::collections::BTreeMap;

use cairn_runtime::ExecOutput;
use cairn_runtime::sim::{SimContext, SimTool};

use crate::machine::esxi::{Adapter, error, not_found, ok, preset_passthrough, tools_loaded};
use crate::machine::firmware;
use crate::machine::host_hardware::{adapters, find};

/// The `mlxconfig` tool model.
pub(crate) struct Mlxconfig;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Bool,
    Link,
    Int,
}

/// A parameter: name, kind, factory default, value on the guide's host.
type Definition = (&'static str, Kind, u64, u64);

const CX5_PARAMETERS: &[Definition] = &[
    ("NUM_OF_VFS", Kind::Int, 0, 8),
    ("SRIOV_EN", Kind::Bool, 0, 1),
    ("PF_LOG_BAR_SIZE", Kind::Int, 5, 5),
    ("VF_LOG_BAR_SIZE", Kind::Int, 1, 1),
    ("NUM_PF_MSIX", Kind::Int, 63, 63),
    ("NUM_VF_MSIX", Kind::Int, 11, 11),
    ("LINK_TYPE_P1", Kind::Link, 1, 2),
    ("LINK_TYPE_P2", Kind::Link, 1, 2),
    ("KEEP_ETH_LINK_UP_P1", Kind::Bool, 1, 1),
    ("KEEP_IB_LINK_UP_P1", Kind::Bool, 0, 0),
    ("KEEP_ETH_LINK_UP_P2", Kind::Bool, 1, 1),
    ("KEEP_IB_LINK_UP_P2", Kind::Bool, 0, 0),
    ("ADVANCED_PCI_SETTINGS", Kind::Bool, 0, 1),
];

const CX4LX_PARAMETERS: &[Definition] = &[
    ("NUM_OF_VFS", Kind::Int, 0, 0),
    ("SRIOV_EN", Kind::Bool, 0, 0),
    ("PF_LOG_BAR_SIZE", Kind::Int, 5, 5),
    ("VF_LOG_BAR_SIZE", Kind::Int, 1, 1),
    ("NUM_PF_MSIX", Kind::Int, 63, 63),
    ("NUM_VF_MSIX", Kind::Int, 11, 11),
    ("KEEP_ETH_LINK_UP_P1", Kind::Bool, 1, 1),
    ("KEEP_ETH_LINK_UP_P2", Kind::Bool, 1, 1),
    ("ADVANCED_PCI_SETTINGS", Kind::Bool, 0, 0),
];

/// `preset=passthrough`: what section 2.2.3 of the guide sets (port 1 IB, port 2 ETH, SR-IOV
/// and the advanced PCI settings off).
const PASSTHROUGH_PRESET: &[(&str, u64)] = &[
    ("LINK_TYPE_P1", 1),
    ("LINK_TYPE_P2", 2),
    ("ADVANCED_PCI_SETTINGS", 0),
    ("SRIOV_EN", 0),
];

fn definitions(adapter: &Adapter) -> &'static [Definition] {
    if adapter.kind.vpi {
        CX5_PARAMETERS
    } else {
        CX4LX_PARAMETERS
    }
}

/// One parameter's values, and the whole state: the shared shapes of the firmware activation
/// contract (`machine::firmware`), which `mlxfwreset status` and a bare-metal host's ports read.
pub(crate) use crate::machine::firmware::{NvConfig as MlxconfigState, NvValues as Values};

impl SimTool for Mlxconfig {
    fn commands(&self) -> &[&'static str] {
        &["mlxconfig", "/opt/mellanox/bin/mlxconfig"]
    }

    fn name(&self) -> &'static str {
        "mlxconfig"
    }

    fn init(&self, host: &mut SimContext<'_>) {
        let mut state = MlxconfigState::default();
        let preset = preset_passthrough(host);
        for adapter in adapters(host) {
            let values = definitions(&adapter)
                .iter()
                .map(|(name, _, _, value)| {
                    let value = match PASSTHROUGH_PRESET.iter().find(|(n, _)| n == name) {
                        Some((_, set)) if preset => *set,
                        _ => *value,
                    };
                    (
                        (*name).to_owned(),
                        Values {
                            current: value,
                            next: value,
                        },
                    )
                })
                .collect();
            state.devices.insert(adapter.mst(), values);
        }
        let _ = host.save_state(&state);
    }

    fn options(&self) -> &[&'static str] {
        &["fault_ignore_staged", ANSWER]
    }

    fn on_boot(&self, host: &mut SimContext<'_>) {
        let mut state: MlxconfigState = host.load_state().unwrap_or_default();
        // `fault_ignore_staged=LINK_TYPE_P1[,NAME...]`: the firmware drops these staged values
        // at boot and keeps the current ones, the reboot loop's usual cause.
        let ignored = firmware::ignored_staged(host);
        firmware::activate(
            state
                .devices
                .values_mut()
                .flat_map(|params| params.iter_mut()),
            &ignored,
        );
        // A boot activates everything: the resets before it are applied.
        firmware::take_resets(host, &mut state.resets_seen);
        let _ = host.save_state(&state);
    }

    fn run(&self, host: &mut SimContext<'_>, argv: &[String]) -> ExecOutput {
        if !tools_loaded(host) {
            return not_found(argv.first().map_or("mlxconfig", String::as_str));
        }
        let mut state: MlxconfigState = host.load_state().unwrap_or_default();
        // A firmware reset (`mlxfwreset`) since the last command activated the staged values.
        let ignored = firmware::ignored_staged(host);
        for device in firmware::take_resets(host, &mut state.resets_seen) {
            if let Some(params) = state.devices.get_mut(&device) {
                firmware::activate(params.iter_mut(), &ignored);
            }
        }
        let (mut dev, mut extended, mut yes, mut rest) = (None, false, false, Vec::new());
        let mut args = argv.iter().skip(1);
        while let Some(arg) = args.next() {
            match arg.as_str() {
                "-d" | "--dev" => dev = args.next().cloned(),
                "-e" | "--enable_verbosity" => extended = true,
                "-y" | "--yes" => yes = true,
                _ => rest.push(arg.clone()),
            }
        }
        let Some(dev) = dev else {
            return error(1, "-E- Please specify device (-d)\n".into());
        };
        let Some(adapter) = find(host, &dev) else {
            return error(
                1,
                format!("-E- Failed to open device: {dev}. No such file or directory\n"),
            );
        };
        let Some(values) = state.devices.get_mut(&adapter.mst()) else {
            return error(1, format!("-E- Failed to query device: {dev}\n"));
        };
        let output = match rest.first().map(String::as_str) {
            Some("q" | "query") => ok(query(&adapter, &dev, values, extended)),
            Some("s" | "set") => {
                // Without `-y` the tool reads the answer from its input: the `mlxconfig_answer`
                // option stands for the user's, none for an input that is closed.
                let answer = if yes { Some("y") } else { host.option(ANSWER) };
                let pairs = rest.get(1..).unwrap_or_default();
                set(&adapter, &dev, values, pairs, answer, yes)
            }
            _ => error(
                1,
                "-E- No command found. For more information please read help\n".into(),
            ),
        };
        let _ = host.save_state(&state);
        output
    }
}

fn text(kind: Kind, value: u64) -> String {
    match (kind, value) {
        (Kind::Bool, 0) => "False(0)".into(),
        (Kind::Bool, _) => format!("True({value})"),
        (Kind::Link, 1) => "IB(1)".into(),
        (Kind::Link, 2) => "ETH(2)".into(),
        (Kind::Link, 3) => "VPI(3)".into(),
        (Kind::Link, _) => format!("UNKNOWN({value})"),
        (Kind::Int, _) => value.to_string(),
    }
}

/// A value as `set` takes it: a number, or a label of the parameter's kind.
fn read_value(kind: Kind, text: &str) -> Option<u64> {
    if let Ok(number) = text.parse::<u64>() {
        return Some(number);
    }
    match (kind, text.to_ascii_uppercase().as_str()) {
        (Kind::Bool, "TRUE") => Some(1),
        (Kind::Bool, "FALSE") => Some(0),
        (Kind::Link, "IB") => Some(1),
        (Kind::Link, "ETH") => Some(2),
        (Kind::Link, "VPI") => Some(3),
        _ => None,
    }
}

fn header(adapter: &Adapter, dev: &str) -> String {
    format!(
        "\nDevice #1:\n----------\n\n{:<20}{:<20}\n{:<20}{:<20}\n{:<20}{}\n{:<20}{:<20}\n\n",
        "Device type:",
        adapter.kind.device_type,
        "Name:",
        adapter.kind.part_number,
        "Description:",
        adapter.kind.description,
        "Device:",
        dev
    )
}

fn query(
    adapter: &Adapter,
    dev: &str,
    values: &BTreeMap<String, Values>,
    extended: bool,
) -> String {
    let mut out = header(adapter, dev);
    if extended {
        out.push_str(&format!(
            "{:<45}{:<16}{:<16}Next Boot\n",
            "Configurations:", "Default", "Current"
        ));
    } else {
        out.push_str(&format!("{:<57}Next Boot\n", "Configurations:"));
    }
    for (name, kind, default, _) in definitions(adapter) {
        let Some(v) = values.get(*name) else { continue };
        if extended {
            let marker = if v.next != *default || v.next != v.current {
                "*"
            } else {
                ""
            };
            out.push_str(&format!(
                "{marker:<9}{name:<36}{:<16}{:<16}{}\n",
                text(*kind, *default),
                text(*kind, v.current),
                text(*kind, v.next)
            ));
        } else {
            out.push_str(&format!("        {name:<44}{}\n", text(*kind, v.next)));
        }
    }
    if extended {
        out.push_str(
            "The '*' shows parameters with next value different from default/current value.\n",
        );
    }
    out
}

/// The option that answers `Apply new Configuration?` for a `set` without `-y`.
const ANSWER: &str = "mlxconfig_answer";

/// `set`: the table, then the prompt (mstflint `mlxcfg_ui.cpp`, `askUser`: `y` printed after
/// it under `-y`; else the answer read, shown on its own line as a terminal session shows it),
/// then `Applying... Done!`, or `-E- Aborted by user.` for any answer but `y`/`yes`.
fn set(
    adapter: &Adapter,
    dev: &str,
    values: &mut BTreeMap<String, Values>,
    pairs: &[String],
    answer: Option<&str>,
    yes: bool,
) -> ExecOutput {
    let mut changes = Vec::new();
    for pair in pairs {
        let Some((name, value)) = pair.split_once('=') else {
            return error(1, format!("-E- Invalid Configuration Input: {pair}\n"));
        };
        let Some((_, kind, _, _)) = definitions(adapter).iter().find(|(n, ..)| *n == name) else {
            return error(
                1,
                format!("-E- The Device doesn't support {name} parameter\n"),
            );
        };
        let Some(number) = read_value(*kind, value) else {
            return error(1, format!("-E- Bad value for parameter {name}: {value}\n"));
        };
        changes.push((name.to_owned(), *kind, number));
    }
    let mut out = header(adapter, dev);
    out.push_str(&format!("{:<57}Next Boot       New\n", "Configurations:"));
    for (name, kind, number) in &changes {
        let old = values.get(name).map_or(0, |v| v.next);
        out.push_str(&format!(
            "        {name:<44}{:<21}{:<20}\n",
            text(*kind, old),
            text(*kind, *number)
        ));
    }
    out.push_str("\n Apply new Configuration? (y/n) [n] : ");
    if yes {
        out.push_str("y\n");
    } else {
        out.push_str(&format!("\n{}\n", answer.unwrap_or_default()));
    }
    let accepted =
        answer.is_some_and(|a| a.eq_ignore_ascii_case("y") || a.eq_ignore_ascii_case("yes"));
    if !accepted {
        // `printErr` prints on stdout, as every `-E-` line of the tool.
        out.push_str("-E- Aborted by user.\n");
        return ExecOutput {
            code: 1,
            stdout: out,
            stderr: String::new(),
        };
    }
    for (name, _, number) in changes {
        let entry = values.entry(name).or_insert(Values {
            current: number,
            next: number,
        });
        entry.next = number;
    }
    out.push_str("Applying... Done!\n-I- Please reboot machine to load new configurations.\n");
    ok(out)
}

#[cfg(test)]
mod tests {
    /// The passthrough contract: the link types `mlxconfig` saves are what a guest reads.
    #[test]
    fn the_current_link_types_read_back_as_the_guests_view() {
        use crate::machine::passthrough::{FirmwareLinks, MLXCONFIG_SLOT};

        assert_eq!(Mlxconfig.name(), MLXCONFIG_SLOT);
        let mut state = MlxconfigState::default();
        let params = BTreeMap::from([
            (
                "LINK_TYPE_P1".to_owned(),
                Values {
                    current: 1,
                    next: 2,
                },
            ),
            (
                "LINK_TYPE_P2".to_owned(),
                Values {
                    current: 2,
                    next: 2,
                },
            ),
        ]);
        state.devices.insert("mt4119_pciconf1".into(), params);
        let saved = serde_json::to_value(&state).unwrap_or_default();
        let view: FirmwareLinks = serde_json::from_value(saved).unwrap_or_default();
        let current = |p: &str| view.devices["mt4119_pciconf1"].get(p).map(|v| v.current);
        assert_eq!(
            (current("LINK_TYPE_P1"), current("LINK_TYPE_P2")),
            (Some(1), Some(2))
        );
    }

    use super::*;

    fn cx5() -> Adapter {
        crate::machine::esxi::parse_adapters("cx5@3b")
            .unwrap_or_default()
            .into_iter()
            .next()
            .unwrap_or_else(|| panic!("no adapter"))
    }

    fn guide_values() -> BTreeMap<String, Values> {
        CX5_PARAMETERS
            .iter()
            .map(|(n, _, _, v)| {
                (
                    (*n).to_owned(),
                    Values {
                        current: *v,
                        next: *v,
                    },
                )
            })
            .collect()
    }

    #[test]
    fn query_and_set_print_what_our_parsers_read() {
        let mut values = guide_values();
        let q = query(&cx5(), "mt4119_pciconf0", &values, true);
        let parsed = crate::mlxconfig::parse_query(&q).unwrap_or_else(|e| panic!("{e}\n{q}"));
        let device = parsed
            .devices
            .first()
            .unwrap_or_else(|| panic!("no device"));
        assert_eq!(device.configurations.len(), CX5_PARAMETERS.len());
        let plain = query(&cx5(), "mt4119_pciconf0", &values, false);
        crate::mlxconfig::parse_query(&plain).unwrap_or_else(|e| panic!("{e}\n{plain}"));
        let out = set(
            &cx5(),
            "mt4119_pciconf0",
            &mut values,
            &["LINK_TYPE_P1=IB".into(), "SRIOV_EN=0".into()],
            Some("y"),
            true,
        );
        assert_eq!(out.code, 0);
        let parsed = crate::mlxconfig::parse_set(&out.stdout)
            .unwrap_or_else(|e| panic!("{e}\n{}", out.stdout));
        assert!(parsed.reboot_required);
        assert_eq!(
            values.get("LINK_TYPE_P1").map(|v| (v.current, v.next)),
            Some((2, 1))
        );
        assert_eq!(
            set(
                &cx5(),
                "x",
                &mut values,
                &["NOPE=1".into()],
                Some("y"),
                true
            )
            .code,
            1
        );
    }

    /// A set without `-y`: the answer on its own line, as the parser reads it; `n` applies
    /// nothing and the tool says `Aborted by user.`.
    #[test]
    fn an_answer_of_n_applies_nothing_and_the_parser_says_so() {
        let mut values = guide_values();
        let before = values.clone();
        let pairs = ["SRIOV_EN=1".to_owned()];
        let refused = set(&cx5(), "3b:00.0", &mut values, &pairs, Some("n"), false);
        assert_eq!(values, before);
        let parsed = crate::mlxconfig::parse_set(&refused.stdout)
            .unwrap_or_else(|e| panic!("{e}\n{}", refused.stdout));
        assert_eq!(parsed.answer.as_deref(), Some("n"));
        assert!(!parsed.applied);
        assert_eq!(parsed.error.map(|e| e.kind).as_deref(), Some("aborted"));
        let applied = set(&cx5(), "3b:00.0", &mut values, &pairs, Some("y"), false);
        let parsed = crate::mlxconfig::parse_set(&applied.stdout)
            .unwrap_or_else(|e| panic!("{e}\n{}", applied.stdout));
        assert!(parsed.applied && parsed.error.is_none());
    }
}
