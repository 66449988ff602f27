//! The db_csv reader on text built from the published header rows (no whole db_csv file is
//! published), its errors, and `ib::ibdiagnet` against simulated fabrics.

use crate::test_support::TestHost;

/// NODES, PORTS and LINKS with the published header rows; SM_INFO and PM_INFO with the
/// published column names and an extra column a newer ibdiagnet might add.
const SAMPLE: &str = "START_NODES
NodeDesc,NumPorts,NodeType,ClassVersion,BaseVersion,SystemImageGUID,NodeGUID,PortGUID,DeviceID,PartitionCap,revision,VendorID,LocalPortNum
\"MF0;leaf01:MQM9700/U1\",65,2,1,1,0x9c05910300a1b2c3,0x9c05910300a1b2c3,0x9c05910300a1b2c3,54002,0xffff,0,0x2c9,0
\"server01 mlx5_0\",1,1,1,1,0x0c42a10300d4e5f6,0x0c42a10300d4e5f6,0x0c42a10300d4e5f6,4129,0xffff,0,0x2c9,1
END_NODES

START_PORTS
NodeGuid,PortGuid,PortNum,MKey,GIDPrfx,MSMLID,LID,CapMsk,M_KeyLeasePeriod,DiagCode,LinkWidthActv,LinkWidthSup,LinkWidthEn,LocalPortNum,LinkSpeedEn,LinkSpeedActv,LMC,MKeyProtBits,LinkDownDefState,PortPhyState,PortState
0x0c42a10300d4e5f6,0x0c42a10300d4e5f6,1,0xffffffffff,0xffffffffff,1,1,2807162954,60,0,2,19,19,1,3841,2048,0,0,2,5,4
0x9c05910300a1b2c3,0x9c05910300a1b2c3,7,0,0xfe80000000000000,1,22,0,60,0,1,19,19,7,3841,512,0,0,2,5,4
END_PORTS

START_LINKS
NodeGuid1,PortNum1,NodeGuid2,PortNum2
0x9c05910300a1b2c3,7,0x0c42a10300d4e5f6,1
END_LINKS

START_SM_INFO
NodeGUID,PortGUID,PortNumber,SmState,Priority
0x9c05910300a1b2c3,0x9c05910300a1b2c3,0,3,15
END_SM_INFO

START_PM_INFO
NodeGUID,PortGUID,PortNumber,LinkDownedCounter,SymbolErrorCounter,PortRcvErrors,PortXmitWaitExt
0x0c42a10300d4e5f6,0x0c42a10300d4e5f6,1,0,1200,3,N/A
END_PM_INFO
";

#[test]
fn the_sections_a_fabric_check_needs_are_read_by_column_name() {
    let db = super::parse(SAMPLE).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        db.sections,
        ["NODES", "PORTS", "LINKS", "SM_INFO", "PM_INFO"]
    );
    assert_eq!(db.nodes.len(), 2);
    assert_eq!(db.nodes[0].description, "MF0;leaf01:MQM9700/U1");
    assert_eq!(
        (db.nodes[0].kind.as_str(), db.nodes[0].port_count),
        ("Switch", 65)
    );
    assert_eq!(db.nodes[1].guid, "0c42a10300d4e5f6");
    // 2048 is NDR in the high byte, 512 EDR; width bit 2 is 4X, 1 is 1X.
    let p = &db.ports[0];
    assert_eq!(
        (
            p.width.as_deref(),
            p.speed.as_deref(),
            p.state.as_str(),
            p.phys_state.as_str()
        ),
        (Some("4X"), Some("NDR"), "Active", "LinkUp")
    );
    assert_eq!(
        (db.ports[1].width.as_deref(), db.ports[1].speed.as_deref()),
        (Some("1X"), Some("EDR"))
    );
    assert_eq!((db.links[0].port1, db.links[0].port2), (7, 1));
    assert_eq!(
        (
            db.subnet_managers[0].state.as_str(),
            db.subnet_managers[0].priority
        ),
        ("master", 15)
    );
    let c = &db.counters[0];
    assert_eq!(c.values.get("SymbolErrorCounter"), Some(&1200));
    assert_eq!(c.values.get("PortRcvErrors"), Some(&3));
    assert!(!c.values.contains_key("PortXmitWaitExt"), "N/A is left out");
    // The row's span is the row's line.
    let line = &SAMPLE[c.span.offset..c.span.offset + c.span.len];
    assert!(
        line.starts_with("0x0c42a10300d4e5f6,0x0c42a10300d4e5f6,1,0,1200"),
        "{line}"
    );
}

