//! The `mlxconfig::` builtins: query and set a ConnectX adapter's firmware configuration
//! (VMware's guide section 2.2.3).

use cairn_runtime::{ActionError, HostIo, Outcome, Reconcile};
use rhai::plugin::*;
use rhai::{Map, NativeCallContext};
use serde_json::{Value, json};

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{ConfigValue, ParamValues, command, reads};
use crate::action::{self, Change, Compared, Probe, RhaiResult};

/// The `mlxconfig::` module.
#[export_module]
pub mod mlxconfig_builtins {
    use super::*;

    /// Every parameter of a device (`mt4119_pciconf1`, `3b:00.0`), from `mlxconfig -d DEV -e
    /// query`: `#{device_type, name, description, device, configurations, params}`. `params`
    /// maps each parameter to `#{default, current, next_boot, modified}`, each value
    /// `#{text, label, number}` (`IB(1)` → label `IB`, number 1). In check mode, on a host
    /// where MFT is not installed yet, `params` is empty, `predicted` is true and `unknown`
    /// says what a value would read (`unknown until MFT is installed`).
    ///
    /// ```rhai
    /// let q = mlxconfig::query("mt4119_pciconf1");
    /// log(`port 1 is ${q.params.LINK_TYPE_P1.current.label} now, ${q.params.LINK_TYPE_P1.next_boot.label} after a reboot`);
    /// ```
    #[rhai_fn(volatile, return_raw)]
    pub fn query(ctx: NativeCallContext, dev: String) -> RhaiResult<Map> {
        let device = action::query_typed(
            &ctx,
            crate::mlxconfig::NAMESPACE,
            json!({ "device": dev }),
            "mlxconfig's device query",
            |io| match reads::device(io, &dev)? {
                Some(device) => Ok(device),
                None if io.checking() => Ok(reads::predicted(&dev)),
                None => Err(action::not_installed("mlxconfig", io.host())),
            },
        )?;
        action::as_map(&device)
    }

    /// Sets firmware parameters for the next boot, idempotently: queries first and sets only
    /// the ones whose next-boot value differs (`mlxconfig -d DEV -y set K=V...`). Values are
    /// numbers or labels: `LINK_TYPE_P1: "IB"` and `LINK_TYPE_P1: 1` are the same. Returns
    /// `#{device, changed: #{KEY: #{from, to}}, reboot_required}`; marks the host
    /// reboot-pending when a next-boot value differs from the current one.
    ///
    /// ```rhai
    /// mlxconfig::set("mt4119_pciconf1", #{ LINK_TYPE_P1: "IB", LINK_TYPE_P2: "ETH" });
    /// mlxconfig::set("mt4119_pciconf1", #{ ADVANCED_PCI_SETTINGS: 0, SRIOV_EN: 0 });
    /// reboot_if_pending();
    /// ```
    #[rhai_fn(volatile, return_raw)]
    pub fn set(ctx: NativeCallContext, dev: String, values: Map) -> RhaiResult<Map> {
        set_values(&ctx, &dev, &values)
    }
}

/// What `mlxconfig::set` returns: each value it set with the next-boot value it had, and
/// whether a reboot is owed; `predicted` in check mode before MFT is installed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct SetResult {
    device: String,
    changed: BTreeMap<String, ParamChange>,
    reboot_required: bool,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    predicted: bool,
}

/// One value `mlxconfig::set` set: its next-boot text before (none when not known) and the
/// value asked for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct ParamChange {
    #[serde(deserialize_with = "action::present")]
    from: Option<String>,
    to: String,
}

/// What a script asked for: a number, or a label (`IB`, `True`).
#[derive(Debug, Clone, PartialEq)]
enum Wanted {
    Number(u64),
    Label(String),
}

impl Wanted {
    fn from_json(value: &Value) -> Result<Self, String> {
        match value {
            Value::Number(n) => n
                .as_u64()
                .map(Self::Number)
                .ok_or_else(|| format!("{n} is not a mlxconfig value (a non-negative integer)")),
            Value::Bool(b) => Ok(Self::Number(u64::from(*b))),
            Value::String(text) => {
                let text = text.trim();
                if text.is_empty() || text.contains(char::is_whitespace) || text.contains('=') {
                    return Err(format!("`{text}` is not a mlxconfig value"));
                }
                Ok(text
                    .parse::<u64>()
                    .map_or_else(|_| Self::Label(text.to_owned()), Self::Number))
            }
            other => Err(format!("{other} is not a mlxconfig value")),
        }
    }

