//! Typos are errors before anything runs: stages and `hosts(...)` on groups the inventory lacks, unknown option
//! keys, `--param` values of the wrong type, unknown `sim:` options, unsafe host names, and
//! what `cairn check` finds; none of them creates a run.

use cairn_tests::{Lab, RUN_BOOK, Run, run_book_args};

use crate::executor::inventory;

/// `cairn ARGS`, which must exit 2 saying every one of `needles`, before any run folder exists
/// and before any host is touched.
#[track_caller]
fn refused(lab: &Lab, args: &[&str], needles: &[&str]) -> Run {
    let run = lab.assert_fails(args, 2, needles);
    assert!(
        lab.runs().is_empty(),
        "no run was created: {:?}",
        lab.runs()
    );
    assert!(
        !lab.path().join(".cairn/sim").exists(),
        "no host was touched"
    );
    run
}

/// A lab holding `book` as `book.rhai` and one virtual-clocked host `node01` in `compute`.
fn node01_lab(book: &str) -> Lab {
    Lab::with_book(book, &inventory("node01", "clock=virtual"))
}

#[test]
fn a_stage_on_an_unknown_group_stops_the_run_with_a_suggestion() {
    let lab = node01_lab(
        "stage \"one\" on compute { run([\"true\"]); }\nstage \"two\" on computee { run([\"true\"]); }\n",
    );
    refused(
        &lab,
        &RUN_BOOK,
        &[
            "group `computee`",
            "did you mean `compute`?",
            "book.rhai:2:16",
        ],
    );
    lab.assert_fails(
        &["check", "book.rhai", "-i", "lab.toml"],
        2,
        &["did you mean `compute`?"],
    );
}

#[test]
fn hosts_of_an_unknown_group_stops_the_run_instead_of_giving_no_hosts() {
    let lab = node01_lab(
        "stage \"one\" on compute {\n    let peers = hosts(\"computee\");\n    log(`${peers.len()}`);\n}\n",
    );
    refused(
        &lab,
        &RUN_BOOK,
        &[
            "`hosts(\"computee\")`: the inventory has no group `computee`",
            "did you mean `compute`?",
            "book.rhai:2:23",
        ],
    );
    lab.write(
        "book.rhai",
        "stage \"one\" on compute {\n    let peers = hosts(\"compute\");\n    log(`${peers.len()}`);\n}\n",
    );
    lab.run_book(&[]).succeeds();
}

#[test]
fn a_stage_on_a_group_without_hosts_is_a_warning() {
    let lab = Lab::new();
    lab.write("book.rhai", "stage \"one\" on spare { run([\"true\"]); }\n");
    lab.write(
        "lab.toml",
        &format!("[groups.spare]\n\n{}", inventory("node01", "clock=virtual")),
    );
    let run = lab.run_book(&[]).succeeds();
    let output = format!("{}{}", run.stdout, run.stderr);
    assert!(
        output.contains("stage `one` runs on group `spare`, which has no hosts"),
        "{output}"
    );
}

#[test]
fn an_unknown_option_key_is_an_error_not_ignored() {
    let lab = Lab::new();
    lab.write(
        "literal.rhai",
        "stage \"s\" on all { run([\"false\"], #{ allow_failure: true }); }\n",
    );
    lab.write("lab.toml", &inventory("node01", "clock=virtual"));
    refused(
        &lab,
        &["run", "literal.rhai", "-i", "lab.toml"],
        &[
            "`run` has no option `allow_failure`",
            "did you mean `allow_fail`?",
            "idempotent, read_only, reboot_required",
        ],
    );
    // A map built at run time is checked when the builtin is called: a runbook error, exit 2.
    lab.write(
        "built.rhai",
        "stage \"s\" on all {\n    let options = #{};\n    options.allow_failure = true;\n    run([\"false\"], options);\n}\n",
    );
    lab.assert_fails(
        &["run", "built.rhai", "-i", "lab.toml"],
        2,
        &["no option `allow_failure`"],
    );
    assert_eq!(
        lab.sim_count("node01", &["false"]),
        0,
        "the command never ran"
    );
}