#[test]
fn bad_input_is_an_error_at_the_header_the_cell_or_the_section() {
    let span_text = |text: &str| {
        let e = super::parse(text).err().unwrap_or_else(|| panic!("parsed"));
        let o = e.span.offset();
        (e.message.clone(), text[o..o + e.span.len()].to_owned())
    };
    let no_column = SAMPLE.replace(",LinkWidthActv,", ",LinkWidthActive,");
    let (message, at) = span_text(&no_column);
    assert!(message.contains("no column `LinkWidthActv`"), "{message}");
    assert!(at.starts_with("NodeGuid,PortGuid"), "{at}");
    let bad_cell = SAMPLE.replace(",1200,", ",12x0,");
    let (message, at) = span_text(&bad_cell);
    assert!(message.contains("a number"), "{message}");
    assert_eq!(at, "12x0");
    let short = SAMPLE.replace(
        "0x9c05910300a1b2c3,7,0x0c42a10300d4e5f6,1\n",
        "0x9c05910300a1b2c3,7\n",
    );
    let (message, _) = span_text(&short);
    assert!(message.contains("4 cells"), "{message}");
    let unclosed = SAMPLE.replace("END_PM_INFO\n", "");
    let (message, at) = span_text(&unclosed);
    assert!(message.contains("no `END_PM_INFO`"), "{message}");
    assert_eq!(at, "START_PM_INFO");
    let (message, _) = span_text("hello\n");
    assert!(message.contains("START_"), "{message}");
    assert!(
        super::parse("START_LINKS\nNodeGuid1\nEND_LINKS\n").is_err(),
        "no NODES"
    );
}

const EDR: &str = "ofed=5.4-3.0.3.0&ports=ib&rate=100&ib_spine=sp1";

/// Three guests on two leaves under one spine, `extra` added to n3's options.
fn lab(extra: &str) -> TestHost {
    let n3 = format!("{EDR}&ib_switch=leaf2&{extra}");
    let guests = [
        ("n1", format!("{EDR}&ib_switch=leaf1")),
        ("n2", format!("{EDR}&ib_switch=leaf1")),
        ("n3", n3),
    ];
    let refs: Vec<(&str, &str)> = guests.iter().map(|(n, o)| (*n, o.as_str())).collect();
    let t = TestHost::guests(&refs, "n1").build();
    for n in ["n1", "n2", "n3"] {
        t.sleep(n, 3);
        // Each guest's hardware summary is in its state once a tool ran there.
    }
    t
}

fn messages(t: &TestHost, call: &str) -> (bool, Vec<String>) {
    let r = t.eval(call).try_cast::<rhai::Map>().unwrap_or_default();
    let ok = r.get("ok").and_then(|v| v.as_bool().ok()).unwrap_or(false);
    let findings = r
        .get("findings")
        .cloned()
        .and_then(|f| f.into_array().ok())
        .unwrap_or_default();
    let texts = findings
        .into_iter()
        .filter_map(|f| f.try_cast::<rhai::Map>())
        .filter_map(|f| f.get("message").map(ToString::to_string))
        .collect();
    (ok, texts)
}

