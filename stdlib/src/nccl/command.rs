//! The command line that launches an nccl-tests binary across nodes, as the field's guides run
//! it: `mpirun -np RANKS -H node1:GPUS,node2:GPUS -x NCCL_... PATH/all_reduce_perf -b 8 -e 8G -f
//! 2 -g 1` (one rank a GPU, `-g 1`: nccl-tests' README, "Running multi-node"; Open MPI's `-x
//! VAR=value` exports a variable to every rank and `-H host:slots` places them), or, where the
//! nodes are a Slurm allocation, `env NCCL_... srun -N NODES --ntasks-per-node=GPUS
//! --nodelist=... --mpi=pmix --export=ALL` (Slurm's srun(1)).
//!
//! The environment: `NCCL_IB_HCA` names the RDMA devices the test may use (NCCL's environment
//! variables: `=` for exact names); `NCCL_IB_GID_INDEX` the RoCE v2 IPv4 GID looked up on every
//! node (never a fixed number; left unset on InfiniBand); `NCCL_ALGO=Ring` on two nodes, where
//! NCCL's other algorithms give figures beyond what the NICs carry (NVIDIA/nccl-tests#169);
//! `NCCL_DEBUG=WARN`, so NCCL's own warnings reach the parser.

/// How the ranks are started.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Launcher {
    Mpirun,
    Srun,
}

/// One launch across `nodes`, checked.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub(crate) struct NcclLaunch {
    pub(crate) launcher: Launcher,
    /// The folder holding the built binaries (`/opt/nccl-tests/build`).
    pub(crate) path: String,
    pub(crate) program: String,
    pub(crate) nodes: Vec<String>,
    pub(crate) gpus_per_node: u32,
    /// The RDMA devices (`NCCL_IB_HCA`).
    pub(crate) hcas: Vec<String>,
    /// `NCCL_IB_GID_INDEX`; `None` on InfiniBand.
    pub(crate) gid_index: Option<u32>,
    /// `-b` and `-e`, as nccl-tests reads them (`8`, `8G`).
    pub(crate) min_bytes: String,
    pub(crate) max_bytes: String,
}

impl NcclLaunch {
    /// The variables every rank gets.
    fn environment(&self) -> Vec<String> {
        let mut vars = vec![format!("NCCL_IB_HCA=={}", self.hcas.join(",="))];
        if let Some(index) = self.gid_index {
            vars.push(format!("NCCL_IB_GID_INDEX={index}"));
        }
        if self.nodes.len() == 2 {
            vars.push("NCCL_ALGO=Ring".into());
        }
        vars.push("NCCL_DEBUG=WARN".into());
        vars
    }

    /// The whole command line, run on the first node.
    pub(crate) fn argv(&self) -> Vec<String> {
        let ranks = self.nodes.len() * usize::try_from(self.gpus_per_node).unwrap_or(0);
        let mut argv: Vec<String> = match self.launcher {
            Launcher::Mpirun => {
                let hosts: Vec<String> = self
                    .nodes
                    .iter()
                    .map(|node| format!("{node}:{}", self.gpus_per_node))
                    .collect();
                let mut argv = vec![
                    "mpirun".to_owned(),
                    "--allow-run-as-root".into(),
                    "-np".into(),
                    ranks.to_string(),
                    "-H".into(),
                    hosts.join(","),
                    "--bind-to".into(),
                    "none".into(),
                ];
                for var in self.environment() {
                    argv.push("-x".into());
                    argv.push(var);
                }
                argv
            }
            // srun's `--export` separates its variables by commas, which `NCCL_IB_HCA`'s value
            // holds: the variables are set in srun's own environment and `--export=ALL` (its
            // default, written out) gives them to every task.
            Launcher::Srun => {
                let mut argv = vec!["env".to_owned()];
                argv.extend(self.environment());
                argv.extend([
                    "srun".to_owned(),
                    "-N".into(),
                    self.nodes.len().to_string(),
                    format!("--ntasks-per-node={}", self.gpus_per_node),
                    format!("--nodelist={}", self.nodes.join(",")),
                    "--mpi=pmix".into(),
                    "--export=ALL".into(),
                ]);
                argv
            }
        };
        argv.push(format!(
            "{}/{}",
            self.path.trim_end_matches('/'),
            self.program
        ));
        argv.extend(
            [
                "-b",
                &self.min_bytes,
                "-e",
                &self.max_bytes,
                "-f",
                "2",
                "-g",
                "1",
            ]
            .map(str::to_owned),
        );
        argv
    }
}

#[cfg(test)]
mod tests {
    use super::{Launcher, NcclLaunch};

    fn launch(launcher: Launcher, nodes: &[&str], gid_index: Option<u32>) -> NcclLaunch {
        NcclLaunch {
            launcher,
            path: "/opt/nccl-tests/build/".into(),
            program: "all_reduce_perf".into(),
            nodes: nodes.iter().map(|n| (*n).to_owned()).collect(),
            gpus_per_node: 8,
            hcas: vec!["mlx5_0".into(), "mlx5_1".into()],
            gid_index,
            min_bytes: "8".into(),
            max_bytes: "8G".into(),
        }
    }

    #[test]
    fn two_nodes_over_mpirun_run_a_ring_with_the_looked_up_gid() {
        assert_eq!(
            launch(Launcher::Mpirun, &["gpu01", "gpu02"], Some(3))
                .argv()
                .join(" "),
            "mpirun --allow-run-as-root -np 16 -H gpu01:8,gpu02:8 --bind-to none \
             -x NCCL_IB_HCA==mlx5_0,=mlx5_1 -x NCCL_IB_GID_INDEX=3 -x NCCL_ALGO=Ring \
             -x NCCL_DEBUG=WARN /opt/nccl-tests/build/all_reduce_perf -b 8 -e 8G -f 2 -g 1"
        );
    }

    #[test]
    fn a_slurm_job_of_three_infiniband_nodes_leaves_the_algorithm_and_gid_to_nccl() {
        assert_eq!(
            launch(Launcher::Srun, &["gpu01", "gpu02", "gpu03"], None)
                .argv()
                .join(" "),
            "env NCCL_IB_HCA==mlx5_0,=mlx5_1 NCCL_DEBUG=WARN srun -N 3 --ntasks-per-node=8 \
             --nodelist=gpu01,gpu02,gpu03 --mpi=pmix --export=ALL \
             /opt/nccl-tests/build/all_reduce_perf -b 8 -e 8G -f 2 -g 1"
        );
    }
}
