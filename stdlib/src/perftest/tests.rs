//! What a simulated perftest server prints once collected, after its client has talked to many
//! servers.

use crate::test_support::guest_host::TestHost;

const EDR: &str = "ofed=5.4-3.0.3.0&rate=100&ports=ib";

#[test]
fn a_server_collects_its_output_after_its_client_served_sixteen_others() {
    // The client keeps the last 16 servers' texts; the newest must survive even when its key
    // (`s01:…`) sorts before the others'.
    let names: Vec<String> = (1..=18).map(|n| format!("s{n:02}")).collect();
    let mut guests: Vec<(&str, &str)> = names.iter().map(|n| (n.as_str(), EDR)).collect();
    guests.push(("client", EDR));
    let t = TestHost::new(&guests, "controller");
    for (name, _) in &guests {
        t.sleep(name, 3);
    }
    for server in names.iter().rev() {
        let r = t
            .eval(&format!(r#"perftest::send_bw("{server}", "client")"#))
            .try_cast::<rhai::Map>()
            .unwrap_or_default();
        let side = r.get("server_side").cloned().unwrap_or_default();
        assert!(
            !side.is_unit(),
            "{server}: the server printed no results: {r:?}"
        );
    }
}