#[test]
fn a_misspelt_ofed_force_installs_nothing() {
    let lab = Lab::new();
    lab.write(
        "book.rhai",
        "stage \"s\" on all {\n    let options = #{ forse: false };\n    ofed::install(\"/nfs/MLNX_OFED_LINUX-5.4-3.0.3.0-rhel8.1-x86_64.tgz\", options);\n}\n",
    );
    lab.write(
        "lab.toml",
        "[hosts.vm01]\naddress = \"sim:rhel8?clock=virtual\"\n",
    );
    lab.assert_fails(
        &RUN_BOOK,
        2,
        &[
            "`ofed::install` has no option `forse`",
            "did you mean `force`?",
        ],
    );
    let installs = lab
        .sim_commands("vm01")
        .iter()
        .filter(|argv| argv.iter().any(|a| a.contains("mlnxofedinstall")))
        .count();
    assert_eq!(installs, 0);
    lab.write(
        "literal.rhai",
        "stage \"s\" on all { ofed::install(\"/nfs/MLNX_OFED_LINUX-5.4-3.0.3.0-rhel8.1-x86_64.tgz\", #{ forse: false }); }\n",
    );
    lab.assert_fails(&["check", "literal.rhai"], 2, &["literal.rhai:1:"]);
}

#[test]
fn a_param_that_does_not_convert_stops_the_run() {
    let lab = node01_lab(
        "param mtu = 9000;\nparam max_us = 1.5;\nstage \"s\" on all { expect(2.0 < max_us, \"fast enough\"); }\n",
    );
    refused(
        &lab,
        &run_book_args(&["--param", "mtu=jumbo"]),
        &["`mtu` takes an integer", "command line"],
    );
    for bad in ["max_us=nan", "max_us=inf", "max_us=1e400"] {
        let stderr = refused(&lab, &run_book_args(&["--param", bad]), &[]).stderr;
        assert!(stderr.contains("a finite number"), "{bad}: {stderr}");
    }
    refused(
        &lab,
        &run_book_args(&["--param", "max_usec=3"]),
        &["did you mean `max_us`?"],
    );
    lab.run_book(&["--param", "max_us=3.0"]).succeeds();
}

#[test]
fn an_unknown_sim_option_points_at_the_inventory_line() {
    let lab = Lab::new();
    lab.write("book.rhai", "stage \"s\" on all { run([\"true\"]); }\n");
    lab.write("lab.toml", &inventory("node01", "reboot_sec=2"));
    refused(
        &lab,
        &RUN_BOOK,
        &[
            "unknown sim option `reboot_sec`",
            "did you mean `reboot_secs`?",
            "lab.toml:2:22",
        ],
    );
    lab.write("lab.toml", "[hosts.n1]\naddress = \"sim:linus\"\n");
    refused(
        &lab,
        &RUN_BOOK,
        &["no simulator model `linus`", "did you mean `linux`?"],
    );
}

#[test]
fn host_names_that_are_not_safe_file_names_are_refused() {
    let lab = Lab::new();
    lab.write("book.rhai", "stage \"s\" on all { run([\"true\"]); }\n");
    let long = "a".repeat(250);
    for (name, why) in [
        ("..", "is a folder"),
        (".", "is a folder"),
        ("controller", "interpreter's own instance"),
        (long.as_str(), "250 bytes long"),
    ] {
        lab.write(
            "lab.toml",
            &format!("[hosts.\"{name}\"]\naddress = \"sim:linux?clock=virtual\"\n"),
        );
        let stderr = refused(&lab, &RUN_BOOK, &[]).stderr;
        assert!(stderr.contains("invalid host name"), "{name}: {stderr}");
        assert!(stderr.contains(why), "{name}: {stderr}");
        assert!(stderr.contains("lab.toml:1:8"), "{name}: {stderr}");
    }
    // A `/` is refused by the host pattern already, at the character.
    lab.write("lab.toml", "[hosts.\"a/b\"]\naddress = \"local\"\n");
    refused(&lab, &RUN_BOOK, &["'/' cannot appear"]);
}

