//! The time to read a run and write its page, as both report benches measure it.

use std::path::Path;
use std::time::Instant;

use cairn_runtime::RunFolders;

/// Reads run `id` of `store` and writes its page to `out` three times: the seconds each took,
/// fastest first (so `[1]` is the median).
pub(crate) fn three_writes(store: &RunFolders, id: &str, out: &Path) -> [f64; 3] {
    let mut times = [0.0; 3];
    for time in &mut times {
        let start = Instant::now();
        let model = cairn_report::RunModel::load(store, Some(id)).expect("read the run");
        cairn_report::write(&model, out).expect("write the report");
        *time = start.elapsed().as_secs_f64();
    }
    times.sort_by(f64::total_cmp);
    times
}
