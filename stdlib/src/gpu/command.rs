//! The `gpu::` builtins' command lines (argv, never a shell line).

/// `nvidia-smi topo -m`: the GPU/NIC matrix.
pub(super) const TOPO: &[&str] = &["nvidia-smi", "topo", "-m"];

/// `cat FILE`: one sysfs file.
pub(super) fn cat(path: &str) -> Vec<String> {
    vec!["cat".to_owned(), path.to_owned()]
}