#[test]
fn an_inventory_error_past_column_65535_is_shown_not_a_panic() {
    let lab = Lab::new();
    lab.write("book.rhai", "stage \"s\" on all { run([\"true\"]); }\n");
    let key = "a".repeat(70_000);
    lab.write(
        "lab.toml",
        &format!("[hosts.{key}!]\naddress = \"local\"\n"),
    );
    let stderr = refused(&lab, &RUN_BOOK, &[]).stderr;
    assert!(
        stderr.contains("invalid inventory"),
        "{}",
        &stderr[..stderr.len().min(2000)]
    );
    assert!(!stderr.contains("panicked"));
    lab.write(
        "lab.toml",
        &format!("[hosts.\"n{key}[1-\"]\naddress = \"local\"\n"),
    );
    let stderr = refused(&lab, &RUN_BOOK, &[]).stderr;
    assert!(
        stderr.contains("invalid host pattern"),
        "{}",
        &stderr[..stderr.len().min(2000)]
    );
}

#[test]
fn check_finds_every_kind_of_runbook_error_with_its_span() {
    let lab = Lab::new();
    lab.write(
        "bad.rhai",
        r#"import "missing" as m;
param mtu = 9000;
param mtu = 1500;
run(["true"]);
stage "a" on all {
    run("ip link");
    net::set_mtu(9000, "ens224f1");
    lgo("x");
    let names = [];
    let n = names.push(1);
    stage "inner" on all { log(1); }
}
stage "a" on all { log(2); }
"#,
    );
    let check = lab.cairn(&["check", "bad.rhai"]).fails(2);
    let stderr = check.stderr;
    for (expected, at) in [
        ("no module `missing`", "bad.rhai:1:8"),
        ("param `mtu` is declared twice", "bad.rhai:3:7"),
        (
            "`run` touches the host and must be called inside a `stage` block",
            "bad.rhai:4:1",
        ),
        (
            "`run` takes its command as an array of words",
            "bad.rhai:6:9",
        ),
        (
            "argument 1 of `net::set_mtu` is i64 `9000`",
            "bad.rhai:7:18",
        ),
        ("unknown function `lgo`", "bad.rhai:8:5"),
        ("`.push(...)` returns nothing", "bad.rhai:10:19"),
        ("stage `inner` is inside stage `a`", "bad.rhai:11:11"),
        ("stage `a` is declared twice", "bad.rhai:13:7"),
    ] {
        assert!(stderr.contains(expected), "{expected}: {stderr}");
        assert!(stderr.contains(at), "{at}: {stderr}");
    }
    assert!(stderr.contains("write run([\"ip\", \"link\"])"), "{stderr}");
    assert!(stderr.contains("did you mean `log`?"), "{stderr}");
    assert!(stderr.contains("9 problem(s)"), "{stderr}");
    // The same runbook does not start a run.
    lab.write("lab.toml", &inventory("node01", "clock=virtual"));
    refused(
        &lab,
        &["run", "bad.rhai", "-i", "lab.toml"],
        &["nothing was run"],
    );
}

#[test]
fn trim_and_replace_give_their_result() {
    let lab = node01_lab(
        r#"stage "s" on all {
    let name = run(["echo", "  node01  "]).stdout.trim();
    expect(name == "node01", `trimmed: '${name}'`);
    let iface = "ens 224".replace(" ", "");
    expect(iface == "ens224", `replaced: '${iface}'`);
    let s = "  x ";
    s.trim();
    expect(s == "x", "trim as a statement trims in place");
    log(`${name} ${iface}`);
}
"#,
    );
    lab.cairn(&["check", "book.rhai"]).succeeds();
    let run = lab.run_book(&[]).succeeds();
    run.stdout_has("node01 ens224");
}

#[test]
fn a_call_given_nothing_says_which_call_made_the_nothing() {
    let lab = Lab::new();
    lab.write(
        "named.rhai",
        "fn upper(s) { s.make_upper() }\nstage \"s\" on all {\n    let name = upper(\"eth0\");\n    net::set_mtu(name, 9000);\n}\n",
    );
    lab.assert_fails(
        &["check", "named.rhai"],
        2,
        &[
            "`upper(...)`, whose last expression (line 1) is `.make_upper(...)`",
            "named.rhai:3:16",
        ],
    );
    // Through a closure the checker cannot follow it; at run time the error explains the `()`.
    lab.write(
        "closure.rhai",
        "stage \"s\" on all {\n    let upper = |s| s.make_upper();\n    let name = upper.call(\"eth0\");\n    net::set_mtu(name, 9000);\n}\n",
    );
    lab.write(
        "lab.toml",
        "[hosts.vm01]\naddress = \"sim:rhel8?clock=virtual\"\n",
    );
    lab.assert_fails(
        &["run", "closure.rhai", "-i", "lab.toml"],
        2,
        &[
            "net::set_mtu ((), i64)",
            "an argument is `()`, the value of a call that returns nothing",
        ],
    );
}

