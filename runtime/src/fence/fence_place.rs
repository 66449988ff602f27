//! Where a host keeps its fence: somewhere its reboot keeps.

/// The fence folder of a host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FencePlace {
    dir: String,
}

/// A fence folder or word that cannot be used.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum FencePlaceError {
    /// ESXi's own file system is a RAM disk, rebuilt at boot: a fence there forgets its epoch.
    #[error("`{0}` is on ESXi's in-memory file system: the fence would forget its epoch at reboot")]
    #[diagnostic(
        code(cairn::fence::volatile),
        help(
            "name a datastore in the inventory; the fence is kept under /vmfs/volumes/DATASTORE/cairn-fence"
        )
    )]
    Volatile(String),
    /// Not an absolute path.
    #[error("the fence folder `{0}` is not an absolute path")]
    #[diagnostic(code(cairn::fence::relative))]
    Relative(String),
    /// A datastore name that is not one folder name.
    #[error("`{0}` is not a datastore name")]
    #[diagnostic(
        code(cairn::fence::datastore),
        help("give the name as `esxcli storage filesystem list` shows it, e.g. datastore1")
    )]
    Datastore(String),
    /// A word the script keeps in a file name or a line.
    #[error("the fence's {what} `{word}` may hold only letters, digits and ._:@-")]
    #[diagnostic(code(cairn::fence::word))]
    Word {
        /// Which word.
        what: &'static str,
        /// The word.
        word: String,
    },
    /// A NUL byte cannot be passed to a shell.
    #[error("a fenced command cannot hold a NUL byte")]
    #[diagnostic(code(cairn::fence::nul))]
    Nul,
}

impl FencePlace {
    /// A Linux host's: under `/var/lib/cairn` (the FHS place for a program's persistent state).
    pub fn linux() -> Self {
        Self {
            dir: "/var/lib/cairn/fence".into(),
        }
    }

    /// An ESXi host's: on the datastore `datastore`, since ESXi's own file system is in memory
    /// (VMware, "ESXi System Storage", vSphere 7.0 and 8.0 installation guides: without
    /// persistent storage "logs and system data will be lost on reboot").
    pub fn esxi(datastore: &str) -> Result<Self, FencePlaceError> {
        if datastore.is_empty() || datastore.contains('/') || datastore == "." || datastore == ".."
        {
            return Err(FencePlaceError::Datastore(datastore.to_owned()));
        }
        Self::esxi_dir(&format!("/vmfs/volumes/{datastore}/cairn-fence"))
    }

    /// An ESXi host's, at `dir`, refused unless it is on a datastore (`/vmfs/volumes/DS/...`).
    pub fn esxi_dir(dir: &str) -> Result<Self, FencePlaceError> {
        let on_datastore = dir
            .strip_prefix("/vmfs/volumes/")
            .and_then(|rest| rest.split_once('/'))
            .is_some_and(|(datastore, below)| !datastore.is_empty() && !below.is_empty());
        if !on_datastore || dir.split('/').any(|part| part == "..") {
            return Err(FencePlaceError::Volatile(dir.to_owned()));
        }
        Ok(Self {
            dir: dir.to_owned(),
        })
    }

    /// Any absolute folder (the simulator's and the tests').
    pub fn at(dir: &str) -> Result<Self, FencePlaceError> {
        if !dir.starts_with('/') {
            return Err(FencePlaceError::Relative(dir.to_owned()));
        }
        Ok(Self {
            dir: dir.to_owned(),
        })
    }

    /// The folder.
    pub fn dir(&self) -> &str {
        &self.dir
    }
}

/// The script's rule for a word it keeps in a file name or a line.
pub(super) fn check_word(what: &'static str, word: &str) -> Result<(), FencePlaceError> {
    let fine = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "._:@-".contains(c));
    if fine {
        Ok(())
    } else {
        Err(FencePlaceError::Word {
            what,
            word: word.to_owned(),
        })
    }
}
