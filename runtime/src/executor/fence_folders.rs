//! One fence folder under two host names, refused before any host acts. The fence serialises
//! cairn's actions per folder and keeps one epoch per folder, so two inventory hosts whose
//! folders are one (two names of one machine, or a folder on a file system both see) would
//! fence each other: the second one's claim raises the epoch above the first's, which then
//! stops with `fenced` by its own run. Every fenced host's folder is checked first, the hosts
//! in parallel; the fence answers its folder's id (`DIR/id`), and hosts that share one are
//! refused together, each naming the others and the folder.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use crate::{RunShared, Transport, TransportError};

/// A host's transport as the run shares it.
type Shared = Arc<Mutex<Box<dyn Transport>>>;

/// Checks the fence folder of each of `hosts` (the fenced ones: their lease gives the fence an
/// epoch), `forks` at a time, and refuses in `shared` every host whose folder another one has.
/// A host whose check fails is left to its own first action, which refuses it as before.
pub(super) fn refuse_shared_folders(shared: &RunShared, hosts: &[String]) {
    let transports: Vec<(&String, &Shared)> = hosts
        .iter()
        .filter_map(|host| shared.transports.get(host).map(|t| (host, t)))
        .collect();
    if transports.len() < 2 {
        return;
    }
    let workers = shared.options.forks.clamp(1, transports.len());
    let next = Mutex::new(transports.iter());
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                while let Some((_, transport)) = next.lock().ok().and_then(|mut it| it.next()) {
                    let mut held = transport
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner);
                    let _ = held.prepare(true);
                }
            });
        }
    });
    let mut by_id: BTreeMap<String, Vec<(&String, String)>> = BTreeMap::new();
    for (host, transport) in &transports {
        let held = transport
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(folder) = held.fence_folder() {
            by_id
                .entry(folder.id)
                .or_default()
                .push((*host, folder.dir));
        }
    }
    for (id, sharing) in by_id.into_iter().filter(|(_, hosts)| hosts.len() > 1) {
        for (host, dir) in &sharing {
            // Another host may reach the folder by another path (a mount, a link).
            let others: Vec<String> = sharing
                .iter()
                .filter(|(other, _)| other != host)
                .map(|(other, other_dir)| match other_dir == dir {
                    true => (*other).clone(),
                    false => format!("{other} (as {other_dir})"),
                })
                .collect();
            shared.refuse_before_first_action(host, shared_folder(host, dir, &others, &id));
        }
    }
}

/// The refusal of `host`, whose fence folder `dir` (with id `id`) is also `others'`.
fn shared_folder(host: &str, dir: &str, others: &[String], id: &str) -> TransportError {
    TransportError::Refused {
        host: host.to_owned(),
        reason: format!(
            "its fence folder {dir} is also the one of {} (the folder's id {id}): one machine under two names, or a folder on a file system both see; their fences would stop each other, so none of them is acted on",
            others.join(", ")
        ),
        help: Some(
            "list the machine once in the inventory, or give each host a folder of its own with the host var `fence_dir`".into(),
        ),
    }
}
