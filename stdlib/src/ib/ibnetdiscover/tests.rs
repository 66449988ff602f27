//! The simulated `ibnetdiscover` across a spine: it reaches every leaf, the spine and their
//! guests, and what it prints is the design topology `ib::ibdiagnet` accepts.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use cairn_runtime::inventory::{Address, Inventory};
use cairn_runtime::sim::SimHost;
use cairn_runtime::{Cancel, ExecRequest};

use crate::test_support::TestHost;

/// The 100-node lab and its design topology, from the project root.
const LAB: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../runbooks/labs/fabric-100node.toml"
);
const DESIGN: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../runbooks/labs/fabric-100node.topo"
);

use crate::test_support::sim_exec as run;

/// The lines that are not comments (the generation date, who it was initiated from).
fn body(text: &str) -> Vec<&str> {
    text.lines().filter(|l| !l.starts_with('#')).collect()
}

/// What the simulated ibnetdiscover prints on node001 of the clean 100-node lab.
fn lab_topology() -> String {
    let inventory = Inventory::load(LAB).unwrap_or_else(|e| panic!("{e}"));
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let model = Arc::new(crate::models::rhel8::rhel8());
    let hosts: BTreeMap<String, SimHost> = inventory
        .hosts()
        .iter()
        .filter_map(|spec| match &spec.address {
            Address::Sim { options, .. } => {
                let host = SimHost::open(
                    &spec.name,
                    dir.path().join(&spec.name),
                    model.clone(),
                    options.clone(),
                )
                .unwrap_or_else(|e| panic!("{e}"));
                Some((spec.name.clone(), host))
            }
            _ => None,
        })
        .collect();
    assert_eq!(hosts.len(), 100);
    for host in hosts.values() {
        let _ = host
            .clock()
            .sleep(Duration::from_secs(3), &Cancel::default());
        // A tool run leaves the guest's hardware in its state, where peers read it.
        let _ = run(host, &["ibstatus"]);
    }
    let first = hosts.get("node001").unwrap_or_else(|| panic!("no node001"));
    let output = run(first, &["ibnetdiscover"]);
    assert_eq!(output.code, 0, "{}", output.stderr);
    output.stdout
}

/// The lab's design file is what ibnetdiscover prints on the clean lab, apart from comments;
/// `CAIRN_BLESS=1` rewrites it from the simulator (keeping the file's own leading comments).
#[test]
fn the_100_node_design_is_what_ibnetdiscover_prints_on_the_clean_lab() {
    let printed = lab_topology();
    let topology = crate::ib::ibnetdiscover::parse(&printed).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(topology.switches.len(), 5, "four leaves and the spine");
    assert_eq!(topology.channel_adapters.len(), 100);
    let design = std::fs::read_to_string(DESIGN).unwrap_or_else(|e| panic!("{e}"));
    if std::env::var_os("CAIRN_BLESS").is_some() {
        let comments: String = design
            .lines()
            .take_while(|l| l.starts_with('#'))
            .map(|l| format!("{l}\n"))
            .collect();
        let rest: String = body(&printed).iter().map(|l| format!("{l}\n")).collect();
        std::fs::write(DESIGN, format!("{comments}{rest}")).unwrap_or_else(|e| panic!("{e}"));
        return;
    }
    assert!(
        body(&design) == body(&printed),
        "runbooks/labs/fabric-100node.topo differs from the simulated ibnetdiscover; \
         regenerate it with CAIRN_BLESS=1 cargo test -p cairn-stdlib the_100_node_design"
    );
}

/// Two leaves under a spine, seen from n1 on leaf1: both leaves, the spine, the uplinks and
/// every guest; and that output, as ibdiagnet's design, matches its own scan cable for cable.
#[test]
fn across_the_spine_every_leaf_and_guest_is_listed_and_is_ibdiagnets_design() {
    let edr = "ofed=5.4-3.0.3.0&ports=ib&rate=100&ib_spine=sp1";
    let guests = [
        ("n1", format!("{edr}&ib_switch=leaf1")),
        ("n2", format!("{edr}&ib_switch=leaf1")),
        ("n3", format!("{edr}&ib_switch=leaf2&link_width=1X")),
        // Another spine's leaf: not reachable from n1.
        (
            "n4",
            "ofed=5.4-3.0.3.0&ports=ib&rate=100&ib_spine=sp2&ib_switch=leaf9".to_owned(),
        ),
    ];
    let refs: Vec<(&str, &str)> = guests.iter().map(|(n, o)| (*n, o.as_str())).collect();
    let t = TestHost::guests(&refs, "n1").build();
    let exec = |n: &str, argv: &[&str]| {
        t.host
            .shared
            .exec_on(n, &ExecRequest::new(argv.iter().copied()))
            .unwrap_or_else(|e| panic!("{e}"))
    };
    for (n, _) in &guests {
        t.sleep(n, 3);
        // A tool run leaves the guest's hardware in its state, where peers read it.
        let _ = exec(n, &["ibstatus"]);
    }
    let switches =
        t.eval("ib::netdiscover().switches.map(|s| `${s.description} ${s.ports.map(|p| p.port)}`)");
    assert_eq!(
        switches.to_string(),
        r#"["MF0;leaf1:MSB7800/U1 [1, 2, 38]", "MF0;leaf2:MSB7800/U1 [3, 38]", "MF0;sp1:MSB7800/U1 [1, 2]"]"#
    );
    let cas = t
        .eval("ib::netdiscover().channel_adapters.map(|c| `${c.description} ${c.ports[0].width}`)");
    assert_eq!(
        cas.to_string(),
        r#"["n1 mlx5_0 4x", "n2 mlx5_0 4x", "n3 mlx5_0 1x"]"#
    );
    let design = t.dir.path().join("design.topo");
    let printed = exec("n1", &["ibnetdiscover"]).stdout;
    std::fs::write(&design, printed).unwrap_or_else(|e| panic!("{e}"));
    let call = format!(
        "let d = ib::ibdiagnet(#{{ topology: {:?} }}); d.findings.map(|f| f.message)",
        design.display().to_string()
    );
    assert_eq!(t.eval(&call).to_string(), "[]");
}
