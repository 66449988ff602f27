//! Inventories: the documented example, ranges, groups, var precedence, and every error's span.

use miette::Diagnostic;
use serde_json::json;

use super::*;

fn parse(text: &str) -> Result<Inventory, InventoryError> {
    Inventory::parse("lab.toml", text)
}

fn names(hosts: &[&HostSpec]) -> Vec<String> {
    hosts.iter().map(|host| host.name.clone()).collect()
}

/// The text each label of `error` points at, in `text`.
fn pointed<'t>(error: &InventoryError, text: &'t str) -> Vec<&'t str> {
    error
        .labels()
        .into_iter()
        .flatten()
        .map(|label| {
            text.get(label.offset()..label.offset() + label.len())
                .unwrap_or("<out of range>")
        })
        .collect()
}

fn error_of(text: &str) -> InventoryError {
    match parse(text) {
        Ok(inventory) => panic!("expected an error, got {inventory:?}"),
        Err(error) => error,
    }
}

#[test]
fn the_documented_example_works_as_written() {
    let text = r#"
[hosts."node[01-08]"]
address = "sim:linux?reboot_secs=2"
groups = ["compute"]
"#;
    let inventory = parse(text).unwrap();
    let hosts = inventory.hosts();
    assert_eq!(hosts.len(), 8);
    assert_eq!(
        names(&inventory.group("compute")),
        (1..=8).map(|n| format!("node{n:02}")).collect::<Vec<_>>()
    );
    assert_eq!(inventory.group("all").len(), 8);
    for host in hosts {
        assert_eq!(host.address.to_string(), "sim:linux?reboot_secs=2");
        assert_eq!(host.groups, ["all", "compute"]);
        assert!(host.vars.is_empty());
    }
    assert_eq!(inventory.group_names(), ["all", "compute"]);
    assert!(inventory.group("esxi").is_empty());
}

#[test]
fn hosts_keep_file_order_and_ranges_expand_in_order() {
    let text = r#"
[hosts.zeta]
[hosts."r[1-2]n[1-2]"]
address = "ssh://root@{name}.lab:2222"
[hosts."node[1-3,7]"]
address = "local"
[hosts.alpha]
"#;
    let inventory = parse(text).unwrap();
    let all: Vec<&HostSpec> = inventory.hosts().iter().collect();
    assert_eq!(
        names(&all),
        [
            "zeta", "r1n1", "r1n2", "r2n1", "r2n2", "node1", "node2", "node3", "node7", "alpha"
        ]
    );
    assert_eq!(
        all[0].address,
        Address::ssh("zeta"),
        "ssh://<name> by default"
    );
    assert_eq!(all[2].address.to_string(), "ssh://root@r1n2.lab:2222");
    assert_eq!(all[5].address, Address::Local);
    assert_eq!(
        inventory.host("node7").map(|h| h.groups.clone()),
        Some(vec!["all".to_owned()])
    );
}

#[test]
fn vars_merge_global_then_groups_in_declaration_order_then_host() {
    let text = r#"
[vars]
mtu = 1500
site = "lab"
who = "global"

[groups.all.vars]
who = "all"
tier = 0

[groups.esxi.vars]
who = "esxi"
mtu = 9000

[groups.fabric]
children = ["esxi"]
vars = { who = "fabric", fabric = "ib", tier = 2 }

[hosts."esx[1-2]"]
groups = ["esxi"]

[hosts.esx3]
groups = ["esxi"]
vars = { who = "esx3", when = 2026-11-30 }

[hosts.guest1]
groups = ["guests"]
"#;
    let inventory = parse(text).unwrap();
    let esx1 = inventory.host("esx1").unwrap();
    assert_eq!(esx1.groups, ["all", "esxi", "fabric"]);
    let expected =
        json!({ "fabric": "ib", "mtu": 9000, "site": "lab", "tier": 2, "who": "fabric" });
    assert_eq!(serde_json::to_value(&esx1.vars).unwrap(), expected);
    let esx3 = inventory.host("esx3").unwrap();
    assert_eq!(esx3.vars.get("who"), Some(&json!("esx3")));
    assert_eq!(esx3.vars.get("when"), Some(&json!("2026-11-30")));
    let guest = inventory.host("guest1").unwrap();
    assert_eq!(guest.groups, ["all", "guests"]);
    assert_eq!(
        serde_json::to_value(&guest.vars).unwrap(),
        json!({ "mtu": 1500, "site": "lab", "tier": 0, "who": "all" })
    );
    assert_eq!(names(&inventory.group("fabric")), ["esx1", "esx2", "esx3"]);
    assert_eq!(inventory.group_names(), ["all", "esxi", "fabric", "guests"]);
}

