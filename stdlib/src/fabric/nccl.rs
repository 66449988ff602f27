//! `fabric::nccl_all_reduce`: nccl-tests' `all_reduce_perf` across nodes, launched from the first
//! (`nccl::command`), its GID index looked up on every node (`perftest::gid`), its output parsed
//! and judged against what the NICs should carry (`nccl::verdict`).

use cairn_runtime::{
    ActionCall, ActionError, BuiltinOptions, ExecRequest, HostIo, OptionType, Outcome, Reconcile,
    RunShared,
};
use std::sync::Arc;

use rhai::{Array, Dynamic, Map, NativeCallContext};
use serde_json::{Value, json};

use crate::action::{self, RhaiResult, key};
use crate::grammar::show_gids::PortGid;
use crate::nccl::command::{Launcher, NcclLaunch};
use crate::nccl::verdict::{expected_busbw, judge};
use crate::perftest::gid::GidTables;

/// The keys of `fabric::nccl_all_reduce(nodes, #{...})`.
pub(crate) const NCCL_OPTIONS: BuiltinOptions = BuiltinOptions {
    builtin: "fabric::nccl_all_reduce",
    arg: 1,
    keys: &[
        key("gpus_per_node", OptionType::Int),
        key("hcas", OptionType::Array),
        key("launcher", OptionType::Text),
        key("max_bytes", OptionType::Text),
        key("min_bytes", OptionType::Text),
        key("min_fraction", OptionType::Any),
        key("nic_gbps", OptionType::Any),
        key("path", OptionType::Text),
    ],
};

/// How long a whole-job run may take before it is reported as timed out.
const TIMEOUT_SECS: u64 = 3600;

/// The builtin: checks the options, then one journaled measurement on the controller.
pub(crate) fn all_reduce(
    ctx: &NativeCallContext,
    nodes: Array,
    options: &Map,
) -> RhaiResult<Dynamic> {
    let (asked, shared, call) = asked(ctx, &NCCL_OPTIONS, nodes, options)?;
    action::act(ctx, call, |io| {
        if io.checking() {
            // A measurement changes nothing, but loads the fabric: check mode does not run it.
            return Ok(Outcome::unchanged(json!({ "checked": true })));
        }
        let tables = GidTables::default();
        let job = run_job(Some(io), &shared, &asked, &asked.launch.nodes, &tables)?;
        Ok(Outcome::unchanged(job))
    })
}

/// A call's options checked against `declared` and read, the run, and its journaled action
/// (named after `declared`'s builtin).
pub(super) fn asked(
    ctx: &NativeCallContext,
    declared: &BuiltinOptions,
    nodes: Array,
    options: &Map,
) -> RhaiResult<(Asked, Arc<RunShared>, ActionCall<'static>)> {
    action::check_options(ctx, declared, options)?;
    let options = action::options_json(options)?;
    let nodes: Vec<String> = nodes.into_iter().map(|n| n.to_string()).collect();
    let asked = Asked::read(&options, nodes).map_err(|m| action::bad_argument(ctx, m))?;
    let shared = cairn_runtime::HostContext::current(ctx)?.shared.clone();
    let call = ActionCall {
        args: json!({ "nodes": asked.launch.nodes, "options": options }),
        assumed: Value::Null,
        builtin: declared.builtin.into(),
        reconcile: Reconcile::Redo,
    };
    Ok((asked, shared, call))
}

