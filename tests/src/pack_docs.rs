//! Recipes document themselves (issue 27, items 5 and 7): `cairn recipes show` prints the
//! leading comment, each param's `///` comment, type, default and choices (a secret's default
//! never), the lab, pack and signer; `--json` a JSON Schema; docs/recipes.md's generated tables
//! are what `--markdown` prints; `cairn recipes diff` names the SemVer step the params need.
//! The built-in recipes document every param and cite their sources by title and address.

use std::path::{Path, PathBuf};

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
    let mut expected = String::new();
    for name in &built_in_recipes(&lab) {
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
    let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/recipes.md");
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

/// The recipes of the built-in pack `cairn/connectx`, as `cairn recipes list` names them.
fn built_in_recipes(lab: &Lab) -> Vec<String> {
    let list = cairn(lab, &["recipes", "list"]);
    let names: Vec<String> = list
        .stdout
        .lines()
        .skip_while(|line| !line.starts_with("cairn/connectx "))
        .skip(1)
        .take_while(|line| line.starts_with("  "))
        .filter_map(|line| line.split_whitespace().next().map(str::to_owned))
        .collect();
    assert!(names.len() >= 9, "{}", list.stdout);
    names
}

/// How a text points at a source by a path of this repository's build, where a user needs the
/// source's title and address.
const SOURCE_BY_PATH: [&str; 4] = [
    "shared/reference",
    "reference/00",
    "reference 00",
    "references 00",
];

/// The first way `text` points at a source by a path, if any.
fn source_by_path(text: &str) -> Option<&'static str> {
    let text = text.to_lowercase();
    SOURCE_BY_PATH.into_iter().find(|path| text.contains(path))
}

/// Every file under `dir`, at any depth.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let mut files = Vec::new();
    for path in entries.filter_map(|entry| entry.ok().map(|entry| entry.path())) {
        if path.is_dir() {
            files.extend(files_under(&path));
        } else {
            files.push(path);
        }
    }
    files
}

/// What `cairn recipes show --json` says of each built-in recipe: a description for every
/// param, and a description that cites its sources by title, as do the runbooks, their modules
/// and labs and the docs a user reads.
#[test]
fn built_in_recipes_document_every_param_and_cite_sources_by_title() {
    let lab = Lab::new();
    let mut problems = Vec::new();
    for name in built_in_recipes(&lab) {
        let json = cairn(
            &lab,
            &[
                "recipes",
                "show",
                &format!("cairn/connectx:{name}"),
                "--json",
            ],
        )
        .succeeds();
        let schema: serde_json::Value =
            serde_json::from_str(&json.stdout).unwrap_or_else(|e| panic!("{e}: {}", json.stdout));
        let params = schema["properties"]
            .as_object()
            .cloned()
            .unwrap_or_default();
        for (param, property) in &params {
            if property["description"].as_str().is_none_or(str::is_empty) {
                problems.push(format!("{name}: param `{param}` has no `///` doc"));
            }
        }
        if let Some(path) = source_by_path(&json.stdout) {
            problems.push(format!(
                "{name}: its description cites a source as `{path}`"
            ));
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    for file in files_under(&root.join("runbooks"))
        .into_iter()
        .chain(crate::docs::docs())
    {
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        let shown = file.strip_prefix(&root).unwrap_or(&file).display();
        // Words joined by single spaces: a citation wrapped over two lines counts too.
        let words = text.split_whitespace().collect::<Vec<_>>().join(" ");
        if let Some(path) = source_by_path(&words) {
            problems.push(format!("{shown}: cites a source as `{path}`"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
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
