//! Which client a simulated perftest server was served by: a note beside the hosts' folders,
//! so the server finds its text in that client's state first.

use cairn_runtime::sim::SimContext;

/// Where a client notes which host it is for the server `key` (`server:pid`) it talked to: a
/// file `<sim root>/.served/<server>` holding the key and the client's name, beside the hosts'
/// directories and in none of them (a client never writes its peer's state). One file a server
/// host, overwritten in place and never removed: a note created and deleted for each test made
/// the file system's inode allocation the cost of a fabric's matrix. Only a shortcut: the text
/// itself is in the client's state, and without the note (or with one for another server) the
/// server looks through every peer's, as many reads as there are hosts.
pub(super) fn served_note(host: &SimContext<'_>, key: &str) -> Option<std::path::PathBuf> {
    let server = key.split_once(':').map_or(key, |(server, _)| server);
    crate::machine::guest::sim_root(host).map(|root| root.join(".served").join(server))
}

/// Notes that this host talked to the server `key` (see [`served_note`]).
pub(super) fn note_served(host: &SimContext<'_>, key: &str) {
    use std::io::Write;
    use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
    let Some(path) = served_note(host, key) else {
        return;
    };
    // Private like the hosts' own folders and files.
    let written = path
        .parent()
        .map_or(Ok(()), |dir| {
            std::fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(dir)
        })
        .and_then(|()| {
            std::fs::OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(false)
                .mode(0o600)
                .open(&path)
        })
        .and_then(|mut file| {
            let note = format!("{key} {}\n", host.host_name());
            file.write_all(note.as_bytes())?;
            file.set_len(note.len() as u64)
        });
    // A note that cannot be written costs the server a longer search, nothing else.
    let _ = written;
}
