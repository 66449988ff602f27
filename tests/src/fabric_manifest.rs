//! `fabric::manifest_diff` through the binary: a host's RDMA devices against its class of the
//! expected-hardware manifest, one line a difference naming the host.

use cairn_tests::Lab;

const BOOK: &str = r#"
stage "ports" on fabric {
    ib::wait_active("mlx5_0", 1, 60);
}
stage "hardware" on fabric {
    let m = fabric::manifest_diff("manifest.toml", "compute");
    for d in m.differences { log(d.message); }
    expect(m.ok, `${m.differences.len()} difference(s) from the manifest`);
}
"#;

const MANIFEST: &str = r#"
[compute]
hcas = 1
psid = "MT_0000000008"
firmware = "16.32.1010"
[[compute.port]]
device = "mlx5_0"
link_layer = "InfiniBand"
rate_gbps = 100
rate_text = "4X EDR"
"#;

fn lab(node: &str, extra: &str, manifest: &str) -> Lab {
    let lab = Lab::new();
    lab.write("book.rhai", BOOK);
    lab.write("manifest.toml", manifest);
    let mut inventory = String::new();
    for n in ["node01", "node02", "node03"] {
        let more = if n == node { extra } else { "" };
        inventory.push_str(&format!(
            "[hosts.{n}]\naddress = \"sim:rhel8?clock=virtual&ports=ib&rate=100&ofed=23.10-1.1.9.0{more}\"\ngroups = [\"fabric\"]\n\n"
        ));
    }
    lab.write("lab.toml", &inventory);
    lab
}

#[test]
fn hosts_that_match_their_class_pass_and_a_degraded_one_is_named_with_its_difference() {
    let clean = lab("node02", "", MANIFEST);
    clean
        .cairn(&["run", "book.rhai", "-i", "lab.toml"])
        .succeeds();

    let degraded = lab("node02", "&link_width=1X&guest_fw=16.28.2006", MANIFEST);
    let run = degraded
        .cairn(&["run", "book.rhai", "-i", "lab.toml"])
        .fails(1);
    let said = format!("{}{}", run.stdout, run.stderr);
    assert!(
        said.contains("node02: mlx5_0 rate 25 Gb/s (1X EDR), expected 100 (4X EDR)"),
        "{said}"
    );
    assert!(
        said.contains("node02: mlx5_0 firmware 16.28.2006, expected 16.32.1010"),
        "{said}"
    );
    assert!(!said.contains("node01: mlx5_0"), "{said}");
    assert!(said.contains("2 difference(s) from the manifest"), "{said}");
}

#[test]
fn a_misspelt_key_or_class_in_the_manifest_is_refused_with_the_right_name() {
    let typo = lab("node01", "", &MANIFEST.replace("rate_text", "rate_txt"));
    let run = typo.cairn(&["run", "book.rhai", "-i", "lab.toml"]);
    assert_ne!(run.code, 0, "{}{}", run.stdout, run.stderr);
    run.stderr_has("unknown field `rate_txt`");
    let class = lab(
        "node01",
        "",
        &MANIFEST
            .replace("[compute]", "[comptue]")
            .replace("[[compute.", "[[comptue."),
    );
    let run = class.cairn(&["run", "book.rhai", "-i", "lab.toml"]);
    assert_ne!(run.code, 0, "{}{}", run.stdout, run.stderr);
    run.stderr_has("did you mean `comptue`?");
    // Refused at the call, before the query: no host ran ibstat.
    run.stderr_has("book.rhai:6:21");
    assert_eq!(class.sim_count("node01", &["ibstat"]), 0, "{}", run.stderr);
}

#[test]
fn a_host_with_another_ofed_version_or_part_number_is_named_and_a_misspelt_new_key_refused() {
    let manifest = MANIFEST.replace(
        "hcas = 1",
        "hcas = 1\npart_number = \"MCX556A-ECAT\"\nofed = \"23.10-1.1.9.0\"",
    );
    let clean = lab("node02", "", &manifest);
    clean
        .cairn(&["run", "book.rhai", "-i", "lab.toml"])
        .succeeds();

    let other = lab("node02", "&part_number=MCX555A-ECAT", &manifest);
    let inventory = std::fs::read_to_string(other.path().join("lab.toml")).unwrap_or_default();
    other.write(
        "lab.toml",
        &inventory.replace(
            "ofed=23.10-1.1.9.0&part_number",
            "ofed=5.8-1.0.1.1&part_number",
        ),
    );
    let run = other.cairn(&["run", "book.rhai", "-i", "lab.toml"]);
    let said = format!("{}{}", run.stdout, run.stderr);
    assert_eq!(run.code, 1, "{said}");
    assert!(
        said.contains("node02: OFED 5.8-1.0.1.1, expected 23.10-1.1.9.0"),
        "{said}"
    );
    assert!(
        said.contains("node02: 0b:00.0 part number MCX555A-ECAT, expected MCX556A-ECAT"),
        "{said}"
    );
    assert!(!said.contains("node01: OFED"), "{said}");
    assert!(!said.contains("node03: 0b:00.0"), "{said}");

    let typo = lab("node01", "", &manifest.replace("ofed =", "ofde ="));
    let run = typo.cairn(&["run", "book.rhai", "-i", "lab.toml"]);
    assert_ne!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stderr.contains("unknown field `ofde`") && run.stderr.contains("did you mean `ofed`?"),
        "{}",
        run.stderr
    );
}

/// A bare-metal host prints its VPD as a guest does (one `lspci` printer), so the manifest's
/// part number is compared there too; before, `part_number` was refused on `sim:rhel8-metal`
/// and its `lspci -vv` printed no VPD.
#[test]
fn the_manifest_reads_the_part_number_of_a_bare_metal_host() {
    let lab = Lab::new();
    lab.write(
        "book.rhai",
        r#"
stage "hardware" on metal {
    let m = fabric::manifest_diff("manifest.toml", "server");
    for d in m.differences { log(d.message); }
    expect(m.ok, `${m.differences.len()} difference(s) from the manifest`);
}
"#,
    );
    lab.write(
        "manifest.toml",
        "[server]\npart_number = \"MCX556A-ECAT\"\n",
    );
    lab.write(
        "lab.toml",
        "[hosts.metal01]\naddress = \"sim:rhel8-metal?clock=virtual&ofed=5.8-1.0.1.1&part_number=MCX555A-ECAT\"\ngroups = [\"metal\"]\n",
    );
    let run = lab.cairn(&["run", "book.rhai", "-i", "lab.toml"]);
    let said = format!("{}{}", run.stdout, run.stderr);
    assert_eq!(run.code, 1, "{said}");
    assert!(
        said.contains("metal01: 3b:00.0 part number MCX555A-ECAT, expected MCX556A-ECAT"),
        "{said}"
    );
}
