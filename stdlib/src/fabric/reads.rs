//! What `fabric::all_pairs` reads from the fabric as queries of their own: the first host's
//! port rate (`fabric::line_rate`, for the plan) and each host's leaf switch (`fabric::leaves`,
//! for the suspects). Each is journaled as its type and read back as it
//! (`action::query_typed_as`): a replayed record of another shape is refused naming it, never
//! read as an unknown rate or a fabric without leaves.

use std::collections::BTreeMap;

use cairn_runtime::{ExecRequest, HostContext};
use rhai::NativeCallContext;
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::options::AllPairsOptions;
use crate::action::{self, RhaiResult};

/// `fabric::line_rate`: the first host's port rate in Gb/s (`ibstat DEV` there); none in check
/// mode or when `ibstat` does not say. Journaled as the number, or `null`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct LineRate(pub Option<f64>);

/// `fabric::leaves`: each host's leaf switch (its node description), from `ibnetdiscover` on
/// the first host; none in check mode, or when it does not run there (a RoCE fabric, no subnet
/// manager) or is not in its format. Journaled as the map, or `null`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Leaves(pub Option<BTreeMap<String, String>>);

/// The first host's port rate in Gb/s, for the plan: a journaled query.
pub(super) fn line_rate(
    ctx: &NativeCallContext,
    names: &[String],
    opts: &AllPairsOptions,
) -> RhaiResult<Option<f64>> {
    let Some(first) = names.first() else {
        return Ok(None);
    };
    let host = HostContext::current(ctx)?;
    let shared = host.shared.clone();
    let device = opts.perftest.device.clone();
    let args = json!({ "host": first, "device": device });
    let expected = "fabric::line_rate's port rate";
    let rate = action::query_typed_as(ctx, "fabric::line_rate", args, expected, |io| {
        if io.checking() {
            return Ok(LineRate(None));
        }
        let request = ExecRequest::new(["ibstat", device.as_str()]);
        let output = crate::pair::exec_on(Some(io), &shared, first, &request)?;
        let rate = crate::grammar::read_output(&output.stdout, crate::ib::ibstat::parse)
            .ok()
            .and_then(|s| s.cas.into_iter().find(|ca| ca.name == device))
            .and_then(|ca| ca.ports.into_iter().find_map(|p| p.rate_gbps));
        Ok(LineRate(rate))
    })?;
    Ok(rate.0)
}

/// Each host's leaf switch (journaled as `fabric::leaves`, redone on resume); empty when
/// `ibnetdiscover` says none: the suspects are then hosts and pairs only.
pub(super) fn leaves(
    ctx: &NativeCallContext,
    names: &[String],
    opts: &AllPairsOptions,
) -> RhaiResult<BTreeMap<String, String>> {
    let Some(first) = names.first() else {
        return Ok(BTreeMap::new());
    };
    let host = HostContext::current(ctx)?;
    let shared = host.shared.clone();
    let device = opts.perftest.device.clone();
    let args = json!({ "host": first, "device": device });
    let expected = "fabric::leaves' leaf switches";
    let leaves = action::query_typed_as(ctx, "fabric::leaves", args, expected, |io| {
        if io.checking() {
            return Ok(Leaves(None));
        }
        // infiniband-diags' common option `-C <ca_name>` picks the port to discover from.
        let request = ExecRequest::new(["ibnetdiscover", "-C", device.as_str()]);
        let output = crate::pair::exec_on(Some(io), &shared, first, &request)?;
        if output.code != 0 {
            return Ok(Leaves(None));
        }
        Ok(Leaves(
            crate::grammar::read_output(&output.stdout, crate::ib::ibnetdiscover::parse)
                .ok()
                .map(|t| super::leaves::leaves(&t, names)),
        ))
    })?;
    Ok(leaves.0.unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::test_support::{TestHost, journal_of, shape_error};

    /// The records are journaled as the untyped queries wrote them: a rate as the number or
    /// `null`, the leaves as the map or `null`.
    #[test]
    fn a_rate_and_the_leaves_journal_as_before_and_read_back() {
        let map = BTreeMap::from([
            ("n1".to_owned(), "leaf-a".to_owned()),
            ("n2".to_owned(), "leaf-b".to_owned()),
        ]);
        let rate: Option<f64> = Some(200.0);
        for (typed, old) in [
            (action::json(&LineRate(rate)), json!(rate)),
            (action::json(&LineRate(None)), json!(null)),
            (action::json(&Leaves(Some(map.clone()))), json!(map)),
            (action::json(&Leaves(None)), json!(null)),
        ] {
            assert_eq!(typed.to_string(), old.to_string());
        }
        assert_eq!(action::json(&LineRate(rate)).to_string(), "200.0");
        let back: Leaves = serde_json::from_value(json!(map)).expect("reads back");
        assert_eq!(back, Leaves(Some(map)));
        let back: LineRate = serde_json::from_value(json!(200.0)).expect("reads back");
        assert_eq!(back, LineRate(rate));
    }

    #[test]
    fn leaves_of_another_shape_do_not_read() {
        for shaped in [json!(["leaf-a"]), json!({ "n1": 1 }), json!("leaf-a")] {
            let read = serde_json::from_value::<Leaves>(shaped.clone());
            assert!(read.is_err(), "{shaped} read as {read:?}");
        }
    }

    /// A rate journaled as text (another cairn, or edited) is refused naming the record on
    /// resume, instead of planning the matrix as if the rate were unknown.
    #[test]
    fn a_replayed_rate_of_another_shape_is_refused_naming_the_record() {
        let args = json!({ "host": "n1", "device": "mlx5_0" });
        let guests = [("n1", ""), ("n2", "")];
        let t = TestHost::guests(&guests, "controller")
            .replaying(journal_of("fabric::line_rate", args, json!("200 Gb/s")))
            .build();
        let error = t.error(r#"fabric::all_pairs(["n1", "n2"], #{})"#);
        assert!(
            error.contains(&shape_error(
                "fabric::line_rate",
                "fabric::line_rate's port rate"
            )),
            "{error}"
        );
        assert!(error.contains("(journal test.jsonl line 3)"), "{error}");
    }
}
