//! The parser on the script's failure paths, beyond the published fixtures: variants that change
//! only what the script allows to change (another application, another module).

use super::parse;

#[test]
fn escape_aligned_statuses_and_a_failed_step() {
    let text = "Unloading HCA driver:\u{1b}[60G[  OK  ]\nLoading HCA driver and Access Layer:[60G[FAILED]\n";
    let out = parse(text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.steps.len(), 2);
    assert_eq!(out.steps[1].status, "FAILED");
    assert!(!out.ok);
    let error = out.error.unwrap_or_else(|| panic!("no error"));
    assert_eq!((error.kind.as_str(), error.line), ("step_failed", 2));
    assert!(parse("").is_err());
    assert!(parse("ofed_info -s\nMLNX_OFED_LINUX-5.4-3.0.3.0:\n").is_err());
}

#[test]
fn colour_escapes_around_the_status_are_dropped() {
    let text = "Unloading HCA driver: \u{1b}[60G[  \u{1b}[1;32mOK\u{1b}[0;39m  ]\r\n\
                Loading HCA driver and Access Layer: [60G[[1;31mFAILED[0;39m]\r\n";
    let out = parse(text).unwrap_or_else(|e| panic!("{e}"));
    let seen: Vec<(&str, &str)> = out
        .steps
        .iter()
        .map(|s| (s.name.as_str(), s.status.as_str()))
        .collect();
    assert_eq!(
        seen,
        [
            ("Unloading HCA driver", "OK"),
            ("Loading HCA driver and Access Layer", "FAILED")
        ]
    );
}

#[test]
fn another_application_and_blocking_modules() {
    let text = "Please stop \"ibacm\" and all applications running over InfiniBand.\n\
Please make sure module 'rpcrdma' is not in use and unload it.\n\n\
Please stop the following applications still using Infiniband devices:\n\
ib_send_bw(40211) user hpc is using device uverbs0\n\n\n\
Error: Cannot unload the Infiniband driver stack due to the above issue(s)!\n\n\
To unload the blocking modules, you can run:\n# modprobe -rv  rpcrdma\n\n\
Once the above issue(s) resolved, run:\n# /etc/init.d/openibd stop\n";
    let out = parse(text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.issues.len(), 3);
    assert_eq!(out.applications[0].program, "ib_send_bw");
    assert_eq!(out.applications[0].pid, 40211);
    assert_eq!(out.blocking_modules, ["rpcrdma"]);
    assert_eq!(
        out.next_steps,
        ["modprobe -rv  rpcrdma", "/etc/init.d/openibd stop"]
    );
    let error = out.error.unwrap_or_else(|| panic!("no error"));
    assert_eq!((error.kind.as_str(), error.line), ("blocked", 8));
    assert!(!out.ok && out.messages.is_empty());
}

#[test]
fn the_other_refusals_are_errors_with_their_words() {
    for (text, kind) in [
        (
            "There are active virtual functions. Cannot continue...\n",
            "active_virtual_functions",
        ),
        (
            "ERROR: Option 'stop' is disabled!\nEither use 'force-stop', or enable 'stop' by setting 'ALLOW_STOP=yes' in your /etc/infiniband/openib.conf file\n",
            "stop_disabled",
        ),
        (
            "\nUsage: openibd {start|force-start|stop|force-stop|restart|force-restart|status}\n\n",
            "usage",
        ),
        ("No InfiniBand configuration found\n", "not_configured"),
        (
            "Unloading ib_ipoib                                         [FAILED]\nrmmod: ERROR: Module ib_ipoib is in use\n",
            "module_in_use",
        ),
    ] {
        let out = parse(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(out.error.map(|e| e.kind).as_deref(), Some(kind), "{text}");
    }
}

#[test]
fn a_line_the_parser_does_not_know_is_a_message_with_its_line() {
    let text = "Unloading HCA driver:                                      [  OK  ]\n\
Probably some application are still using InfiniBand modules...\n\
Loading HCA driver and Access Layer:                       [  OK  ]\n";
    let out = parse(text).unwrap_or_else(|e| panic!("{e}"));
    assert!(out.ok);
    assert_eq!(out.messages.len(), 1);
    assert_eq!(out.messages[0].line, 2);
}