#[test]
fn a_clean_fabric_has_one_master_and_every_host() {
    let t = lab("");
    let r = t.eval(r#"let d = ib::ibdiagnet(#{ width: "4X", speed: "EDR" }); [d.ok, d.switches, d.channel_adapters, d.links, d.masters.len()]"#);
    assert_eq!(r.to_string(), "[true, 3, 3, 5, 1]");
}

#[test]
fn a_second_master_names_both() {
    let t = lab("opensm=master");
    let (ok, m) = messages(&t, "ib::ibdiagnet()");
    assert!(!ok);
    assert_eq!(m.len(), 2, "{m:?}");
    assert!(
        m.iter().all(|m| m.contains("sp1") && m.contains("n3")),
        "{m:?}"
    );
}

#[test]
fn a_1x_cable_and_symbol_errors_name_the_host() {
    let t = lab("link_width=1X&symbol_errors=500");
    let (ok, m) = messages(
        &t,
        r#"ib::ibdiagnet(#{ width: "4X", thresholds: #{ SymbolErrorCounter: 10 } })"#,
    );
    assert!(!ok);
    assert!(
        m.iter()
            .any(|m| m.starts_with("n3 port 1: link trained at 1X, expected 4X")),
        "{m:?}"
    );
    assert!(
        m.iter()
            .any(|m| m.contains("n3 mlx5_0 port 1: SymbolErrorCounter 500")),
        "{m:?}"
    );
    assert_eq!(m.len(), 2, "{m:?}");
    // Under the threshold is no finding.
    let (_, m) = messages(
        &t,
        r#"ib::ibdiagnet(#{ thresholds: #{ SymbolErrorCounter: 500 } })"#,
    );
    assert!(m.is_empty(), "{m:?}");
}

#[test]
fn the_cabling_is_compared_with_the_design() {
    let t = lab("");
    let design = t.dir.path().join("design.topo");
    // The design has n1 and n2 on leaf1 but n2 on port 5 (it is on port 2).
    let text = "vendid=0x2c9\ndevid=0xcf08\nsysimgguid=0x1\nswitchguid=0x1(1)\nSwitch\t37 \"S-0000000000000001\"\t\t# \"MF0;leaf1:MSB7800/U1\" enhanced port 0 lid 1 lmc 0\n[1]\t\"H-0000000000000011\"[1](11)\t\t# \"n1 mlx5_0\" lid 5 4xEDR\n[5]\t\"H-0000000000000012\"[1](12)\t\t# \"n2 mlx5_0\" lid 6 4xEDR\n";
    std::fs::write(&design, text).unwrap_or_else(|e| panic!("{e}"));
    let call = format!(
        "ib::ibdiagnet(#{{ topology: {:?} }})",
        design.display().to_string()
    );
    let (ok, m) = messages(&t, &call);
    assert!(!ok);
    assert!(
        m.iter().any(
            |m| m.starts_with("missing cable: MF0;leaf1:MSB7800/U1 port 5 to n2 mlx5_0 port 1")
        ),
        "{m:?}"
    );
    assert!(
        m.iter()
            .any(|m| m.contains("unexpected cable") && m.contains("port 2")),
        "{m:?}"
    );
    assert!(
        !m.iter()
            .any(|m| m.contains("n1 mlx5_0") && m.contains("missing")),
        "{m:?}"
    );
}

#[test]
fn unknown_keys_counters_and_speeds_are_refused_with_the_nearest() {
    let t = lab("");
    let e = t.error(r#"ib::ibdiagnet(#{ widht: "4X" })"#);
    assert!(e.contains("did you mean `width`?"), "{e}");
    let e = t.error(r#"ib::ibdiagnet(#{ thresholds: #{ SymbolErrorCount: 1 } })"#);
    assert!(e.contains("did you mean `SymbolErrorCounter`?"), "{e}");
    let e = t.error(r#"ib::ibdiagnet(#{ topology: "/nonexistent/design.topo" })"#);
    assert!(e.contains("cannot read the topology"), "{e}");
}

#[test]
fn a_guest_without_an_active_port_cannot_scan() {
    let t = TestHost::guests(&[("g", "ofed=5.4-3.0.3.0&subnet_manager=false")], "g").build();
    t.sleep("g", 3);
    let e = t.error("ib::ibdiagnet()");
    assert!(e.contains("no active InfiniBand port"), "{e}");
}

/// Each finding names the cable it blames by its ends' short names, the host end first, and
/// what was found there: read from the published header rows' sample (a 1X port on the
/// switch end of `server01`'s cable, symbol errors on `server01`'s port).
#[test]
fn a_finding_names_its_link_and_what_was_found() {
    use super::check::{Expected, check};
    let db = super::parse(SAMPLE).unwrap_or_else(|e| panic!("{e}"));
    let expected = Expected {
        width: Some("4X".into()),
        thresholds: [("SymbolErrorCounter".to_owned(), 0)].into_iter().collect(),
        ..Expected::default()
    };
    let findings = check(&db, &expected).findings;
    let of = |kind: &str| {
        findings
            .iter()
            .find(|f| f.check == kind)
            .map(|f| (f.link.clone(), f.found.clone()))
    };
    let link = Some("server01 port 1 to leaf01 port 7".to_owned());
    assert_eq!(
        of("width"),
        Some((link.clone(), Some("1X".into()))),
        "{findings:?}"
    );
    assert_eq!(
        of("counter"),
        Some((link, Some("SymbolErrorCounter 1200".into()))),
        "{findings:?}"
    );
}

/// `from:` runs the scan on another host of the run and journals it on the caller; a name that
/// is not a host is refused with the nearest.
#[test]
fn from_runs_the_scan_on_another_host() {
    let t = lab("link_width=1X");
    let r = t.eval(r#"let d = ib::ibdiagnet(#{ from: "n2", width: "4X" }); [d.ok, d.from, d.findings[0].link, d.findings[0].found]"#);
    assert_eq!(
        r.to_string(),
        r#"[false, "n2", "n3 port 1 to leaf2 port 3", "1X"]"#
    );
    let e = t.error(r#"ib::ibdiagnet(#{ from: "n4x" })"#);
    assert!(e.contains("is not a host of this run"), "{e}");
}

/// A verdict journaled with `masters` renamed `master` (another cairn, or edited): the resume
/// refuses it naming the record, instead of a runbook reading a fabric with no master.
#[test]
fn a_replayed_verdict_of_another_shape_is_refused_naming_the_record() {
    use crate::test_support::{journal_of, shape_error};
    let t = lab("");
    let live = t.eval(r#"ib::ibdiagnet(#{ width: "4X" })"#);
    let mut verdict: serde_json::Value = rhai::serde::from_dynamic(&live).expect("json");
    let back: super::check::Verdict = serde_json::from_value(verdict.clone()).expect("reads back");
    assert_eq!(crate::action::json(&back), verdict);
    let masters = verdict["masters"].take();
    verdict["master"] = masters;
    if let Some(map) = verdict.as_object_mut() {
        map.remove("masters");
    }
    let options =
        super::options::IbdiagnetOptions::from_json(&serde_json::json!({ "width": "4X" }))
            .expect("options");
    let args = serde_json::json!({ "options": crate::action::json(&options) });
    let guests = [("n1", EDR)];
    let t = TestHost::guests(&guests, "n1")
        .replaying(journal_of("ib::ibdiagnet", args, verdict))
        .build();
    let error = t.error(r#"ib::ibdiagnet(#{ width: "4X" })"#);
    assert!(
        error.contains(&shape_error("ib::ibdiagnet", "ibdiagnet's verdict")),
        "{error}"
    );
    assert!(error.contains("(journal test.jsonl line 3)"), "{error}");
}
