//! The option maps of `qos::set`, `qos::set_ecn` and `qos::set_roce_tos`, declared once for the
//! builtins and `cairn check`, and read into what is wanted, checked before anything runs: a
//! list of the wrong length, a priority past 7, a DSCP past 63 or shares that do not sum to 100
//! are refused at the call, never passed on for the tool to half-apply.

use cairn_runtime::{BuiltinOptions, OptionType};
use rhai::{Dynamic, Map};

use crate::action::key;

/// `qos::set`'s keys.
pub(crate) const SET_OPTIONS: BuiltinOptions = BuiltinOptions {
    builtin: "qos::set",
    arg: 1,
    keys: &[
        key("dscp2prio", OptionType::Array),
        key("pfc", OptionType::Array),
        key("prio_tc", OptionType::Array),
        key("tcbw", OptionType::Array),
        key("trust", OptionType::Text),
        key("tsa", OptionType::Array),
    ],
};

/// `qos::set_ecn`'s keys.
pub(crate) const ECN_OPTIONS: BuiltinOptions = BuiltinOptions {
    builtin: "qos::set_ecn",
    arg: 1,
    keys: &[
        key("notification_point", OptionType::Bool),
        key("priorities", OptionType::Array),
        key("reaction_point", OptionType::Bool),
    ],
};

/// `qos::set_roce_tos`'s keys.
pub(crate) const TOS_OPTIONS: BuiltinOptions = BuiltinOptions {
    builtin: "qos::set_roce_tos",
    arg: 1,
    keys: &[key("dscp", OptionType::Int), key("ecn", OptionType::Bool)],
};

/// A transmission selection algorithm `mlnx_qos --tsa` takes.
pub(crate) const TSAS: &[&str] = &["ets", "strict", "vendor"];

/// What `qos::set` was asked for; `None` is a setting left as it is.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct QosWanted {
    pub(crate) trust: Option<String>,
    pub(crate) pfc: Option<[u8; 8]>,
    pub(crate) tsa: Option<[String; 8]>,
    pub(crate) tcbw: Option<[u8; 8]>,
    pub(crate) prio_tc: Option<[u8; 8]>,
    /// `(dscp, priority)`, in the order given.
    pub(crate) dscp2prio: Vec<(u8, u8)>,
}

/// An integer of a list in `0..=max`.
fn small(value: &Dynamic, max: u8, what: &str) -> Result<u8, String> {
    value
        .as_int()
        .ok()
        .and_then(|v| u8::try_from(v).ok())
        .filter(|v| *v <= max)
        .ok_or_else(|| format!("{what} takes integers 0 to {max}, not `{value}`"))
}

/// Eight integers in `0..=max`, one per priority or traffic class.
fn eight(options: &Map, name: &str, max: u8) -> Result<Option<[u8; 8]>, String> {
    let Some(list) = options.get(name) else {
        return Ok(None);
    };
    let items = list.clone().into_array().unwrap_or_default();
    if items.len() != 8 {
        return Err(format!(
            "`{name}` takes 8 values (one per priority or traffic class 0 to 7), not {}",
            items.len()
        ));
    }
    let mut values = [0u8; 8];
    for (slot, item) in values.iter_mut().zip(&items) {
        *slot = small(item, max, &format!("`{name}`"))?;
    }
    Ok(Some(values))
}

/// `tsa`: eight of [`TSAS`].
fn tsa(options: &Map) -> Result<Option<[String; 8]>, String> {
    let Some(list) = options.get("tsa") else {
        return Ok(None);
    };
    let items = list.clone().into_array().unwrap_or_default();
    let names: Vec<String> = items.iter().map(ToString::to_string).collect();
    if names.len() != 8 {
        return Err(format!(
            "`tsa` takes 8 values (one per traffic class), not {}",
            names.len()
        ));
    }
    if let Some(bad) = names.iter().find(|n| !TSAS.contains(&n.as_str())) {
        let near = cairn_runtime::inventory::closest(bad, TSAS.iter().copied())
            .map(|near| format!("did you mean `{near}`? "))
            .unwrap_or_default();
        return Err(format!(
            "`tsa` has no algorithm `{bad}`; {near}it takes {}",
            TSAS.join(", ")
        ));
    }
    Ok(names.try_into().ok())
}

/// `dscp2prio`: `[[DSCP, PRIORITY], ...]`.
fn dscp2prio(options: &Map) -> Result<Vec<(u8, u8)>, String> {
    let Some(list) = options.get("dscp2prio") else {
        return Ok(Vec::new());
    };
    let mut pairs = Vec::new();
    for item in list.clone().into_array().unwrap_or_default() {
        let pair = item.clone().into_array().unwrap_or_default();
        let [dscp, prio] = pair.as_slice() else {
            return Err(format!(
                "`dscp2prio` takes [DSCP, PRIORITY] pairs (`[[26, 3]]`), not `{item}`"
            ));
        };
        pairs.push((small(dscp, 63, "a DSCP")?, small(prio, 7, "a priority")?));
    }
    Ok(pairs)
}

