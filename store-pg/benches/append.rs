//! Append latency: a fenced append to the PostgreSQL store (its own transaction, over a Unix
//! socket to a scratch server on this machine) against a durable append to a folder journal
//! (write + fdatasync), the same intent record each time. `cargo bench -p cairn-store-pg`;
//! `CAIRN_BENCH_APPENDS` sets the count (default 2000).

use std::time::{Duration, Instant};

use cairn_runtime::journal::{JournalEvent, JournalWriter};
use cairn_store_pg::scratch_server::ScratchServer;
use cairn_store_pg::{HostTake, PgStore};

/// An intent as docs/journal.md shows one.
const INTENT: &str = r#"{"type":"intent","data":{"args":{"argv":["mst","start"]},"at":1796015702011,"builtin":"run","column":5,"file":"/lab/book.rhai","line":12,"ordinal":1,"reconcile":"ask","seq":1,"stage":"install firmware tools","stage_index":1}}"#;

fn main() {
    let appends: usize = std::env::var("CAIRN_BENCH_APPENDS")
        .ok()
        .and_then(|count| count.parse().ok())
        .unwrap_or(2000)
        .max(1000);
    let event: JournalEvent = serde_json::from_str(INTENT).expect("the documented intent parses");
    let line = serde_json::to_string(&event).expect("an intent encodes");

    let temp = tempfile::tempdir().expect("a temporary folder");
    let mut writer = JournalWriter::open(&temp.path().join("esx01.jsonl")).expect("a journal");
    let folder = measure(appends, || {
        writer.append(&event, true).expect("a folder append")
    });

    let Some(server) = ScratchServer::start_or_skip("the fenced append benchmark") else {
        print_table(appends, &folder, None);
        return;
    };
    let url = server.new_database();
    let mut store = PgStore::connect(&url).expect("the scratch store");
    let session = store
        .open_session(
            "bench",
            std::process::id(),
            Duration::from_secs(600),
            Duration::from_secs(60),
        )
        .expect("a session");
    let holder = cairn_runtime::lease::Holder::this_process("bench", temp.path());
    let HostTake::Free { epoch } = store
        .take_host(&session, "esx01", &holder)
        .expect("a lease")
    else {
        panic!("a new store's host is free")
    };
    let fenced = measure(appends, || {
        store
            .append(&session, "bench", "esx01", epoch, line.as_bytes())
            .expect("a fenced append");
    });
    print_table(appends, &folder, Some(&fenced));
}

fn measure(count: usize, mut once: impl FnMut()) -> Vec<Duration> {
    for _ in 0..count / 10 {
        once(); // warm-up
    }
    let mut times: Vec<Duration> = (0..count)
        .map(|_| {
            let started = Instant::now();
            once();
            started.elapsed()
        })
        .collect();
    times.sort();
    times
}

fn percentile(sorted: &[Duration], part: f64) -> f64 {
    let index = ((sorted.len() as f64 - 1.0) * part).round() as usize;
    sorted[index].as_secs_f64() * 1000.0
}

fn print_table(count: usize, folder: &[Duration], fenced: Option<&[Duration]>) {
    println!("append latency, {count} appends each (ms)");
    println!("{:<44} {:>8} {:>8} {:>8}", "store", "p50", "p99", "max");
    let row = |name: &str, times: &[Duration]| {
        println!(
            "{name:<44} {:>8.3} {:>8.3} {:>8.3}",
            percentile(times, 0.5),
            percentile(times, 0.99),
            percentile(times, 1.0)
        );
    };
    row("folder journal (write + fdatasync)", folder);
    match fenced {
        Some(fenced) => row("postgres fenced append (unix socket, commit)", fenced),
        None => println!("postgres fenced append: SKIPPED (no PostgreSQL)"),
    }
}
