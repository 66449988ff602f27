//! What a simulated perftest server prints once collected, after its client has talked to many
//! servers.

use crate::test_support::TestHost;

const EDR: &str = "ofed=5.4-3.0.3.0&rate=100&ports=ib";

#[test]
fn a_server_collects_its_output_after_its_client_served_sixteen_others() {
    // The client keeps the last 16 servers' texts; the newest must survive even when its key
    // (`s01:…`) sorts before the others'.
    let names: Vec<String> = (1..=18).map(|n| format!("s{n:02}")).collect();
    let mut guests: Vec<(&str, &str)> = names.iter().map(|n| (n.as_str(), EDR)).collect();
    guests.push(("client", EDR));
    let t = TestHost::guests(&guests, "controller").build();
    for (name, _) in &guests {
        t.sleep(name, 3);
    }
    for server in names.iter().rev() {
        let r = t
            .eval(&format!(r#"perftest::send_bw("{server}", "client")"#))
            .try_cast::<rhai::Map>()
            .unwrap_or_default();
        let side = r.get("server_side").cloned().unwrap_or_default();
        assert!(
            !side.is_unit(),
            "{server}: the server printed no results: {r:?}"
        );
    }
}

/// `perftest_cuda_fail`: the server cannot register its GPU buffer; the builtin fails with the
/// server's words and perftest's own advice, not the client's consequence.
#[test]
fn a_server_that_cannot_register_its_gpu_buffer_fails_the_test_with_its_words() {
    let t = TestHost::guests(
        &[("s1", &format!("{EDR}&perftest_cuda_fail")), ("c1", EDR)],
        "controller",
    )
    .build();
    for name in ["s1", "c1"] {
        t.sleep(name, 3);
    }
    let error = t.error(r#"perftest::send_bw("s1", "c1")"#);
    assert!(
        error.contains("server on s1 failed (memory)") && error.contains("Couldn't allocate MR"),
        "{error}"
    );
}

/// The published `--use_cuda` server's set-up lines (shared corpus), then the registration
/// failure perftest prints instead of the banner: an error, not a refusal.
#[test]
fn a_cuda_server_that_fails_before_its_banner_is_its_error() {
    let text = "\n************************************\n* Waiting for client to connect... *\n************************************\n\
Requested mtu is higher than active mtu \nChanging to active mtu - 3\ninitializing CUDA\n\
Listing all CUDA devices in system:\nCUDA device 0: PCIe address is 61:00\n\nPicking device No. 0\n\
[pid = 4109, dev = 0] device name = [NVIDIA A40]\ncreating CUDA Ctx\nmaking it the current CUDA Ctx\n\
CUDA device integrated: 0\ncuMemAlloc() of a 2097152 bytes GPU buffer\n\
allocated GPU buffer address at 00007f8bca600000 pointer=0x7f8bca600000\n\
Couldn't allocate MR with error=14\n Couldn't create IB resources\n";
    let run = crate::perftest::parse(text).unwrap_or_else(|e| panic!("{e}"));
    let error = run.error.unwrap_or_else(|| panic!("no error"));
    assert_eq!((error.kind.as_str(), error.line), ("memory", Some(18)));
    assert_eq!(run.side.as_deref(), Some("server"));
    assert!(run.messages.iter().any(|m| m == "initializing CUDA"));
    // ROCm and Neuron set-up lines are known the same way (src/rocm_memory.c, neuron_memory.c).
    let rocm = "Using ROCm Device with ID: 0, Name: gfx90a, PCI Bus ID: 0x29, GCN Arch: gfx90a\n\
Couldn't initialize ROCm device\n";
    let run = crate::perftest::parse(rocm).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(run.error.map(|e| e.kind).as_deref(), Some("accelerator"));
    let neuron =
        "NEURON_RT_VISIBLE_CORES is not set, setting to 0\nCouldn't initialize Neuron device\n";
    let run = crate::perftest::parse(neuron).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(run.error.map(|e| e.kind).as_deref(), Some("accelerator"));
}

/// perftest's `rdma_cm_event_error_handler` prints the event and its error code.
#[test]
fn an_rdma_cm_error_carries_its_event_and_code() {
    let text = " Waiting for client rdma_cm QP to connect\nRDMA CM event error:\n\
Event: RDMA_CM_EVENT_ADDR_ERROR; error: -19.\nFailed to handle RDMA CM event.\n";
    let run = crate::perftest::parse(text).unwrap_or_else(|e| panic!("{e}"));
    let error = run.error.unwrap_or_else(|| panic!("no error"));
    assert_eq!(error.kind, "rdma_cm");
    assert_eq!(error.event.as_deref(), Some("RDMA_CM_EVENT_ADDR_ERROR"));
    assert_eq!(error.code, Some(-19));
}

/// A published `-R` run changed only by the dashed rule above its title removed, as some
/// rdma_cm runs print it: the same table.
#[test]
fn a_run_without_the_rule_above_its_title_reads_the_same_table() {
    let fixture =
        include_str!("../../../tests/fixtures/perftest/kube-ansible-write-lat-rdmacm.txt");
    let output = fixture.split_once('\n').map_or("", |(_, rest)| rest);
    let whole = crate::perftest::parse(output).unwrap_or_else(|e| panic!("{e}"));
    // The output opens with the rule above the title.
    assert!(output.starts_with("-----"));
    let without = output.split_once('\n').map_or("", |(_, rest)| rest);
    let cut = crate::perftest::parse(without).unwrap_or_else(|e| panic!("{e}\n{without}"));
    assert_eq!(cut.rows, whole.rows);
    assert_eq!(cut.test, whole.test);
}