/// Reads and checks `qos::set`'s map (its keys already checked against [`SET_OPTIONS`]).
pub(crate) fn qos_wanted(options: &Map) -> Result<QosWanted, String> {
    let trust = options.get("trust").map(ToString::to_string);
    if let Some(trust) = &trust
        && trust != "dscp"
        && trust != "pcp"
    {
        return Err(format!("`trust` is `dscp` or `pcp`, not `{trust}`"));
    }
    let wanted = QosWanted {
        pfc: eight(options, "pfc", 1)?,
        tsa: tsa(options)?,
        tcbw: eight(options, "tcbw", 100)?,
        prio_tc: eight(options, "prio_tc", 7)?,
        dscp2prio: dscp2prio(options)?,
        trust,
    };
    if !wanted.dscp2prio.is_empty() && wanted.trust.as_deref() == Some("pcp") {
        return Err(
            "`dscp2prio` maps DSCP values, which trust `pcp` ignores: ask `trust: \"dscp\"`".into(),
        );
    }
    if let Some(tcbw) = wanted.tcbw {
        let ets = |tc: usize| wanted.tsa.as_ref().is_none_or(|tsa| tsa[tc] == "ets");
        if let Some(tc) = (0..8).find(|tc| tcbw[*tc] != 0 && !ets(*tc)) {
            return Err(format!(
                "`tcbw` gives traffic class {tc} a share, but its `tsa` is not `ets`"
            ));
        }
        let sum: u32 = tcbw.iter().map(|bw| u32::from(*bw)).sum();
        if sum != 100 {
            return Err(format!("`tcbw`'s shares sum to {sum}, not 100"));
        }
    }
    Ok(wanted)
}

/// What `qos::set_ecn` was asked for: which switches of which priorities, to what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct EcnWanted {
    pub(crate) priorities: Vec<u8>,
    pub(crate) notification_point: Option<bool>,
    pub(crate) reaction_point: Option<bool>,
}

/// Reads and checks `qos::set_ecn`'s map: `priorities` and at least one of the points.
pub(crate) fn ecn_wanted(options: &Map) -> Result<EcnWanted, String> {
    let Some(list) = options.get("priorities") else {
        return Err("`qos::set_ecn` needs `priorities`: the RoCE priorities, `[3]`".into());
    };
    let mut priorities = Vec::new();
    for item in list.clone().into_array().unwrap_or_default() {
        priorities.push(small(&item, 7, "`priorities`")?);
    }
    if priorities.is_empty() {
        return Err("`priorities` is empty: name the RoCE priorities, `[3]`".into());
    }
    let point = |name: &str| options.get(name).and_then(|v| v.as_bool().ok());
    let wanted = EcnWanted {
        priorities,
        notification_point: point("notification_point"),
        reaction_point: point("reaction_point"),
    };
    if wanted.notification_point.is_none() && wanted.reaction_point.is_none() {
        return Err(
            "`qos::set_ecn` needs `notification_point` or `reaction_point` (true or false)".into(),
        );
    }
    Ok(wanted)
}

/// Reads and checks `qos::set_roce_tos`'s map: the DSCP and the ECN flag, both required.
pub(crate) fn tos_wanted(options: &Map) -> Result<(u8, bool), String> {
    let dscp = options
        .get("dscp")
        .ok_or("`qos::set_roce_tos` needs `dscp`: the RoCE traffic's DSCP, 0 to 63")?;
    let dscp = small(dscp, 63, "`dscp`")?;
    let ecn = options.get("ecn").and_then(|v| v.as_bool().ok()).ok_or(
        "`qos::set_roce_tos` needs `ecn`: whether RoCE packets are ECN-capable (true for DCQCN)",
    )?;
    Ok((dscp, ecn))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(script: &str) -> Map {
        rhai::Engine::new()
            .eval::<Map>(script)
            .unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn a_setting_is_read_or_refused_saying_why() {
        let wanted = qos_wanted(&map(
            r#"#{ trust: "dscp", pfc: [0,0,0,1,0,0,0,0], dscp2prio: [[26, 3]] }"#,
        ));
        assert_eq!(
            wanted,
            Ok(QosWanted {
                trust: Some("dscp".into()),
                pfc: Some([0, 0, 0, 1, 0, 0, 0, 0]),
                dscp2prio: vec![(26, 3)],
                ..QosWanted::default()
            })
        );
        let refused = |script: &str| qos_wanted(&map(script)).err().unwrap_or_default();
        assert!(refused("#{ pfc: [0,0,0,1] }").contains("8 values"));
        assert!(refused("#{ pfc: [0,0,0,2,0,0,0,0] }").contains("0 to 1"));
        assert!(refused(r#"#{ trust: "l2" }"#).contains("`dscp` or `pcp`"));
        assert!(refused("#{ dscp2prio: [[64, 3]] }").contains("DSCP takes integers 0 to 63"));
        assert!(refused("#{ dscp2prio: [26, 3] }").contains("[DSCP, PRIORITY] pairs"));
        assert!(refused("#{ tcbw: [50,40,0,0,0,0,0,0] }").contains("sum to 90"));
        assert!(
            refused(r#"#{ tsa: ["ets","ets","strict","ets","ets","ets","ets","etx"] }"#)
                .contains("did you mean `ets`")
        );
        assert!(
            refused(r#"#{ tsa: ["ets","strict","ets","ets","ets","ets","ets","ets"], tcbw: [50,50,0,0,0,0,0,0] }"#)
                .contains("traffic class 1")
        );
        assert!(refused(r#"#{ trust: "pcp", dscp2prio: [[26, 3]] }"#).contains("trust `pcp`"));
    }

    #[test]
    fn ecn_and_tos_need_what_they_set() {
        assert!(ecn_wanted(&map("#{ priorities: [3] }")).is_err());
        assert!(ecn_wanted(&map("#{ notification_point: true }")).is_err());
        assert_eq!(
            ecn_wanted(&map("#{ priorities: [3], reaction_point: true }")),
            Ok(EcnWanted {
                priorities: vec![3],
                notification_point: None,
                reaction_point: Some(true)
            })
        );
        assert_eq!(tos_wanted(&map("#{ dscp: 26, ecn: true }")), Ok((26, true)));
        assert!(tos_wanted(&map("#{ dscp: 26 }")).is_err());
        assert!(tos_wanted(&map("#{ dscp: 106, ecn: true }")).is_err());
    }
}
