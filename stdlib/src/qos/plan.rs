//! What `qos::set` has to run: the settings that differ between what `mlnx_qos` printed and
//! what is wanted, each as the flags of one `mlnx_qos` call (the tool takes `--trust` and
//! `--dscp2prio` only apart, and the ETS lists together).

use super::types::MlnxQos;
use super::wanted::QosWanted;

/// One `mlnx_qos` call's flags.
pub(crate) type Flags = Vec<(&'static str, String)>;

/// The calls for trust, PFC and ETS that differ, in that order. The DSCP map is planned apart
/// ([`dscp2prio`]), against the map in effect once trust is set.
pub(crate) fn settings(now: &MlnxQos, wanted: &QosWanted) -> Vec<Flags> {
    let mut calls = Vec::new();
    if let Some(trust) = &wanted.trust
        && now.trust_state.as_deref() != Some(trust.as_str())
    {
        calls.push(vec![("--trust", trust.clone())]);
    }
    if let Some(pfc) = wanted.pfc {
        let enabled = |prio: usize| {
            now.pfc
                .iter()
                .any(|p| usize::from(p.priority) == prio && p.enabled)
        };
        if (0..8).any(|prio| enabled(prio) != (pfc[prio] == 1)) {
            calls.push(vec![("--pfc", super::command::list(&pfc))]);
        }
    }
    let ets = ets(now, wanted);
    if !ets.is_empty() {
        calls.push(ets);
    }
    calls
}

/// `--tsa`, `--tcbw`, `--prio_tc` as asked, when any of them differs.
fn ets(now: &MlnxQos, wanted: &QosWanted) -> Flags {
    let tc = |index: usize| now.tcs.iter().find(|tc| usize::from(tc.tc) == index);
    let tsa_differs = wanted.tsa.as_ref().is_some_and(|tsa| {
        (0..8).any(|i| tc(i).and_then(|tc| tc.tsa.as_deref()) != Some(tsa[i].as_str()))
    });
    let bw_differs = wanted.tcbw.is_some_and(|tcbw| {
        (0..8).any(|i| tc(i).map_or(0, |tc| tc.bw_percent.unwrap_or(0)) != tcbw[i])
    });
    let tc_of = |prio: u8| {
        now.tcs
            .iter()
            .find(|tc| tc.priorities.contains(&prio))
            .map(|tc| tc.tc)
    };
    let prio_tc_differs = wanted
        .prio_tc
        .is_some_and(|prio_tc| (0..8u8).any(|p| tc_of(p) != Some(prio_tc[usize::from(p)])));
    if !(tsa_differs || bw_differs || prio_tc_differs) {
        return Vec::new();
    }
    let mut flags = Vec::new();
    if let Some(tsa) = &wanted.tsa {
        flags.push(("--tsa", tsa.join(",")));
    }
    if let Some(tcbw) = wanted.tcbw {
        flags.push(("--tcbw", super::command::list(&tcbw)));
    }
    if let Some(prio_tc) = wanted.prio_tc {
        flags.push(("--prio_tc", super::command::list(&prio_tc)));
    }
    flags
}

/// The `--dscp2prio set,DSCP,PRIO` flags of the mappings the port does not have yet, in one
/// call; `default_map` reads the map as the firmware's default (DSCP N to priority N >> 3),
/// which `--trust dscp` writes, for a check-mode plan before trust is set.
pub(crate) fn dscp2prio(now: &MlnxQos, wanted: &QosWanted, default_map: bool) -> Flags {
    let prio_of = |dscp: u8| {
        if default_map {
            return Some(dscp >> 3);
        }
        now.dscp2prio
            .iter()
            .find(|m| m.dscp.contains(&dscp))
            .map(|m| m.prio)
    };
    wanted
        .dscp2prio
        .iter()
        .filter(|(dscp, prio)| prio_of(*dscp) != Some(*prio))
        .map(|(dscp, prio)| ("--dscp2prio", format!("set,{dscp},{prio}")))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const NETARBITER: &str =
        include_str!("../../../tests/fixtures/mlnx-qos/netarbiter-cx-trust-dscp-pfc3-vendor.txt");

    fn published() -> MlnxQos {
        crate::qos::parse(crate::test_support::output_of(NETARBITER))
            .unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn only_what_differs_from_a_published_output_is_planned() {
        let now = published();
        let same = QosWanted {
            trust: Some("dscp".into()),
            pfc: Some([0, 0, 0, 1, 0, 0, 0, 0]),
            prio_tc: Some([1, 0, 2, 3, 4, 5, 6, 7]),
            dscp2prio: vec![(26, 3)],
            ..QosWanted::default()
        };
        assert!(settings(&now, &same).is_empty());
        assert!(dscp2prio(&now, &same, false).is_empty());
        let other = QosWanted {
            pfc: Some([0, 0, 0, 0, 1, 0, 0, 0]),
            tsa: Some(
                [
                    "ets", "ets", "ets", "ets", "strict", "vendor", "vendor", "vendor",
                ]
                .map(str::to_owned),
            ),
            tcbw: Some([10, 10, 40, 40, 0, 0, 0, 0]),
            dscp2prio: vec![(26, 3), (46, 3)],
            ..QosWanted::default()
        };
        let calls: Vec<String> = settings(&now, &other)
            .iter()
            .map(|flags| crate::qos::command::set("eth4", flags).join(" "))
            .collect();
        assert_eq!(
            calls,
            [
                "mlnx_qos -i eth4 --pfc 0,0,0,0,1,0,0,0",
                "mlnx_qos -i eth4 --tsa ets,ets,ets,ets,strict,vendor,vendor,vendor --tcbw 10,10,40,40,0,0,0,0",
            ]
        );
        assert_eq!(
            dscp2prio(&now, &other, false),
            vec![("--dscp2prio", "set,46,3".to_owned())]
        );
    }
}
