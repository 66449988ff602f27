//! `fabric::nccl_all_reduce` on simulated GPU servers (`sim:gpu-metal`): the job launched from
//! the first node by mpirun, its GID index looked up on every node, judged by its bus bandwidth
//! at the largest size against what the NICs should carry.

use cairn_tests::Lab;

const LAB: &str = "[hosts.\"gpu[01-02]\"]\n\
    address = \"sim:gpu-metal?clock=virtual&ofed=5.8-1.0.1.1&eth_switch=eth-sw01\"\n\
    groups = [\"gpus\"]\n\
    [hosts.gpu03]\n\
    address = \"sim:gpu-metal?clock=virtual&ofed=5.8-1.0.1.1&eth_switch=eth-sw01&peermem_missing=true\"\n\
    groups = [\"gpus\"]\n";

/// Two RoCE ports a node, each with an address, then the job on `nodes`.
fn runbook(nodes: &str) -> String {
    format!(
        "stage \"addresses\" on gpus {{\n\
         \x20   let n = host().name.sub_string(3).parse_int();\n\
         \x20   for (dev, i) in [\"mlx5_0\", \"mlx5_1\"] {{\n\
         \x20       net::addr_add(net::ifname_for(dev, 1), `10.${{i}}.0.${{n}}/24`);\n\
         \x20   }}\n\
         }}\n\
         stage \"nccl\" on controller {{\n\
         \x20   let r = fabric::nccl_all_reduce({nodes}, #{{ launcher: \"mpirun\",\n\
         \x20       path: \"/opt/nccl-tests/build\", gpus_per_node: 8, hcas: [\"mlx5_0\", \"mlx5_1\"],\n\
         \x20       nic_gbps: 400, min_fraction: 0.9 }});\n\
         \x20   log(`busbw ${{r.verdict.busbw_gbytes_sec}} of ${{r.verdict.expected_gbytes_sec}}`);\n\
         \x20   expect(r.ok, `${{r.verdict.failures}}`);\n\
         }}\n"
    )
}

#[test]
fn two_gpu_servers_pass_and_one_without_gpudirect_fails_in_numbers() {
    let lab = Lab::new();
    lab.write("lab.toml", LAB);
    lab.write("pass.rhai", &runbook("[\"gpu01\", \"gpu02\"]"));
    let passed = lab
        .cairn(&["run", "pass.rhai", "-i", "lab.toml"])
        .succeeds();
    passed.stdout_has("busbw 9");
    let launched = lab.sim_commands("gpu01");
    let mpirun = launched
        .iter()
        .find(|argv| argv.first().is_some_and(|p| p == "mpirun"))
        .map(|argv| argv.join(" "))
        .unwrap_or_default();
    assert!(
        mpirun.contains("-np 16 -H gpu01:8,gpu02:8")
            && mpirun.contains("-x NCCL_IB_HCA==mlx5_0,=mlx5_1 -x NCCL_IB_GID_INDEX=3")
            && mpirun.contains("-x NCCL_ALGO=Ring"),
        "{mpirun}"
    );
    lab.write("slow.rhai", &runbook("[\"gpu01\", \"gpu03\"]"));
    let failed = lab.cairn(&["run", "slow.rhai", "-i", "lab.toml"]).fails(1);
    failed.stdout_has("is below 86.40 GB/s (90% of the 96.00 GB/s the NICs should carry)");
}

#[test]
fn the_pair_matrix_names_the_node_without_gpudirect() {
    let lab = Lab::new();
    lab.write("lab.toml", LAB);
    let job = runbook("[\"gpu01\", \"gpu02\", \"gpu03\"]").replace(
        "let r = fabric::nccl_all_reduce(",
        "let r = fabric::nccl_pairs(",
    );
    let job = job.replace(
        "log(`busbw ${r.verdict.busbw_gbytes_sec} of ${r.verdict.expected_gbytes_sec}`);\n    expect(r.ok, `${r.verdict.failures}`);",
        "expect(r.ok, `bad pairs ${r.bad}; suspects ${r.suspects}`);",
    );
    lab.write("pairs.rhai", &job);
    let failed = lab.cairn(&["run", "pairs.rhai", "-i", "lab.toml"]).fails(1);
    failed.stdout_has("suspects [\"gpu03\"]");
}
