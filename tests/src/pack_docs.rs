//! Recipes document themselves (issue 27, items 5 and 7): `cairn recipes show` prints the
//! leading comment, each param's `///` comment, type, default and choices (a secret's default
//! never), the lab, pack and signer; `--json` a JSON Schema; docs/recipes.md's generated tables
//! are what `--markdown` prints; `cairn recipes diff` names the SemVer step the params need.

use cairn_tests::Lab;

use crate::pack_trust::{cairn, write_pack};

const DOCUMENTED: &str = r#"// Pings between two hosts.

/// How many pings, at most ten.
param count = 3;
/// Which stack carries them.
param stack = one_of("kernel", ["kernel", "vma"]);
/// The switch's password.
param password = secret("hunter2");

stage "ping" on all {
    log(`${count} ${stack}`);
}
"#;

#[test]
fn show_prints_the_recipe_s_own_docs_and_json_a_schema_without_the_secret() {
    let lab = Lab::new();
    write_pack(&lab, "src", "acme/infra", "1.0.0", "hi");
    lab.write("src/hello.rhai", DOCUMENTED);
    assert_eq!(
        cairn(&lab, &["recipes", "pack", "src", "-o", "a.cairnpack"]).code,
        0
    );
    cairn(
        &lab,
        &["recipes", "install", "a.cairnpack", "--allow-unsigned"],
    )
    .succeeds();
    let show = cairn(&lab, &["recipes", "show", "hello"]).succeeds();
    for line in [
        "acme/infra:hello 1.0.0",
        "Pings between two hosts.",
        "usage: cairn run acme/infra:hello -i lab.toml [--param NAME=VALUE]...",
        "  count                integer  default 3",
        "How many pings, at most ten.",
        "  stack                string   default \"kernel\", one of kernel | vma",
        "  password             string   secret, no default shown",
        "lab: labs/two.toml (cairn recipes lab acme/infra:hello > lab.toml)",
        "signer: unsigned (installed with --allow-unsigned)",
    ] {
        assert!(show.stdout.contains(line), "{line}\n{}", show.stdout);
    }
    show.stdout_lacks("hunter2");
    let json = cairn(&lab, &["recipes", "show", "acme/infra:hello", "--json"]).succeeds();
    let schema: serde_json::Value =
        serde_json::from_str(&json.stdout).unwrap_or_else(|e| panic!("{e}: {}", json.stdout));
    assert_eq!(schema["properties"]["count"]["type"], "integer");
    assert_eq!(schema["properties"]["count"]["default"], 3);
    assert_eq!(
        schema["properties"]["stack"]["enum"],
        serde_json::json!(["kernel", "vma"])
    );
    assert_eq!(schema["properties"]["password"]["writeOnly"], true);
    json.stdout_lacks("hunter2");
    // The `///` lines do not stop the recipe from checking and running.
    let run = cairn(
        &lab,
        &[
            "run",
            "hello",
            "-i",
            "src/labs/two.toml",
            "--param",
            "stack=vma",
        ],
    )
    .succeeds();
    run.stdout_has("3 vma");
}

/// docs/recipes.md's tables between its markers are `cairn recipes show --markdown` of each
/// built-in recipe; regenerate them with that command when a recipe's params change.
#[test]
fn the_parameter_tables_in_the_docs_are_what_the_recipes_say() {
    let lab = Lab::new();
    let list = cairn(&lab, &["recipes", "list"]);
    let names: Vec<String> = list
        .stdout
        .lines()
        .skip_while(|line| !line.starts_with("cairn/connectx "))
        .skip(1)
        .take_while(|line| line.starts_with("  "))
        .filter_map(|line| line.split_whitespace().next().map(str::to_owned))
        .collect();
    assert!(names.len() >= 9, "{}", list.stdout);
    let mut expected = String::new();
    for name in &names {
        let table = cairn(
            &lab,
            &[
                "recipes",
                "show",
                &format!("cairn/connectx:{name}"),
                "--markdown",
            ],
        )
        .succeeds();
        expected.push_str(&format!("\n### `{name}`\n\n{}", table.stdout));
    }
    let docs = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/recipes.md");
    let text = std::fs::read_to_string(&docs).unwrap_or_else(|e| panic!("{e}"));
    let begin = "<!-- generated parameter tables: begin -->\n";
    let end = "\n<!-- generated parameter tables: end -->";
    let shown = text
        .split_once(begin)
        .and_then(|(_, rest)| rest.split_once(end))
        .map(|(tables, _)| tables)
        .unwrap_or_else(|| panic!("docs/recipes.md has no generated tables"));
    assert_eq!(
        shown, expected,
        "docs/recipes.md's parameter tables differ from the recipes"
    );
}

#[test]
fn diff_says_major_for_a_removed_param_and_refuses_a_version_that_claims_less() {
    let lab = Lab::new();
    write_pack(&lab, "v1", "acme/infra", "1.0.0", "hi");
    lab.write("v1/hello.rhai", DOCUMENTED);
    write_pack(&lab, "v2", "acme/infra", "1.1.0", "hi");
    lab.write(
        "v2/hello.rhai",
        &DOCUMENTED
            .replace("param count = 3;\n", "param rounds = 3;\n")
            .replace("${count}", "${rounds}"),
    );
    let diff = cairn(&lab, &["recipes", "diff", "v1", "v2"]).fails(1);
    diff.stdout_has("major  hello: param `count` removed");
    diff.stdout_has("minor  hello: new param `rounds`");
    diff.stdout_has("need a major version, the numbers take a minor step");

    write_pack(&lab, "v3", "acme/infra", "1.1.0", "hi");
    lab.write(
        "v3/hello.rhai",
        &DOCUMENTED.replace(
            "param count = 3;\n",
            "param count = 3;\nparam extra = true;\n",
        ),
    );
    let minor = cairn(&lab, &["recipes", "diff", "v1", "v3"]).succeeds();
    minor.stdout_has("minor  hello: new param `extra`");
    let narrowed = DOCUMENTED.replace("[\"kernel\", \"vma\"]", "[\"kernel\"]");
    write_pack(&lab, "v4", "acme/infra", "2.0.0", "hi");
    lab.write("v4/hello.rhai", &narrowed);
    let major = cairn(&lab, &["recipes", "diff", "v1", "v4"]).succeeds();
    major.stdout_has("major  hello: param `stack` takes fewer values");
}