#[test]
fn resume_refuses_a_runbook_edited_into_a_duplicate_stage() {
    let book =
        "stage \"one\" on all { run([\"true\"]); }\nstage \"two\" on all { run([\"false\"]); }\n";
    let lab = node01_lab(book);
    lab.run_book(&[]).fails(1);
    lab.write("book.rhai", &book.replace("\"two\"", "\"one\""));
    let before = lab.sim_commands("node01").len();
    lab.assert_fails(
        &["resume", "--from-stage", "one"],
        2,
        &["stage `one` is declared twice"],
    );
    assert_eq!(lab.sim_commands("node01").len(), before, "nothing ran");
}

#[test]
fn run_given_a_string_at_run_time_says_to_write_an_array() {
    let lab = node01_lab("stage \"s\" on all {\n    let line = \"ip link\";\n    run(line);\n}\n");
    lab.assert_fails(
        &RUN_BOOK,
        2,
        &["write run([\"ip\", \"link\"])", "book.rhai:3:5"],
    );
    assert_eq!(lab.sim_count("node01", &["ip"]), 0);
}

#[test]
fn a_mistyped_method_is_refused_before_a_run_with_did_you_mean() {
    let lab = node01_lab(
        r#"import "text" as text;
stage "s" on all {
    run(["true"]);
    let s = " a,b ";
    if s.contians("a") { log("a"); }
    let t = s.trimed();
    let parts = s.split(",");
    log(parts.join("; "));
    log(s.len(1));
}
"#,
    );
    lab.copy_lib();
    let check = lab.cairn(&["check", "book.rhai"]).fails(2);
    let stderr = check.stderr;
    for (expected, help, at) in [
        (
            "unknown method `.contians(...)`",
            "did you mean `contains`?",
            "book.rhai:5:10",
        ),
        (
            "unknown method `.trimed(...)`",
            "did you mean `trimmed`?",
            "book.rhai:6:15",
        ),
        (
            "unknown method `.join(...)`",
            "did you mean `text::joined(...)`",
            "book.rhai:8:15",
        ),
        (
            "`.len(...)` takes 0 argument(s) after its value, not 1",
            "len(",
            "book.rhai:9:11",
        ),
    ] {
        for needle in [expected, help, at] {
            assert!(stderr.contains(needle), "{needle}: {stderr}");
        }
    }
    assert!(stderr.contains("4 problem(s)"), "{stderr}");
    refused(
        &lab,
        &RUN_BOOK,
        &["unknown method `.contians(...)`", "nothing was run"],
    );
}

/// Methods rhai finds by the value's type, the runbook's own functions called on a value
/// (`this`), a module's typed methods, functions a map holds, `Fn`, `call` and `curry`: none is
/// refused, and the run gives what they return.
#[test]
fn methods_of_every_kind_check_clean_and_run() {
    let lab = node01_lab(
        r#"import "loud" as loud;
fn bump() { this + 1 }
stage "s" on all {
    let s = " abc ";
    let m = #{ twice: |x| x * 2 };
    m.inc = |x| x + 1;
    let add = |a, b| a + b;
    let add_one = add.curry(1);
    let named = Fn("bump");
    let parts = [s.trim().shout(), `${3.bump()}`, `${m.twice(2)}`, `${m.inc(1)}`];
    parts += [`${add_one.call(2)}`, `${call(add_one, 3)}`, s.type_of(), `${s.len()}`];
    parts.push(`${named.is_anonymous()}`);
    log(loud::together(parts));
}
"#,
    );
    lab.write(
        "loud.rhai",
        "fn string.shout() { this + \"!\" }\nfn together(items) { let t = \"\"; for i in items { t += i + \" \"; } t }\n",
    );
    lab.cairn(&["check", "book.rhai"]).succeeds();
    let run = lab.run_book(&[]).succeeds();
    run.stdout_has("abc! 4 4 2 3 4 string 3 false");
}
