//! `fabric::link_sweep` through the binary: every link of a simulated InfiniBand lab against
//! the manifest's `[links]` thresholds. Healthy, it passes; a cable with a bad effective BER and
//! a cable trained at 1X fail the run, each named by both ends; a misspelt threshold is refused
//! with the right name before anything runs on the fabric.

use cairn_tests::Lab;

const BOOK: &str = r#"
stage "ports" on fabric {
    ib::wait_active("mlx5_0", 1, 60);
}
stage "links" on controller {
    let s = fabric::link_sweep("manifest.toml", "fabric");
    for b in s.bad { log(b.message); }
    for u in s.unjudged { log(`unjudged ${u.what}: ${u.reason}`); }
    log(`${s.links} links checked from ${s.from}`);
    expect(s.ok, `${s.bad.len()} bad link(s), ${s.unjudged.len()} unjudged`);
}
"#;

const MANIFEST: &str = r#"
[links]
width = "4X"
speed = "EDR"
effective_ber_max = 1e-12
symbol_errors_max = 10
link_downs_max = 0
"#;

/// Three 4X EDR nodes on one leaf; `faults` adds options to a node's address.
fn lab(faults: &[(&str, &str)], manifest: &str) -> Lab {
    let lab = Lab::new();
    lab.write("book.rhai", BOOK);
    lab.write("manifest.toml", manifest);
    let mut inventory = String::new();
    for n in ["node01", "node02", "node03"] {
        let more = faults
            .iter()
            .find(|(host, _)| *host == n)
            .map_or("", |(_, extra)| *extra);
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
fn a_healthy_fabric_passes_and_bad_cables_are_named_by_both_ends() {
    let clean = lab(&[], MANIFEST);
    let run = clean.cairn(&["run", "book.rhai", "-i", "lab.toml"]);
    assert_eq!(run.code, 0, "{}", said(&run));
    assert!(
        said(&run).contains("3 links checked from node01"),
        "{}",
        said(&run)
    );

    let faulty = lab(
        &[
            ("node02", "&effective_ber=3E-9"),
            ("node03", "&link_width=1X&symbol_errors=500"),
        ],
        MANIFEST,
    );
    let run = faulty.cairn(&["run", "book.rhai", "-i", "lab.toml"]);
    let said = said(&run);
    assert_eq!(run.code, 1, "{said}");
    let switch = "MF0;ib-sw01:MSB7800/U1";
    for line in [
        format!("node02 mlx5_0 port 1 to {switch} port 2: effective ber 3E-9, expected 1e-12"),
        format!("node03 mlx5_0 port 1 to {switch} port 3: width 1X, expected 4X"),
        format!("node03 mlx5_0 port 1 to {switch} port 3: symbol errors 500, expected at most 10"),
    ] {
        assert!(said.contains(&line), "{line}\n{said}");
    }
    assert!(!said.contains("node01 mlx5_0 port 1 to"), "{said}");
    assert!(said.contains("3 bad link(s), 0 unjudged"), "{said}");
}

#[test]
fn a_misspelt_threshold_is_refused_with_the_right_name() {
    let typo = lab(
        &[],
        &MANIFEST.replace("symbol_errors_max", "symbol_error_max"),
    );
    let run = typo.cairn(&["run", "book.rhai", "-i", "lab.toml"]);
    assert_ne!(run.code, 0, "{}", said(&run));
    run.stderr_has("unknown field `symbol_error_max`");
    run.stderr_has("did you mean `symbol_errors_max`?");
}