    /// Whether a printed value is this one; a column the tool did not print is none.
    fn matches(&self, value: Option<&ConfigValue>) -> bool {
        let Some(value) = value else {
            return false;
        };
        match self {
            Self::Number(n) => value.number == Some(*n),
            Self::Label(label) => {
                value
                    .label
                    .as_deref()
                    .is_some_and(|l| l.eq_ignore_ascii_case(label))
                    || value.text.eq_ignore_ascii_case(label)
                    || known_number(label).is_some_and(|n| value.number == Some(n))
            }
        }
    }

    fn arg(&self) -> String {
        match self {
            Self::Number(n) => n.to_string(),
            Self::Label(label) => label.clone(),
        }
    }
}

/// Labels whose numbers mlxconfig fixes for every device.
fn known_number(label: &str) -> Option<u64> {
    match label.to_ascii_uppercase().as_str() {
        "IB" | "TRUE" => Some(1),
        "ETH" => Some(2),
        "VPI" => Some(3),
        "FALSE" => Some(0),
        _ => None,
    }
}

/// What a set must do to a device's parameters.
#[derive(Debug, PartialEq)]
struct Plan {
    /// The requested keys whose next-boot value differs, with the next-boot text they had.
    differ: Vec<(String, Option<String>)>,
    /// Whether a requested value differs from the current one: a reboot is owed.
    reboot: bool,
}

/// What a set of `wanted` values must do to `params`.
fn plan(
    params: &BTreeMap<String, ParamValues>,
    wanted: &[(String, Wanted)],
    dev: &str,
) -> Result<Plan, ActionError> {
    let mut differ = Vec::new();
    let mut reboot = false;
    for (key, want) in wanted {
        let Some(param) = params.get(key) else {
            return Err(ActionError::Failed(format!(
                "`{dev}` has no firmware parameter `{key}` (mlxconfig -d {dev} -e query lists its parameters)"
            )));
        };
        if !want.matches(param.next_boot.as_ref()) {
            let from = param.next_boot.as_ref().map(|v| v.text.clone());
            differ.push((key.clone(), from));
        }
        if !want.matches(param.current.as_ref()) {
            reboot = true;
        }
    }
    Ok(Plan { differ, reboot })
}

fn set_values(ctx: &NativeCallContext, dev: &str, values: &Map) -> RhaiResult<Map> {
    let (requested, wanted) = wanted_values(ctx, values)?;
    let change = Change {
        namespace: crate::mlxconfig::NAMESPACE,
        args: json!({ "device": dev, "values": requested }),
        assumed: json!({ "device": dev, "changed": {}, "reboot_required": true }),
        reconcile: settled_by_next_boot(dev.to_owned(), wanted.clone()),
    };
    let set: SetResult = change.run_staged(
        ctx,
        |io| reads::device(io, dev),
        |io, device| match device {
            Some(device) => compare(&device.params, &wanted, dev),
            None if io.checking() => Ok(predicted(&wanted, dev)),
            None => Err(action::not_installed("mlxconfig", io.host())),
        },
        |io, pairs, planned| apply(io, dev, &pairs, planned),
        "mlxconfig::set's result",
        |set| reboot_probe(set, &wanted, dev),
    )?;
    action::as_map(&set)
}

/// The values a script asked for, as JSON (the action's arguments) and read; at least one.
fn wanted_values(
    ctx: &NativeCallContext,
    values: &Map,
) -> RhaiResult<(Value, Vec<(String, Wanted)>)> {
    let requested = action::from_dynamic(&Dynamic::from_map(values.clone()))?;
    let mut wanted = Vec::new();
    for (key, value) in requested.as_object().into_iter().flatten() {
        let want = Wanted::from_json(value)
            .map_err(|e| action::bad_argument(ctx, format!("mlxconfig::set {key}: {e}")))?;
        wanted.push((key.clone(), want));
    }
    if wanted.is_empty() {
        return Err(action::bad_argument(
            ctx,
            "mlxconfig::set needs at least one KEY: value".into(),
        ));
    }
    Ok((requested, wanted))
}

/// An interrupted set is settled by the next-boot values: all as asked means the set happened
/// (if it got as far as recording what differed).
fn settled_by_next_boot(dev: String, wanted: Vec<(String, Wanted)>) -> Reconcile<'static> {
    Reconcile::Marked(Box::new(move |io, _| {
        let Some(device) = reads::device(io, &dev)? else {
            return Ok(None);
        };
        let Plan { differ, reboot } = plan(&device.params, &wanted, &dev)?;
        Ok(differ.is_empty().then(|| Outcome {
            changed: true,
            reboot_required: reboot,
            value: json!({ "device": dev, "changed": {}, "reboot_required": reboot }),
        }))
    }))
}

