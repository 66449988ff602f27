//! What a command needs to know about packs here: the packs folder, the trusted keys (the keys
//! folder and `[packs] trusted_keys` of the user's and the project's `cairn.toml`), the
//! project's version constraints and its lock, and so the packs a recipe name is looked up in.

use std::path::{Path, PathBuf};

use crate::{Installed, KeyError, Lock, Pack, PackError, PacksHome, PacksSection, TrustedKey};

/// The packs setting of one place.
#[derive(Debug, Clone)]
pub struct Context {
    /// The trusted keys.
    pub keys: Vec<TrustedKey>,
    /// The project's `cairn.toml`, if there is one.
    pub project: Option<PathBuf>,
    /// The project's `[packs]` (its constraints apply; the user file adds keys only).
    pub section: PacksSection,
    /// The packs home, when one can be named.
    pub home: Option<PacksHome>,
}

impl Context {
    /// Reads the `[packs]` of the user's config file and the project's, and the keys folder.
    pub fn load(
        project: Option<PathBuf>,
        user: Option<PathBuf>,
        home: Option<PacksHome>,
    ) -> Result<Self, PackError> {
        let mut keys = Vec::new();
        let mut section = PacksSection::default();
        for (file, is_project) in [(user, false), (project.clone(), true)] {
            let Some(file) = file.filter(|f| f.is_file()) else {
                continue;
            };
            let text = std::fs::read_to_string(&file).map_err(|e| PackError::Other {
                help: None,
                message: format!("{}: {e}", file.display()),
            })?;
            let read = PacksSection::parse(&file, &text)?;
            let from = format!("{} [packs] trusted_keys", file.display());
            for key in &read.trusted_keys {
                keys.push(TrustedKey::parse(key, &from)?);
            }
            if is_project {
                section = read;
            }
        }
        if let Some(home) = &home {
            keys.extend(TrustedKey::read_dir(&home.keys())?);
        }
        Ok(Self {
            keys,
            project,
            section,
            home,
        })
    }

    /// Every installed version; none without a packs folder.
    pub fn installed(&self) -> Result<Vec<Installed>, PackError> {
        self.home
            .as_ref()
            .map_or(Ok(Vec::new()), PacksHome::installed)
    }

    /// The project's lock, if it has one.
    pub fn lock(&self) -> Result<Option<Lock>, PackError> {
        self.project
            .as_deref()
            .map_or(Ok(None), |project: &Path| Lock::read(project))
    }

    /// The packs a recipe name is looked up in: the built-in ones, then the installed ones a
    /// run sees (`project::visible`), each verified again first (`verify_installed`: a byte
    /// changed since its install is refused naming the file, lock or not).
    pub fn packs(&self) -> Result<Vec<Pack>, PackError> {
        let mut packs = Pack::builtin()?;
        let lock = self.lock()?;
        for installed in
            crate::project::visible(self.installed()?, lock.as_ref(), &self.section.require)?
        {
            crate::verify_installed(&installed, &self.keys)?;
            packs.push(installed.pack);
        }
        Ok(packs)
    }
}

impl From<KeyError> for PackError {
    fn from(error: KeyError) -> Self {
        Self::Key(error)
    }
}
