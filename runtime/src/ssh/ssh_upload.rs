//! Upload over SFTP, skipped when the host already has the same bytes (SHA-256).

use std::io::{Read, Write};
use std::path::Path;

use sha2::{Digest, Sha256};
use ssh2::{OpenFlags, OpenType, RenameFlags, Session};

use super::SshError;
use crate::TransportError;

/// Copies `local` to `remote` (absolute), through a temporary file renamed over it, unless the
/// host's copy has the same SHA-256: `remote_sum` when the host could compute it, else by
/// reading it back over SFTP when the sizes agree.
pub(crate) fn upload(
    session: &Session,
    local: &Path,
    remote: &str,
    remote_sum: Option<&str>,
) -> Result<bool, TransportError> {
    if !remote.starts_with('/') {
        return Err(SshError::Invalid(format!(
            "upload to `{remote}`: the remote path must be absolute"
        ))
        .into_transport());
    }
    let io = |context: String| move |source| TransportError::Io { context, source };
    let (local_sum, size) = sha256_of(
        std::fs::File::open(local)
            .map_err(io(format!("cannot open `{}` to upload", local.display())))?,
    )
    .map_err(io(format!("cannot read `{}`", local.display())))?;
    let dropped = |e: ssh2::Error| TransportError::Unreachable {
        host: String::new(),
        reason: format!("SFTP: {e}"),
    };
    let sftp = session.sftp().map_err(dropped)?;
    let remote_path = Path::new(remote);
    let same = match remote_sum {
        Some(sum) => sum == local_sum,
        None => match sftp.stat(remote_path) {
            Ok(stat) if stat.size == Some(size) => sftp
                .open(remote_path)
                .ok()
                .and_then(|file| sha256_of(file).ok())
                .is_some_and(|(sum, _)| sum == local_sum),
            _ => false,
        },
    };
    if same {
        return Ok(false);
    }
    let temporary = format!("{remote}.cairn-upload");
    let sftp_error = |what: &str| {
        let context = format!("cannot {what} `{remote}` over SFTP");
        move |e: ssh2::Error| TransportError::Io {
            context,
            source: e.into(),
        }
    };
    let mut source = std::fs::File::open(local)
        .map_err(io(format!("cannot open `{}` to upload", local.display())))?;
    let mut target = sftp
        .open_mode(
            Path::new(&temporary),
            OpenFlags::WRITE | OpenFlags::CREATE | OpenFlags::TRUNCATE,
            0o644,
            OpenType::File,
        )
        .map_err(sftp_error("create"))?;
    std::io::copy(&mut source, &mut target)
        .and_then(|_| target.flush())
        .map_err(io(format!("cannot write `{temporary}` over SFTP")))?;
    drop(target);
    let _ = sftp.unlink(remote_path);
    sftp.rename(
        Path::new(&temporary),
        remote_path,
        Some(RenameFlags::OVERWRITE | RenameFlags::ATOMIC | RenameFlags::NATIVE),
    )
    .map_err(sftp_error("replace"))?;
    Ok(true)
}

/// The lowercase hex SHA-256 and the size of everything `reader` gives.
fn sha256_of(mut reader: impl Read) -> std::io::Result<(String, u64)> {
    let mut hasher = Sha256::new();
    let mut buffer = vec![0_u8; 64 * 1024];
    let mut size = 0_u64;
    loop {
        let n = reader.read(&mut buffer)?;
        if n == 0 {
            break;
        }
        hasher.update(buffer.get(..n).unwrap_or_default());
        size += n as u64;
    }
    let hex = hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    Ok((hex, size))
}