/// In check mode before MFT is installed: every value asked for would be set, from a value not
/// known, and a reboot is owed.
fn predicted(wanted: &[(String, Wanted)], dev: &str) -> Compared<Vec<(String, String)>> {
    let changed = wanted
        .iter()
        .map(|(k, w)| {
            (
                k.clone(),
                ParamChange {
                    from: None,
                    to: w.arg(),
                },
            )
        })
        .collect();
    let value = action::json(&SetResult {
        device: dev.to_owned(),
        changed,
        reboot_required: true,
        predicted: true,
    });
    Compared::differs(value, true, Value::Null, Vec::new())
}

/// The device's values against those asked for: the ones whose next-boot value differs are
/// set (`KEY=VALUE` pairs, their next-boot values marked before); none differing, a reboot
/// may still be owed for values set before.
fn compare(
    params: &BTreeMap<String, ParamValues>,
    wanted: &[(String, Wanted)],
    dev: &str,
) -> Result<Compared<Vec<(String, String)>>, ActionError> {
    let Plan { differ, reboot } = plan(params, wanted, dev)?;
    let changed = wanted
        .iter()
        .filter_map(|(key, want)| {
            let (_, from) = differ.iter().find(|(d, _)| d == key)?;
            Some((
                key.clone(),
                ParamChange {
                    from: from.clone(),
                    to: want.arg(),
                },
            ))
        })
        .collect();
    let acting = action::json(&changed);
    let value = action::json(&SetResult {
        device: dev.to_owned(),
        changed,
        reboot_required: reboot,
        predicted: false,
    });
    if differ.is_empty() {
        return Ok(if reboot {
            Compared::Owed(value)
        } else {
            Compared::Same(value)
        });
    }
    let pairs: Vec<(String, String)> = wanted
        .iter()
        .filter(|(k, _)| differ.iter().any(|(d, _)| d == k))
        .map(|(k, w)| (k.clone(), w.arg()))
        .collect();
    Ok(Compared::differs(value, reboot, acting, pairs))
}

/// Sets the differing `pairs` with `mlxconfig -y set`, which must say `Done!` and no error.
fn apply(
    io: &mut HostIo<'_>,
    dev: &str,
    pairs: &[(String, String)],
    planned: Outcome,
) -> Result<Outcome, ActionError> {
    if pairs.is_empty() {
        return Ok(planned);
    }
    let argv = command::set(dev, pairs);
    let result = action::run_parsed(io, &argv, crate::mlxconfig::parse_set)?;
    if !result.messages.errors.is_empty() || result.applying.as_deref() != Some("Done!") {
        return Err(ActionError::ToolSaid {
            command: argv.join(" "),
            said: format!("did not apply{}", reads::errors_of(&result.messages.errors)),
        });
    }
    Ok(planned)
}

/// When the set owes a reboot: the check after it that every value took.
fn reboot_probe(set: &SetResult, wanted: &[(String, Wanted)], dev: &str) -> Option<Probe> {
    if !set.reboot_required {
        return None;
    }
    let names: Vec<&str> = wanted.iter().map(|(k, _)| k.as_str()).collect();
    Some(Probe {
        what: format!("mlxconfig {} {}", dev, names.join(" ")),
        check: applied_after_boot(dev.to_owned(), wanted.to_vec()),
    })
}

