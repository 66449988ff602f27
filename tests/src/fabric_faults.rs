//! Faults of the simulated fabric through the binary: a host whose IB port trained at 1X (its
//! `ibstat`/`ibstatus` say so, perftest gives a quarter, all pairs names it), a host with the
//! wrong firmware, and hosts on two leaf switches that reach each other through a spine.

use cairn_tests::Lab;

/// Each node logs what `ibstatus` and `ibstat` say of its port, then all pairs run.
const BOOK: &str = r#"
stage "ports" on fabric {
    ib::wait_active("mlx5_0", 1, 60);
    let p = ib::status()[0];
    log(`width ${p.width} rate ${p.rate_gbps} (${p.rate_text})`);
    let ca = ib::stat().cas[0];
    log(`ibstat rate ${ca.ports[0].rate_gbps} firmware ${ca.firmware_version}`);
}
stage "all pairs" on controller {
    let bw = fabric::all_pairs(hosts("fabric").map(|h| h.name), #{ device: "mlx5_0", test: "send_bw" });
    for r in bw.results { log(`pair ${r.server}-${r.client} gbps ${r.value}`); }
    expect(bw.passed, `bad pairs ${bw.bad}; suspect hosts ${bw.suspects.hosts}`);
}
"#;

/// Four 4X EDR nodes; `extra` adds options to one node's address.
fn lab(node: &str, extra: &str) -> Lab {
    let lab = Lab::new();
    lab.write("book.rhai", BOOK);
    let mut inventory = String::new();
    for n in ["node01", "node02", "node03", "node04"] {
        let more = if n == node { extra } else { "" };
        inventory.push_str(&format!(
            "[hosts.{n}]\naddress = \"sim:rhel8?clock=virtual&ports=ib&rate=100&ofed=23.10-1.1.9.0{more}\"\ngroups = [\"fabric\"]\n\n"
        ));
    }
    lab.write("lab.toml", &inventory);
    lab
}

fn said(run: &cairn_tests::Run) -> String {
    format!("{}{}", run.stdout, run.stderr)
}

#[test]
fn a_port_trained_at_1x_shows_in_ibstat_and_fails_all_pairs_naming_its_host() {
    let clean = lab("node02", "");
    let run = clean
        .cairn(&["run", "book.rhai", "-i", "lab.toml"])
        .succeeds();
    assert!(
        said(&run).contains("width 4X rate 100.0 (4X EDR)"),
        "{}",
        said(&run)
    );

    let degraded = lab("node02", "&link_width=1X");
    let run = degraded
        .cairn(&["run", "book.rhai", "-i", "lab.toml"])
        .fails(1);
    let text = said(&run);
    assert!(text.contains("width 1X rate 25.0 (1X EDR)"), "{text}");
    assert!(text.contains("ibstat rate 25.0 firmware"), "{text}");
    assert!(run.stderr.contains(r#"suspect hosts ["node02"]"#), "{text}");
    // perftest over the 1X link measured about a quarter of the 4X links.
    let rates: Vec<(String, f64)> = text
        .lines()
        .filter_map(|l| {
            let rest = l.split("pair ").nth(1)?;
            let (hosts, gbps) = rest.split_once(" gbps ")?;
            Some((hosts.to_owned(), gbps.trim().parse().ok()?))
        })
        .collect();
    let slow: Vec<f64> = rates
        .iter()
        .filter(|(h, _)| h.contains("node02"))
        .map(|r| r.1)
        .collect();
    let fast: Vec<f64> = rates
        .iter()
        .filter(|(h, _)| !h.contains("node02"))
        .map(|r| r.1)
        .collect();
    assert!(!slow.is_empty() && !fast.is_empty(), "{rates:?}");
    for s in &slow {
        for f in &fast {
            let ratio = s / f;
            assert!((0.2..0.3).contains(&ratio), "{s} against {f}: {rates:?}");
        }
    }
}

#[test]
fn the_wrong_firmware_shows_in_ibstat_on_its_host_only() {
    let lab = lab("node03", "&guest_fw=16.28.2006");
    let run = lab
        .cairn(&["run", "book.rhai", "-i", "lab.toml"])
        .succeeds();
    let text = said(&run);
    assert!(
        text.contains("ibstat rate 100.0 firmware 16.28.2006"),
        "{text}"
    );
    assert!(
        text.contains("ibstat rate 100.0 firmware 16.32.1010"),
        "{text}"
    );
}

#[test]
fn a_link_width_that_does_not_exist_is_refused_before_anything_runs() {
    let lab = lab("node01", "&link_width=3X");
    let run = lab.cairn(&["run", "book.rhai", "-i", "lab.toml"]);
    assert_ne!(run.code, 0, "{}", said(&run));
    run.stderr_has("`1X`, `2X` or `4X`");
    assert_eq!(lab.sim_count("node02", &["ibstat"]), 0);
    let typo = self::lab("node01", "&link_widht=1X");
    let run = typo.cairn(&["run", "book.rhai", "-i", "lab.toml"]);
    assert_ne!(run.code, 0, "{}", said(&run));
    run.stderr_has("link_width");
}

#[test]
fn hosts_on_two_leaves_test_each_other_through_a_spine_and_not_without_one() {
    for (spine, code) in [("&ib_spine=spine01", 0), ("", 1)] {
        let lab = Lab::new();
        lab.write("book.rhai", BOOK);
        let mut inventory = String::new();
        for (n, leaf) in [
            ("node01", "leaf01"),
            ("node02", "leaf01"),
            ("node03", "leaf02"),
            ("node04", "leaf02"),
        ] {
            inventory.push_str(&format!(
                "[hosts.{n}]\naddress = \"sim:rhel8?clock=virtual&ports=ib&rate=100&ofed=23.10-1.1.9.0&ib_switch={leaf}{spine}\"\ngroups = [\"fabric\"]\n\n"
            ));
        }
        lab.write("lab.toml", &inventory);
        let run = lab.cairn(&["run", "book.rhai", "-i", "lab.toml"]);
        assert_eq!(run.code, code, "spine {spine:?}: {}", said(&run));
    }
}

/// Eight nodes on two leaves under one spine; `extra` on every address.
fn two_leaves(extra: &str) -> Lab {
    let lab = Lab::new();
    lab.write(
        "book.rhai",
        r#"
stage "ports" on fabric { ib::wait_active("mlx5_0", 1, 60); }
stage "all pairs" on controller {
    let bw = fabric::all_pairs(hosts("fabric").map(|h| h.name), #{ device: "mlx5_0", test: "send_bw", retest: false });
    for r in bw.results { log(`pair ${r.server} ${r.client} ${r.value} ${r.flagged}`); }
    log(`took ${bw.took_s} planned ${bw.planned_s}`);
}
"#,
    );
    let mut inventory = String::new();
    for i in 1..=8 {
        let leaf = if i <= 4 { "ib-leaf01" } else { "ib-leaf02" };
        inventory.push_str(&format!(
            "[hosts.node0{i}]\naddress = \"sim:rhel8?clock=virtual&ports=ib&rate=100&ib_switch={leaf}&ib_spine=ib-spine01&ofed=23.10-1.1.9.0{extra}\"\ngroups = [\"fabric\"]\n\n"
        ));
    }
    lab.write("lab.toml", &inventory);
    lab
}

/// The `pair S C VALUE FLAGGED` lines: ((server, client), Gb/s, flagged).
fn pairs(run: &cairn_tests::Run) -> Vec<((String, String), f64, bool)> {
    run.stdout
        .lines()
        .filter_map(|line| {
            let rest = &line[line.find("pair node")? + 5..];
            let mut words = rest.split_whitespace();
            let (s, c) = (words.next()?.to_owned(), words.next()?.to_owned());
            let value = words.next()?.parse().ok()?;
            Some(((s, c), value, words.next()? == "true"))
        })
        .collect()
}

fn leaf(host: &str) -> u32 {
    if host.as_bytes().last().is_some_and(|d| *d <= b'4') {
        1
    } else {
        2
    }
}

#[test]
fn an_oversubscribed_leaf_uplink_flags_cross_leaf_pairs_only_and_the_same_each_time() {
    // Non-blocking by default: every pair at the line rate.
    let open = two_leaves("");
    let run = open
        .cairn(&["run", "book.rhai", "-i", "lab.toml"])
        .succeeds();
    let clean = pairs(&run);
    assert_eq!(clean.len(), 28, "{}", said(&run));
    assert!(clean.iter().all(|(_, _, flagged)| !flagged), "{clean:?}");

    // One uplink a leaf: a round's cross-leaf flows in one direction share it.
    let first = {
        let lab = two_leaves("&leaf_uplinks=1");
        let run = lab
            .cairn(&["run", "book.rhai", "-i", "lab.toml"])
            .succeeds();
        pairs(&run)
    };
    assert_eq!(first.len(), 28);
    let flagged: Vec<&((String, String), f64, bool)> =
        first.iter().filter(|(_, _, f)| *f).collect();
    assert!(
        !flagged.is_empty(),
        "some round shares an uplink: {first:?}"
    );
    for ((s, c), value, f) in &first {
        if leaf(s) == leaf(c) {
            assert!(!f, "a same-leaf pair is not flagged: {s}-{c} {value}");
            assert!(*value > 90.0, "{s}-{c} {value}");
        }
    }
    for ((s, c), value, _) in &flagged {
        assert_ne!(leaf(s), leaf(c), "{s}-{c}");
        // Two flows on one uplink: half the rate, or less.
        assert!(*value < 50.0, "{s}-{c} {value}");
    }
    // Deterministic: the same lab measures the same matrix again.
    let lab = two_leaves("&leaf_uplinks=1");
    let again = lab.cairn(&["run", "book.rhai", "-i", "lab.toml"]);
    assert_eq!(pairs(&again), first, "{}", said(&again));

    // A bad value is refused before the run, naming the option.
    let bad = two_leaves("&leaf_uplinks=0");
    let run = bad.cairn(&["run", "book.rhai", "-i", "lab.toml"]);
    assert_ne!(run.code, 0);
    assert!(
        run.stderr.contains("leaf_uplinks") && run.stderr.contains("1 or more"),
        "{}",
        run.stderr
    );
}

/// The leaves' uplinks oversubscribed: the cross-leaf pairs are the bad ones, and the suspects
/// are the leaves' uplinks (the leaves known from ibnetdiscover on a fabric host), not the
/// dozens of hosts in those pairs.
#[test]
fn an_oversubscribed_leaf_names_its_uplinks_as_the_suspect_not_its_hosts() {
    let lab = two_leaves("&leaf_uplinks=1");
    lab.write(
        "book.rhai",
        r#"
stage "ports" on fabric { ib::wait_active("mlx5_0", 1, 60); }
stage "all pairs" on controller {
    let bw = fabric::all_pairs(hosts("fabric").map(|h| h.name), #{ device: "mlx5_0", test: "send_bw" });
    log(`bad ${bw.bad.len()} uplinks ${bw.suspects.uplinks} hosts ${bw.suspects.hosts} pairs ${bw.suspects.pairs.len()}`);
}
"#,
    );
    let run = lab
        .cairn(&["run", "book.rhai", "-i", "lab.toml"])
        .succeeds();
    let line = run
        .stdout
        .lines()
        .find(|l| l.contains("uplinks ["))
        .unwrap_or_else(|| panic!("{}", said(&run)));
    assert!(
        line.contains(
            r#"uplinks ["MF0;ib-leaf01:MSB7800/U1", "MF0;ib-leaf02:MSB7800/U1"] hosts [] pairs 0"#
        ),
        "{line}"
    );
    assert!(!line.contains("bad 0 "), "{line}");
    // The report's heatmap says the same under the matrix.
    lab.cairn(&["report", "-o", "report.html"]).succeeds();
    let html =
        std::fs::read_to_string(lab.path().join("report.html")).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        html.contains(
            "suspect uplinks (the pairs crossing from these leaf switches to the others): \
             <b>MF0;ib-leaf01:MSB7800/U1, MF0;ib-leaf02:MSB7800/U1</b>"
        ),
        "{}",
        html.split("class=\"suspects\"")
            .nth(1)
            .unwrap_or("no suspects paragraph")
    );
    assert!(!html.contains("suspect hosts:"), "no host is named");
}