#[test]
fn nested_children_reach_every_ancestor() {
    let text = r#"
[groups.lab]
children = ["fabric"]
[groups.fabric]
children = ["compute", "storage"]
[hosts.c1]
groups = ["compute"]
[hosts.s1]
groups = ["storage"]
"#;
    let inventory = parse(text).unwrap();
    assert_eq!(names(&inventory.group("lab")), ["c1", "s1"]);
    assert_eq!(
        inventory.host("c1").unwrap().groups,
        ["all", "lab", "fabric", "compute"]
    );
}

#[test]
fn an_empty_inventory_has_no_hosts() {
    let inventory = parse("").unwrap();
    assert!(inventory.hosts().is_empty());
    assert_eq!(inventory.group_names(), ["all"]);
}

/// An inventory, a check of the error it gives, and the texts the error's labels point at.
type ErrorCase = (&'static str, fn(&InventoryError) -> bool, Vec<&'static str>);

#[test]
fn every_error_points_at_its_text() {
    let cases: Vec<ErrorCase> = vec![
        (
            "[hosts.a]\naddress = 5\n",
            |e| matches!(e, InventoryError::Syntax { .. }),
            vec!["5"],
        ),
        (
            "[hosts.a]\naddress = \"local\n",
            |e| matches!(e, InventoryError::Syntax { .. }),
            vec![],
        ),
        (
            "[hosts.a]\nadress = \"local\"\n",
            |e| matches!(e, InventoryError::UnknownKey { .. }),
            vec!["adress"],
        ),
        (
            "[host.a]\n",
            |e| matches!(e, InventoryError::UnknownKey { .. }),
            vec!["host"],
        ),
        (
            "[groups.g]\nhosts = []\n",
            |e| matches!(e, InventoryError::UnknownKey { .. }),
            vec!["hosts"],
        ),
        (
            "[hosts.\"node[5-1]\"]\n",
            |e| matches!(e, InventoryError::BadPattern { .. }),
            vec!["5-1"],
        ),
        (
            "[hosts.\"node[01-08\"]\n",
            |e| matches!(e, InventoryError::BadPattern { .. }),
            vec!["[01-08"],
        ),
        (
            "[hosts.a]\naddress = \"telnet://a\"\n",
            |e| matches!(e, InventoryError::UnknownScheme { .. }),
            vec!["telnet"],
        ),
        (
            "[hosts.\"n[1-2]\"]\naddress = \"ssh://root@{name}:99999\"\n",
            |e| matches!(e, InventoryError::BadPort { port, .. } if port == "99999"),
            vec!["99999"],
        ),
        (
            "[hosts.a]\naddress = \"sim:linux?reboot_secs=1&&clock=virtual\"\n",
            |e| matches!(e, InventoryError::BadAddress { .. }),
            vec![""],
        ),
        (
            "[hosts.a]\naddress = \"ssh://{host}\"\n",
            |e| matches!(e, InventoryError::BadAddress { .. }),
            vec!["{host}"],
        ),
        (
            "[hosts.\"node[01-03]\"]\n[hosts.node02]\n",
            |e| matches!(e, InventoryError::DuplicateHost { name, .. } if name == "node02"),
            vec!["\"node[01-03]\"", "node02"],
        ),
        (
            "[groups.controller]\n",
            |e| matches!(e, InventoryError::ReservedGroup { .. }),
            vec!["controller"],
        ),
        (
            "[hosts.a]\ngroups = [\"compute\", \"controller\"]\n",
            |e| matches!(e, InventoryError::ReservedGroup { .. }),
            vec!["\"controller\""],
        ),
        (
            "[groups.g]\nchildren = [\"all\"]\n",
            |e| matches!(e, InventoryError::ReservedGroup { .. }),
            vec!["\"all\""],
        ),
        (
            "[groups.fabric]\nchildren = [\"esxii\"]\n[hosts.a]\ngroups = [\"esxi\"]\n",
            |e| matches!(e, InventoryError::UnknownGroup { help, .. } if help.contains("`esxi`")),
            vec!["\"esxii\""],
        ),
        (
            "[groups.a]\nchildren = [\"b\"]\n[groups.b]\nchildren = [\"a\"]\n",
            |e| matches!(e, InventoryError::GroupCycle { .. }),
            vec!["\"a\""],
        ),
        (
            "[hosts.a]\ngroups = [\"bad group\"]\n",
            |e| matches!(e, InventoryError::BadName { kind: "group", .. }),
            vec![" "],
        ),
        (
            "[hosts.\"no de\"]\n",
            |e| matches!(e, InventoryError::BadPattern { .. }),
            vec![" "],
        ),
        (
            "[groups.gpu-nodes]\n",
            |e| matches!(e, InventoryError::BadName { kind: "group", .. }),
            vec!["-"],
        ),
        (
            "[groups.fabric]\nchildren = [\"2nd\"]\n",
            |e| matches!(e, InventoryError::BadName { kind: "group", .. }),
            vec!["2"],
        ),
    ];
    for (text, is_expected, spans) in cases {
        let error = error_of(text);
        assert!(is_expected(&error), "{text}: {error:?}");
        if !spans.is_empty() {
            assert_eq!(pointed(&error, text), spans, "{text}: {error:?}");
        }
        assert!(error.source_code().is_some(), "{text}");
        assert!(error.code().is_some(), "{text}");
    }
}

