//! ibdiagnet in the shipped fabric acceptance recipe, on a small lab (four nodes on one leaf
//! switch with its subnet manager, node01 in `ibdiag`): clean it passes; a second master subnet
//! manager fails the run naming both; a cable with symbol errors names its host; a cable trained
//! at 1X names its host and port; the report shows the findings. The 100-node lab's run is `fabric_acceptance`'s.

use cairn_tests::Lab;

const RECIPE: &str = "runbooks/ib-fabric-acceptance.rhai";
const LAB: &str = "runbooks/labs/ibdiag-4node.toml";
const NODES: [&str; 4] = ["node01", "node02", "node03", "node04"];

/// The design: the leaf `ib-sw01` with each node on the port of its number, in ibnetdiscover's
/// topology format.
fn design() -> String {
    let mut text = String::from(
        "vendid=0x2c9\ndevid=0xcf08\nsysimgguid=0x9c05910300000001\nswitchguid=0x9c05910300000001(9c05910300000001)\nSwitch\t37 \"S-9c05910300000001\"\t\t# \"MF0;ib-sw01:MSB7800/U1\" enhanced port 0 lid 1 lmc 0\n",
    );
    for (i, n) in NODES.iter().enumerate() {
        text.push_str(&format!(
            "[{p}]\t\"H-0c42a1030000000{p}\"[1](c42a1030000000{p})\t\t# \"{n} mlx5_0\" lid {lid} 4xEDR\n",
            p = i + 1,
            lid = 0x13 + i
        ));
    }
    text
}

/// The shipped recipe with a four-node lab; `extra` goes on `node`'s address.
fn lab(node: &str, extra: &str) -> Lab {
    let lab = Lab::shipped();
    let mut inventory = String::new();
    for n in NODES {
        let more = if n == node { extra } else { "" };
        let groups = if n == "node01" {
            r#"["fabric", "ibdiag"]"#
        } else {
            r#"["fabric"]"#
        };
        inventory.push_str(&format!(
            "[hosts.{n}]\naddress = \"sim:rhel8?clock=virtual&ports=ib&rate=100&ofed=23.10-1.1.9.0{more}\"\ngroups = {groups}\n\n"
        ));
    }
    lab.write(LAB, &inventory);
    lab.write("runbooks/labs/ibdiag-4node.topo", &design());
    lab
}

fn run(lab: &Lab) -> (i32, String, String) {
    let run = lab.cairn(&[
        "run",
        RECIPE,
        "-i",
        LAB,
        "--param",
        "quick=true",
        "--param",
        "topology=labs/ibdiag-4node.topo",
    ]);
    let said = format!("{}{}", run.stdout, run.stderr);
    (run.code, said, run.stderr)
}

#[test]
fn a_clean_fabric_passes_with_one_master_and_the_designed_cables() {
    let (code, said, _) = run(&lab("", ""));
    assert_eq!(code, 0, "{said}");
    assert!(
        said.contains("ibdiagnet: 1 switches, 4 adapters, 4 cables, master SM [\"ib-sw01 0x9c0591"),
        "{said}"
    );
}

#[test]
fn a_second_master_subnet_manager_fails_naming_both() {
    let lab = lab("node03", "&opensm=master");
    let (code, said, _) = run(&lab);
    assert_eq!(code, 1, "{said}");
    assert!(
        said.contains("2 master subnet managers (ib-sw01 (0x9c0591"),
        "{said}"
    );
    assert!(said.contains("node03 (0x0c42a103"), "{said}");
    // Only the ibdiagnet stage failed: the hardware and the pairs passed.
    assert!(said.contains("PASS      send_bw"), "{said}");
    // The report's ibdiagnet section names both masters, one finding each.
    lab.cairn(&["report", "-o", "report.html"]).succeeds();
    let html = std::fs::read_to_string(lab.path().join("report.html")).unwrap_or_default();
    let section = html
        .split("<section id=\"ibdiagnet\">")
        .nth(1)
        .and_then(|s| s.split("</section>").next())
        .unwrap_or_default();
    assert!(
        section.contains("data-host=\"node01\" data-findings=\"2\""),
        "{section}"
    );
    assert!(
        section.contains("master subnet managers: ib-sw01 0x9c0591"),
        "{section}"
    );
    assert!(
        section.contains("<td class=\"failed\">node03</td>"),
        "{section}"
    );
}

