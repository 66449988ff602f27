//! GPUDirect RDMA readiness through the binary, on simulated GPU servers (`sim:gpu-metal`):
//! each GPU's nearest NIC, the peer-memory module NCCL looks for, and perftest's `--use_cuda`
//! failing as perftest does when the server cannot register its GPU buffer.

use cairn_tests::Lab;

const READINESS: &str = r#"
stage "gpudirect" on gpu {
    let topo = gpu::topology();
    for g in topo.gpus {
        log(`${host().name} ${g.gpu} -> ${g.nic} (${g.link}) NUMA ${g.numa_affinity} CPUs ${g.cpu_affinity}`);
    }
    let p = gpu::peermem();
    log(`${host().name} nvidia_peermem ${p.nvidia_peermem}`);
}
"#;

const GDR_TEST: &str = r#"
param dmabuf = false;

stage "addresses" on gpu {
    let n = if host().name == "gpu01" { 1 } else { 2 };
    net::addr_add(net::ifname_for("mlx5_0", 1), `192.168.7.${n}/24`);
}

stage "gdr" on controller {
    let r = perftest::write_bw("gpu02", "gpu01", #{ device: "mlx5_0", size: 65536, use_cuda: 4, use_cuda_dmabuf: dmabuf });
    log(`GDR ${r.avg_gbps} Gb/s`);
}
"#;

const ACS: &str = r#"
stage "acs" on gpu {
    let before = gpu::acs();
    log(`${host().name} ACS on ${before.enabled.len()}: ${before.enabled}`);
    let off = gpu::disable_acs();
    log(`${host().name} turned off ${off.len()}`);
    expect(gpu::acs().enabled.is_empty(), `${host().name}: ACS still on`);
}
"#;

/// Two GPU servers; `faults` adds options to `gpu02`'s address.
fn lab(faults: &str) -> Lab {
    let lab = Lab::new();
    lab.write("readiness.rhai", READINESS);
    lab.write("gdr.rhai", GDR_TEST);
    lab.write("acs.rhai", ACS);
    let mut inventory = String::new();
    for (host, extra) in [("gpu01", ""), ("gpu02", faults)] {
        inventory.push_str(&format!(
            "[hosts.{host}]\naddress = \"sim:gpu-metal?clock=virtual&ofed=5.4-3.0.3.0{extra}\"\ngroups = [\"gpu\"]\n\n"
        ));
    }
    lab.write("lab.toml", &inventory);
    lab
}

#[test]
fn each_gpu_is_paired_with_its_switchs_nic_and_the_peer_memory_module_is_found() {
    let lab = lab("");
    let run = lab
        .cairn(&["run", "readiness.rhai", "-i", "lab.toml"])
        .succeeds();
    run.stdout_has("gpu01 GPU0 -> mlx5_0 (PIX) NUMA 0 CPUs 0-55,112-167");
    // The BlueField-3 takes mlx5_4 and mlx5_5 in PCI order: GPU4's ConnectX-7 is mlx5_6.
    run.stdout_has("gpu02 GPU4 -> mlx5_6 (PIX) NUMA 1 CPUs 56-111,168-223");
    run.stdout_has("gpu02 nvidia_peermem 535.129.03");
}

#[test]
fn a_missing_or_doubled_peer_memory_module_fails_naming_what_was_found_and_the_next_step() {
    let missing = lab("&peermem_missing=true");
    let run = missing
        .cairn(&["run", "readiness.rhai", "-i", "lab.toml"])
        .fails(1);
    let said = format!("{}{}", run.stdout, run.stderr);
    assert!(
        said.contains("nvidia-peermem is not loaded (/sys/module/nvidia_peermem/version is absent; found: no peer-memory module)"),
        "{said}"
    );
    assert!(said.contains("modprobe nvidia-peermem"), "{said}");
    let doubled = lab("&nv_peer_mem_loaded=true");
    let run = doubled
        .cairn(&["run", "readiness.rhai", "-i", "lab.toml"])
        .fails(1);
    let said = format!("{}{}", run.stdout, run.stderr);
    assert!(
        said.contains("the old nv_peer_mem 1.3-0 is loaded beside nvidia-peermem 535.129.03"),
        "{said}"
    );
    assert!(said.contains("rmmod nv_peer_mem"), "{said}");
    // A misspelt fault is refused before anything runs.
    let typo = lab("&peermem_mising=true");
    let run = typo.cairn(&["run", "readiness.rhai", "-i", "lab.toml"]);
    assert_eq!(run.code, 2, "{}{}", run.stdout, run.stderr);
    run.stderr_has("peermem_mising");
}

#[test]
fn use_cuda_fails_on_a_server_without_nvidia_peermem_and_dmabuf_does_not_need_it() {
    let healthy = lab("");
    let run = healthy
        .cairn(&["run", "gdr.rhai", "-i", "lab.toml"])
        .succeeds();
    run.stdout_has("GDR ");
    let commands = healthy.sim_commands("gpu02");
    assert!(
        commands
            .iter()
            .any(|c| c.iter().any(|a| a == "ib_write_bw") && c.iter().any(|a| a == "--use_cuda=4")),
        "{commands:?}"
    );

    let missing = lab("&peermem_missing=true");
    let run = missing
        .cairn(&["run", "gdr.rhai", "-i", "lab.toml"])
        .fails(1);
    let said = format!("{}{}", run.stdout, run.stderr);
    assert!(said.contains("Couldn't allocate MR"), "{said}");

    let dmabuf = lab("&peermem_missing=true");
    dmabuf
        .cairn(&[
            "run",
            "gdr.rhai",
            "-i",
            "lab.toml",
            "--param",
            "dmabuf=true",
        ])
        .succeeds();
}

/// The `setpci` writes a host's simulator logged.
fn acs_writes(lab: &Lab, host: &str) -> Vec<String> {
    lab.sim_commands(host)
        .into_iter()
        .filter(|c| c.first().is_some_and(|p| p == "setpci") && c.iter().any(|a| a.contains('=')))
        .map(|c| c.get(2).cloned().unwrap_or_default())
        .collect()
}

#[test]
fn acs_is_turned_off_only_on_the_bridges_where_it_is_on_and_a_rerun_writes_nothing() {
    let lab = lab("&acs_on=0,5");
    let run = lab.cairn(&["run", "acs.rhai", "-i", "lab.toml"]).succeeds();
    run.stdout_has("gpu02 ACS on 4: ");
    run.stdout_has("gpu02 turned off 4");
    run.stdout_has("gpu01 ACS on 0: ");
    run.stdout_has("gpu01 turned off 0");
    // GPU0's and GPU5's switches: the downstream ports to the GPU and to its ConnectX-7.
    assert_eq!(
        acs_writes(&lab, "gpu02"),
        ["17:00.0", "17:01.0", "aa:00.0", "aa:01.0"]
    );
    assert_eq!(acs_writes(&lab, "gpu01"), Vec::<String>::new());
    let again = lab.cairn(&["run", "acs.rhai", "-i", "lab.toml"]).succeeds();
    again.stdout_has("gpu02 turned off 0");
    assert_eq!(acs_writes(&lab, "gpu02").len(), 4);
}
