//! The packs home: installed packs, each version in its own folder, side by side and never
//! changed after (Ansible keeps one installed version of a collection; cairn keeps every one a
//! lock file may pin), and the trusted keys. It is `$CAIRN_HOME` if set, else
//! `$XDG_DATA_HOME/cairn`, else `~/.local/share/cairn` (the XDG Base Directory default):
//!
//! ```text
//! HOME/keys/*.pub                         trusted minisign keys
//! HOME/packs/NS/NAME/VERSION/             the pack's files, FILES and FILES.minisig, read-only
//! HOME/packs/NS/NAME/VERSION.toml         where it was installed from, its content id, signer
//! ```

use std::path::{Path, PathBuf};

use semver::Version;
use serde::{Deserialize, Serialize};

use crate::{FILES, Origin, Pack, PackError, SIGNATURE, Signer};

/// The packs home, which holds the packs folder and the keys folder.
#[derive(Debug, Clone)]
pub struct PacksHome {
    /// Its folder.
    pub dir: PathBuf,
}

/// What the packs home records beside an installed version.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InstallRecord {
    /// The content id of its files.
    pub content_id: String,
    /// The signer's key (the base64 line of its `minisign.pub`), or `unsigned`.
    pub signer: String,
    /// The archive or folder it was installed from.
    pub source: String,
}

/// An installed version.
#[derive(Debug, Clone)]
pub struct Installed {
    /// The pack, read from its folder.
    pub pack: Pack,
    /// Its record.
    pub record: InstallRecord,
}

/// What an install did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Written into this folder.
    Installed(PathBuf),
    /// The same files were installed already, in this folder.
    AlreadyThere(PathBuf),
}

fn failed(message: String) -> PackError {
    PackError::Other {
        help: None,
        message,
    }
}

impl PacksHome {
    /// `$CAIRN_HOME`, else `$XDG_DATA_HOME/cairn`, else `$HOME/.local/share/cairn`; none when
    /// no variable is set.
    pub fn locate() -> Option<Self> {
        let from = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
        let home = from("CAIRN_HOME")
            .map(PathBuf::from)
            .or_else(|| from("XDG_DATA_HOME").map(|d| PathBuf::from(d).join("cairn")))
            .or_else(|| from("HOME").map(|h| PathBuf::from(h).join(".local/share/cairn")))?;
        Some(Self { dir: home })
    }

    /// The packs folder.
    pub fn packs(&self) -> PathBuf {
        self.dir.join("packs")
    }

    /// The trusted keys folder.
    pub fn keys(&self) -> PathBuf {
        self.dir.join("keys")
    }

    fn version_dir(&self, name: &str, version: &Version) -> PathBuf {
        self.packs().join(name).join(version.to_string())
    }

    /// Stores `pack` (verified by the caller) as installed from `source`, signed by `signer`.
    /// A version already installed with other files is refused: a version's files never change.
    pub fn install(
        &self,
        pack: &Pack,
        source: &str,
        signer: Option<&Signer>,
    ) -> Result<Outcome, PackError> {
        let manifest = &pack.manifest;
        let target = self.version_dir(&manifest.name, &manifest.version);
        let record = InstallRecord {
            content_id: pack.content_id(),
            signer: signer.map_or_else(|| crate::UNSIGNED.to_owned(), |s| s.key.clone()),
            source: source.to_owned(),
        };
        if target.exists() {
            let there = Pack::read_dir(&target)?;
            if there.content_id() == record.content_id {
                return Ok(Outcome::AlreadyThere(target));
            }
            return Err(PackError::Other {
                help: Some(
                    "a version's files never change once installed: give the new files a new version".into(),
                ),
                message: format!(
                    "{} {} is installed already with content id {}, and this one is {}",
                    manifest.name,
                    manifest.version,
                    there.content_id(),
                    record.content_id
                ),
            });
        }
        let parent = target
            .parent()
            .ok_or_else(|| failed(format!("{}: no parent folder", target.display())))?;
        std::fs::create_dir_all(parent)
            .map_err(|e| failed(format!("cannot make {}: {e}", parent.display())))?;
        let partial = parent.join(format!(
            ".partial-{}-{}",
            manifest.version,
            std::process::id()
        ));
        let write = || -> std::io::Result<()> {
            let _ = std::fs::remove_dir_all(&partial);
            let mut entries: Vec<(&str, &[u8])> = pack
                .files
                .files
                .iter()
                .map(|(p, b)| (p.as_str(), b.as_slice()))
                .collect();
            let listed = pack.files.files_list();
            entries.push((FILES, listed.as_bytes()));
            if let Some(signature) = &pack.files.signature {
                entries.push((SIGNATURE, signature.as_bytes()));
            }
            for (path, bytes) in entries {
                let file = partial.join(path);
                if let Some(dir) = file.parent() {
                    std::fs::create_dir_all(dir)?;
                }
                std::fs::write(&file, bytes)?;
                read_only(&file)?;
            }
            let text = toml::to_string(&record).map_err(std::io::Error::other)?;
            std::fs::write(record_path(&target), text)?;
            std::fs::rename(&partial, &target)
        };
        write().map_err(|e| {
            let _ = std::fs::remove_dir_all(&partial);
            failed(format!("cannot install into {}: {e}", target.display()))
        })?;
        Ok(Outcome::Installed(target))
    }