#[test]
fn a_cable_with_symbol_errors_names_its_host() {
    let (code, said, _) = run(&lab("node04", "&symbol_errors=250"));
    assert_eq!(code, 1, "{said}");
    assert!(
        said.contains("node04 mlx5_0 port 1: SymbolErrorCounter 250, over the threshold 0"),
        "{said}"
    );
    assert!(!said.contains("node03 mlx5_0 port 1: Symbol"), "{said}");
    // A threshold above it lets it pass.
    let lab = lab("node04", "&symbol_errors=250");
    lab.cairn(&[
        "run",
        RECIPE,
        "-i",
        LAB,
        "--param",
        "quick=true",
        "--param",
        "topology=labs/ibdiag-4node.topo",
        "--param",
        "symbol_errors=250",
    ])
    .succeeds();
}

#[test]
fn a_cable_trained_at_1x_names_its_host_and_port() {
    let (code, said, _) = run(&lab("node02", "&link_width=1X"));
    assert_eq!(code, 1, "{said}");
    assert!(
        said.contains("node02 port 1: link trained at 1X, expected 4X (cable node02 mlx5_0 port 1 to MF0;ib-sw01:MSB7800/U1 port 2)"),
        "{said}"
    );
}

#[test]
fn a_cable_not_in_the_design_is_named() {
    let lab = lab("", "");
    let design = design().replace("[4]\t", "[9]\t");
    lab.write("runbooks/labs/ibdiag-4node.topo", &design);
    let (code, said, _) = run(&lab);
    assert_eq!(code, 1, "{said}");
    assert!(
        said.contains("missing cable: MF0;ib-sw01:MSB7800/U1 port 9 to node04 mlx5_0 port 1"),
        "{said}"
    );
    assert!(
        said.contains("unexpected cable: MF0;ib-sw01:MSB7800/U1 port 4 to node04 mlx5_0 port 1"),
        "{said}"
    );
}

#[test]
fn a_typo_in_the_options_is_refused_before_anything_runs() {
    let lab = Lab::new();
    lab.write(
        "book.rhai",
        "stage \"d\" on all {\n    ib::ibdiagnet(#{ widht: \"4X\" });\n}\n",
    );
    lab.write(
        "lab.toml",
        "[hosts.node01]\naddress = \"sim:rhel8?clock=virtual&ports=ib&ofed=23.10-1.1.9.0\"\n",
    );
    let run = lab.cairn(&["run", "book.rhai", "-i", "lab.toml"]);
    let said = format!("{}{}", run.stdout, run.stderr);
    assert_eq!(run.code, 2, "{said}");
    assert!(said.contains("did you mean `width`?"), "{said}");
    assert_eq!(lab.sim_count("node01", &["ibdiagnet"]), 0, "{said}");
}

#[test]
fn cairn_parse_reads_a_db_csv_and_points_at_a_bad_cell() {
    let lab = Lab::new();
    let good = "START_NODES\nNodeDesc,NumPorts,NodeType,NodeGUID\n\"node01 mlx5_0\",1,1,0x0c42a10300d4e5f6\nEND_NODES\n\nSTART_SM_INFO\nNodeGUID,PortGUID,PortNumber,SmState,Priority\n0x0c42a10300d4e5f6,0x0c42a10300d4e5f6,1,3,0\nEND_SM_INFO\n";
    let file = lab.write("db.csv", good);
    let run = lab
        .cairn(&["parse", "ibdiagnet-db-csv", &file.display().to_string()])
        .succeeds();
    let json: serde_json::Value = serde_json::from_str(&run.stdout).unwrap_or_default();
    assert_eq!(
        json["nodes"][0]["description"], "node01 mlx5_0",
        "{}",
        run.stdout
    );
    assert_eq!(
        json["subnet_managers"][0]["state"], "master",
        "{}",
        run.stdout
    );
    let file = lab.write("bad.csv", &good.replace(",1,3,0\n", ",1,three,0\n"));
    lab.assert_fails(
        &["parse", "ibdiagnet-db-csv", &file.display().to_string()],
        2,
        &["does not parse", "expected a number in SM_INFO", "three"],
    );
}
