//! `fabric::all_pairs` against simulated guests.

use crate::test_support::TestHost;

const NDR: &str = "ofed=5.4-3.0.3.0&rate=200&ports=ib";
const EDR: &str = "ofed=5.4-3.0.3.0&rate=100&ports=ib";

fn lab(slow: Option<&str>) -> TestHost {
    let names = ["n1", "n2", "n3", "n4", "n5"];
    let guests: Vec<(&str, &str)> = names
        .iter()
        .map(|n| (*n, if Some(*n) == slow { EDR } else { NDR }))
        .collect();
    let t = TestHost::guests(&guests, "controller").build();
    for n in names {
        t.sleep(n, 3);
    }
    t
}

fn get(map: &rhai::Map, key: &str) -> rhai::Dynamic {
    map.get(key).cloned().unwrap_or_default()
}

#[test]
fn a_clean_fabric_passes_in_n_rounds_as_planned() {
    let t = lab(None);
    let r = t
        .eval(r#"fabric::all_pairs(["n1", "n2", "n3", "n4", "n5"], #{ test: "send_bw" })"#)
        .try_cast::<rhai::Map>()
        .unwrap_or_default();
    // Five hosts: five rounds of two pairs, each host sitting out one.
    assert_eq!(get(&r, "rounds").as_int().ok(), Some(5));
    let results = get(&r, "results").into_array().unwrap_or_default();
    assert_eq!(results.len(), 10);
    assert_eq!(get(&r, "passed").as_bool().ok(), Some(true), "{r:?}");
    assert_eq!(get(&r, "retest_rounds").as_int().ok(), Some(0));
    let planned = get(&r, "planned_s").as_float().unwrap_or(0.0);
    let took = get(&r, "took_s").as_float().unwrap_or(0.0);
    assert!(
        planned >= 5.0 && (took - planned).abs() <= planned * 0.1,
        "{planned} vs {took}"
    );
    let quick = t.eval(
        r#"let q = fabric::all_pairs(["n1", "n2", "n3", "n4", "n5"], #{ test: "send_lat", quick: true }); [q.rounds, q.results.len(), q.unit, q.passed]"#,
    );
    assert_eq!(quick.to_string(), r#"[1, 2, "us", true]"#);
}

#[test]
fn a_slow_host_is_flagged_retested_and_named() {
    let t = lab(Some("n3"));
    let r = t
        .eval(r#"fabric::all_pairs(["n1", "n2", "n3", "n4", "n5"], #{})"#)
        .try_cast::<rhai::Map>()
        .unwrap_or_default();
    assert_eq!(get(&r, "passed").as_bool().ok(), Some(false));
    // Every pair with n3 (EDR, half of NDR200) is under 0.93 of the best; no other.
    let flagged = get(&r, "flagged").into_array().unwrap_or_default();
    assert_eq!(flagged.len(), 4, "{flagged:?}");
    assert!(
        flagged.iter().all(|p| p.to_string().contains("n3")),
        "{flagged:?}"
    );
    // Five hosts: one retest round of 5/2/2 = 1 pair.
    assert_eq!(get(&r, "retest_rounds").as_int().ok(), Some(1));
    let suspects = get(&r, "suspects")
        .try_cast::<rhai::Map>()
        .unwrap_or_default();
    assert_eq!(get(&suspects, "hosts").to_string(), r#"["n3"]"#);
    assert_eq!(get(&suspects, "pairs").to_string(), "[]");
}

#[test]
fn bad_calls_are_refused_before_anything_runs() {
    let t = lab(None);
    let e = t.error(r#"fabric::all_pairs(["n1", "n6x"], #{})"#);
    assert!(e.contains("`n6x` is not a host of this run"), "{e}");
    let e = t.error(r#"fabric::all_pairs(["n1", "n2", "n1"], #{})"#);
    assert!(e.contains("`n1` is listed twice"), "{e}");
    let e = t.error(r#"fabric::all_pairs(["n1", "n2"], #{ min_fractoin: 0.9 })"#);
    assert!(e.contains("did you mean `min_fraction`?"), "{e}");
    let e = t.error(r#"fabric::all_pairs(["n1", "n2"], #{ test: "send_bwx" })"#);
    assert!(e.contains("did you mean `send_bw`?"), "{e}");
    let e = t.error(r#"fabric::all_pairs(["n1"], #{})"#);
    assert!(e.contains("at least two hosts"), "{e}");
}