#[test]
fn unknown_keys_get_help_naming_the_allowed_keys() {
    let error = error_of("[hosts.a]\nadress = \"local\"\n");
    let help = error.help().map(|h| h.to_string()).unwrap_or_default();
    assert_eq!(
        help,
        "did you mean `address`? allowed keys here: `address`, `groups`, `vars`"
    );
    let error = error_of("colour = 1\n");
    let help = error.help().map(|h| h.to_string()).unwrap_or_default();
    assert_eq!(help, "allowed keys here: `groups`, `hosts`, `vars`");
}

#[test]
fn load_reads_a_file_and_reports_a_missing_one() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("lab.toml");
    std::fs::write(&path, "[hosts.\"node[1-2]\"]\naddress = \"local\"\n").unwrap();
    assert_eq!(Inventory::load(&path).unwrap().hosts().len(), 2);
    let missing = Inventory::load(dir.path().join("missing.toml"));
    assert!(matches!(missing, Err(InventoryError::Io { .. })));
}

#[test]
fn hostile_input_is_an_error_never_a_panic() {
    for text in [
        "[hosts.\"n[0-18446744073709551616]\"]",
        "[hosts.\"n[1-9][1-99999]\"]",
        "[hosts.\"é[1-2]\"]",
        "[hosts.a]\naddress = \"ssh://é@é:é\"",
        "[hosts.a]\naddress = \"sim:\u{0}\"",
        "[hosts.a]\naddress = \"\"\"ssh://a:\n99\"\"\"",
        "[hosts.\"\"]",
        "[[hosts]]",
        "hosts = 3",
    ] {
        assert!(parse(text).is_err(), "{text}");
    }
}