/// One job on `nodes`: the GID looked up, launched from the first node, parsed and judged.
pub(super) fn run_job(
    io: Option<&mut HostIo<'_>>,
    shared: &RunShared,
    asked: &Asked,
    nodes: &[String],
    tables: &GidTables,
) -> Result<Value, ActionError> {
    let mut io = io;
    let mut launch = asked.launch.clone();
    launch.nodes = nodes.to_vec();
    launch.gid_index = gid_index(io.as_deref_mut(), shared, &launch, tables)?;
    let argv = launch.argv();
    let mut request = ExecRequest::new(argv.iter().cloned());
    request.timeout = Some(std::time::Duration::from_secs(TIMEOUT_SECS));
    let launcher = &launch.nodes[0];
    let output = crate::pair::exec_on(io, shared, launcher, &request)?;
    if output.code == 127 {
        return Err(ActionError::NotInstalled {
            program: argv[0].clone(),
            host: launcher.clone(),
            install: "install Open MPI (mpirun) or run in a Slurm allocation (srun), and build \
                      nccl-tests with MPI=1"
                .into(),
        });
    }
    let command = format!("{} (on {launcher})", argv.join(" "));
    // A launch that failed before any rank printed (ssh could not reach a node) is the
    // launcher's failure; a rank's own failure is the test's, in its output.
    let run = match action::parsed(command.as_str(), &output.stdout, crate::nccl::parse) {
        Ok(run) => run,
        Err(_) if output.code != 0 => {
            return Err(ActionError::CommandFailed {
                code: output.code,
                command,
                stderr: output.stderr,
            });
        }
        Err(unread) => return Err(unread),
    };
    let expected = expected_busbw(launch.hcas.len(), asked.nic_gbps);
    let verdict = judge(&run, expected, asked.min_fraction);
    Ok(json!({ "command": command, "ok": verdict.ok, "verdict": verdict, "run": run }))
}

/// The options, read.
pub(super) struct Asked {
    pub(super) launch: NcclLaunch,
    nic_gbps: f64,
    min_fraction: f64,
}

impl Asked {
    pub(super) fn read(options: &Value, nodes: Vec<String>) -> Result<Self, String> {
        let required = |k: &str| format!("`{k}` is required");
        if nodes.len() < 2 {
            return Err(format!(
                "an NCCL job across nodes needs two or more, not {}",
                nodes.len()
            ));
        }
        let launcher = match action::text(options, "launcher").as_deref() {
            Some("mpirun") => Launcher::Mpirun,
            Some("srun") => Launcher::Srun,
            Some(other) => return Err(format!("`launcher` is `mpirun` or `srun`, not `{other}`")),
            None => return Err(required("launcher")),
        };
        let path = action::text(options, "path").ok_or_else(|| required("path"))?;
        let gpus =
            action::int(options, "gpus_per_node").ok_or_else(|| required("gpus_per_node"))?;
        let gpus_per_node = u32::try_from(gpus)
            .ok()
            .filter(|g| (1..=64).contains(g))
            .ok_or_else(|| format!("`gpus_per_node` {gpus} is not in 1..=64"))?;
        let hcas: Vec<String> = options
            .get("hcas")
            .and_then(Value::as_array)
            .ok_or_else(|| required("hcas"))?
            .iter()
            .map(|h| h.as_str().map(str::to_owned))
            .collect::<Option<_>>()
            .ok_or("`hcas` must be RDMA device names")?;
        if hcas.is_empty() || !hcas.iter().all(|h| action::valid_device(h)) {
            return Err(format!("`hcas` must be RDMA device names, not {hcas:?}"));
        }
        let positive = |k: &str| -> Result<f64, String> {
            options
                .get(k)
                .and_then(Value::as_f64)
                .filter(|v| *v > 0.0)
                .ok_or_else(|| format!("`{k}` is required, a number above 0"))
        };
        let min_fraction = positive("min_fraction")?;
        if min_fraction > 1.0 {
            return Err(format!("`min_fraction` {min_fraction} is not in (0, 1]"));
        }
        Ok(Self {
            launch: NcclLaunch {
                launcher,
                path,
                program: "all_reduce_perf".into(),
                nodes,
                gpus_per_node,
                hcas,
                gid_index: None,
                min_bytes: size(options, "min_bytes", "8")?,
                max_bytes: size(options, "max_bytes", "8G")?,
            },
            nic_gbps: positive("nic_gbps")?,
            min_fraction,
        })
    }
}

/// A size nccl-tests reads (`-b`, `-e`): digits with an optional `K`, `M` or `G`; `default`, the
/// guides' sizes, when not given.
fn size(options: &Value, key: &str, default: &str) -> Result<String, String> {
    let size = action::text(options, key).unwrap_or_else(|| default.to_owned());
    let digits = size.trim_end_matches(['K', 'M', 'G']);
    if digits.is_empty()
        || !digits.bytes().all(|b| b.is_ascii_digit())
        || size.len() - digits.len() > 1
    {
        return Err(format!(
            "`{key}` `{size}` is not a size (digits, then K, M or G: `8`, `8G`)"
        ));
    }
    Ok(size)
}