    /// Every installed version, by name then version.
    pub fn installed(&self) -> Result<Vec<Installed>, PackError> {
        let mut found = Vec::new();
        for namespace in subfolders(&self.packs())? {
            for name in subfolders(&namespace)? {
                for version in subfolders(&name)? {
                    let files =
                        crate::FileSet::read_dir(&version).map_err(|e| failed(e.to_string()))?;
                    let pack = Pack::new(files, Origin::Installed(version.clone()))?;
                    let record_file = record_path(&version);
                    let text = std::fs::read_to_string(&record_file)
                        .map_err(|e| failed(format!("{}: {e}", record_file.display())))?;
                    let record = toml::from_str(&text)
                        .map_err(|e| failed(format!("{}: {e}", record_file.display())))?;
                    found.push(Installed { pack, record });
                }
            }
        }
        found.sort_by(|a, b| {
            let (a, b) = (&a.pack.manifest, &b.pack.manifest);
            (&a.name, &a.version).cmp(&(&b.name, &b.version))
        });
        Ok(found)
    }
}

/// `VERSION.toml` beside the folder `VERSION`.
fn record_path(version_dir: &Path) -> PathBuf {
    let name = version_dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    version_dir.with_file_name(format!("{name}.toml"))
}

/// The folders in `dir` whose names do not start with `.` (a partial install), sorted; none
/// when `dir` does not exist.
fn subfolders(dir: &Path) -> Result<Vec<PathBuf>, PackError> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(failed(format!("{}: {e}", dir.display()))),
    };
    let mut dirs: Vec<PathBuf> = entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
        .map(|e| e.path())
        .collect();
    dirs.sort();
    Ok(dirs)
}

#[cfg(unix)]
fn read_only(file: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(file, std::fs::Permissions::from_mode(0o444))
}

#[cfg(not(unix))]
fn read_only(file: &Path) -> std::io::Result<()> {
    let mut permissions = std::fs::metadata(file)?.permissions();
    permissions.set_readonly(true);
    std::fs::set_permissions(file, permissions)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::FileSet;

    fn pack(version: &str, body: &str) -> Pack {
        let manifest = format!(
            "name = \"acme/infra\"\nversion = \"{version}\"\ncairn = \"*\"\nsummary = \"s\"\nlicense = \"MIT\"\n[recipes.check]\nfile = \"check.rhai\"\n"
        );
        let files = FileSet::from_entries([
            ("cairn-pack.toml".to_owned(), manifest.into_bytes()),
            ("check.rhai".to_owned(), body.as_bytes().to_vec()),
        ]);
        Pack::new(files, Origin::Folder("/src".into())).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn versions_install_side_by_side_and_a_version_s_files_never_change() {
        let home = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let home = PacksHome {
            dir: home.path().to_path_buf(),
        };
        let v1 = pack("1.0.0", "log(1);\n");
        let installed = home.install(&v1, "/src", None);
        assert!(
            matches!(installed, Ok(Outcome::Installed(_))),
            "{installed:?}"
        );
        let again = home.install(&v1, "/src", None);
        assert!(matches!(again, Ok(Outcome::AlreadyThere(_))), "{again:?}");
        let changed = home.install(&pack("1.0.0", "log(2);\n"), "/src", None);
        assert!(
            changed.is_err_and(|e| e.to_string().contains("installed already with content id")),
        );
        let v2 = pack("2.0.0", "log(2);\n");
        assert!(home.install(&v2, "/src", None).is_ok());
        let all = home.installed().unwrap_or_else(|e| panic!("{e}"));
        let versions: Vec<String> = all
            .iter()
            .map(|i| i.pack.manifest.version.to_string())
            .collect();
        assert_eq!(versions, ["1.0.0", "2.0.0"]);
        assert_eq!(all[0].record.content_id, v1.content_id());
        assert_eq!(all[0].pack.content_id(), v1.content_id());
        assert_eq!(all[0].record.signer, "unsigned");
    }
}