/// The reboot-loop breaker's check for `mlxconfig::set`: after the reboot every value asked
/// for is the current one, or the firmware did not apply it (a setting it refuses or resets),
/// and staging it again would only reboot the host again.
fn applied_after_boot(dev: String, wanted: Vec<(String, Wanted)>) -> cairn_runtime::AfterBoot {
    std::sync::Arc::new(move |io| {
        let Some(device) = reads::device(io, &dev)? else {
            return Err(action::not_installed("mlxconfig", io.host()));
        };
        for (key, want) in &wanted {
            let current = device.params.get(key).and_then(|p| p.current.as_ref());
            if !want.matches(current) {
                let seen = current.map_or_else(|| "not printed".to_owned(), |v| v.text.clone());
                return Ok(Some(action::not_applied(
                    io,
                    format!("mlxconfig {key}"),
                    seen,
                    "the firmware did not apply it",
                )));
            }
        }
        Ok(None)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value(text: &str, label: &str, number: u64) -> ConfigValue {
        ConfigValue {
            text: text.into(),
            label: Some(label.into()),
            number: Some(number),
        }
    }

    #[test]
    fn names_and_numbers_are_the_same_value() {
        let ib = value("IB(1)", "IB", 1);
        let is_ib = |asked: Value| Wanted::from_json(&asked).is_ok_and(|w| w.matches(Some(&ib)));
        assert!(is_ib(json!("IB")) && is_ib(json!("ib")) && is_ib(json!(1)) && is_ib(json!("1")));
        assert!(!is_ib(json!("ETH")) && !is_ib(json!(2)));
        assert!(Wanted::from_json(&json!("a=b")).is_err());
        assert!(!Wanted::Number(1).matches(None), "a column not printed");
        let params = BTreeMap::from([(
            "LINK_TYPE_P1".to_owned(),
            ParamValues {
                default: None,
                current: Some(value("ETH(2)", "ETH", 2)),
                next_boot: Some(ib.clone()),
                modified: true,
            },
        )]);
        let wanted = vec![("LINK_TYPE_P1".to_owned(), Wanted::Number(1))];
        let set = plan(&params, &wanted, "d").unwrap_or_else(|e| panic!("{e}"));
        assert!(
            set.differ.is_empty() && set.reboot,
            "already set for the next boot, reboot owed"
        );
        let eth = vec![("LINK_TYPE_P1".to_owned(), Wanted::Label("ETH".into()))];
        let set = plan(&params, &eth, "d").unwrap_or_else(|e| panic!("{e}"));
        let was_ib = vec![("LINK_TYPE_P1".to_owned(), Some("IB(1)".to_owned()))];
        assert_eq!(
            set,
            Plan {
                differ: was_ib,
                reboot: false
            }
        );
        let missing = vec![("NOPE".to_owned(), Wanted::Number(1))];
        assert!(plan(&params, &missing, "d").is_err());
    }
}

#[cfg(test)]
mod engine_tests {
    use crate::test_support::{INSTALL_TOOLS, TestHost};

    #[test]
    fn set_is_idempotent_by_name_or_number_and_owes_a_reboot_until_one() {
        let t = TestHost::esxi("").build();
        t.run(INSTALL_TOOLS);
        let q = t.eval(r#"let q = mlxconfig::query("mt4119_pciconf1"); [q.params.LINK_TYPE_P1.current.label, q.params.SRIOV_EN.current.number, q.device_type]"#);
        assert_eq!(q.to_string(), r#"["ETH", 1, "ConnectX5"]"#);
        let set = t
            .eval(r#"mlxconfig::set("mt4119_pciconf1", #{ LINK_TYPE_P1: "IB", LINK_TYPE_P2: 2 })"#);
        assert!(
            set.to_string().contains("LINK_TYPE_P1") && !set.to_string().contains("LINK_TYPE_P2"),
            "{set}"
        );
        assert!(t.reboot_pending());
        let t = t.again(false);
        let again = t.eval(r#"mlxconfig::set("3b:00.0", #{ LINK_TYPE_P1: 1 })"#);
        assert!(
            again.to_string().contains(r#""reboot_required": true"#),
            "set for the next boot, not current yet: {again}"
        );
        assert!(t.changes().is_empty());
        assert!(t.reboot_pending(), "still owes the reboot");
        t.run("reboot()");
        let t = t.again(false);
        assert_eq!(
            t.eval(r#"mlxconfig::query("mt4119_pciconf1").params.LINK_TYPE_P1.current.label"#)
                .to_string(),
            "IB"
        );
        t.run(r#"mlxconfig::set("mt4119_pciconf1", #{ LINK_TYPE_P1: "ib" })"#);
        assert!(t.changes().is_empty() && !t.reboot_pending());
        assert!(
            t.error(r#"mlxconfig::set("mt4119_pciconf1", #{ NOPE: 1 })"#)
                .contains("no firmware parameter `NOPE`")
        );
        assert!(
            t.error(r#"mlxconfig::set("mt4119_pciconf1", #{})"#)
                .contains("at least one")
        );
        let sets = t
            .commands("esx01")
            .iter()
            .filter(|a| a.get(3).is_some_and(|s| s == "-y"))
            .count();
        assert_eq!(sets, 1, "one set ran in all");
    }

    #[test]
    fn check_mode_before_mft_predicts_every_key() {
        let t = TestHost::esxi("").check(true).build();
        let set = t.eval(r#"mlxconfig::set("mt4119_pciconf1", #{ SRIOV_EN: 0 })"#);
        assert!(set.to_string().contains(r#""predicted": true"#), "{set}");
        assert!(t.reboot_pending());
        assert!(
            t.eval(r#"mlxconfig::query("mt4119_pciconf1").predicted"#)
                .as_bool()
                .unwrap_or(false)
        );
    }
}