/// `NCCL_IB_GID_INDEX`: the RoCE v2 IPv4 GID of every HCA on every node, which must be one
/// index (NCCL takes one); `None` on InfiniBand. A node without `show_gids` cannot be checked:
/// refused on RoCE, where its index would be a guess.
fn gid_index(
    mut io: Option<&mut HostIo<'_>>,
    shared: &RunShared,
    launch: &NcclLaunch,
    tables: &GidTables,
) -> Result<Option<u32>, ActionError> {
    let mut found: Vec<(String, String, Option<PortGid>)> = Vec::new();
    for node in &launch.nodes {
        for hca in &launch.hcas {
            found.push((
                node.clone(),
                hca.clone(),
                tables.node(io.as_deref_mut(), shared, node, hca)?,
            ));
        }
    }
    let roce: Vec<(&str, &str, u32)> = found
        .iter()
        .filter_map(|(n, h, g)| match g {
            Some(PortGid::RoceV2 { index, .. }) => Some((n.as_str(), h.as_str(), *index)),
            _ => None,
        })
        .collect();
    let Some((first_node, first_hca, first)) = roce.first().copied() else {
        return Ok(None);
    };
    if let Some((node, _, _)) = found.iter().find(|(_, _, g)| g.is_none()) {
        return Err(ActionError::Failed(format!(
            "cannot choose NCCL_IB_GID_INDEX: `show_gids` is not installed on `{node}` (it comes with MLNX_OFED and DOCA-OFED's mlnx-tools)"
        )));
    }
    if let Some((node, hca, other)) = roce.iter().find(|(_, _, i)| *i != first) {
        return Err(ActionError::Failed(format!(
            "NCCL_IB_GID_INDEX is one index for every device, but the RoCE v2 IPv4 GID is {first} on `{first_node}` {first_hca} and {other} on `{node}` {hca}"
        )));
    }
    Ok(Some(first))
}

#[cfg(test)]
mod tests {
    use crate::test_support::TestHost;

    const JOB: &str = r#"#{ launcher: "mpirun", path: "/opt/nccl-tests/build", gpus_per_node: 8,
        hcas: ["mlx5_0"], nic_gbps: 100, min_fraction: 0.9 }"#;

    #[test]
    fn a_job_is_refused_before_it_runs_for_what_its_options_lack() {
        let t = TestHost::guests(
            &[("g1", "ofed=5.4-3.0.3.0"), ("g2", "ofed=5.4-3.0.3.0")],
            "controller",
        )
        .build();
        let one = t.error(&format!(r#"fabric::nccl_all_reduce(["g1"], {JOB})"#));
        assert!(one.contains("needs two or more, not 1"), "{one}");
        let lacking = t.error(r#"fabric::nccl_all_reduce(["g1", "g2"], #{ launcher: "mpirun" })"#);
        assert!(lacking.contains("`path` is required"), "{lacking}");
        let size = t.error(&format!(
            r#"fabric::nccl_all_reduce(["g1", "g2"], {})"#,
            JOB.replace("min_fraction", "max_bytes: \"8GB\", min_fraction")
        ));
        assert!(size.contains("`max_bytes` `8GB` is not a size"), "{size}");
        let typo = t.error(&format!(
            r#"fabric::nccl_all_reduce(["g1", "g2"], {})"#,
            JOB.replace("nic_gbps", "nic_gpbs")
        ));
        assert!(typo.contains("nic_gpbs"), "{typo}");
        // A RoCE HCA without an address has no GID to give NCCL: refused, naming the table.
        let roce = t.error(&format!(
            r#"fabric::nccl_all_reduce(["g1", "g2"], {})"#,
            JOB.replace("mlx5_0", "mlx5_1")
        ));
        assert!(
            roce.contains("cannot choose the RoCE GID on `g1`: mlx5_1 port 1"),
            "{roce}"
        );
        // InfiniBand needs none; these guests have no GPU, which the test's own failure says.
        let failures = t.eval(&format!(
            r#"fabric::nccl_all_reduce(["g1", "g2"], {JOB}).verdict.failures"#
        ));
        assert_eq!(
            failures.to_string(),
            r#"["the test failed: g1: Test CUDA failure common.cu:892 'no CUDA-capable device is detected'"]"#
        );
    }
}
