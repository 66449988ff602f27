//! The commands `ofed::` runs: argument arrays, never shell strings.

/// `ofed_info -s`.
pub(crate) const INFO: &[&str] = &["ofed_info", "-s"];

/// The openibd script of MLNX_OFED.
pub(crate) const OPENIBD: &str = "/etc/init.d/openibd";

/// A tarball's name and the version it installs: `.../MLNX_OFED_LINUX-5.4-3.0.3.0-rhel8.1-x86_64.tgz`
/// gives the folder `MLNX_OFED_LINUX-5.4-3.0.3.0-rhel8.1-x86_64` and the version `5.4-3.0.3.0`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Tarball {
    /// The folder the tarball unpacks to.
    pub(crate) folder: String,
    /// The OFED version.
    pub(crate) version: String,
}

impl Tarball {
    /// Reads a tarball's path; `None` unless it is a `MLNX_OFED_LINUX-<a>-<b>-...tgz` file.
    pub(crate) fn from_path(path: &str) -> Option<Self> {
        let name = path.rsplit('/').next()?;
        let folder = name
            .strip_suffix(".tgz")
            .or_else(|| name.strip_suffix(".tar.gz"))?;
        let rest = folder.strip_prefix("MLNX_OFED_LINUX-")?;
        let mut parts = rest.split('-');
        let major = parts.next()?;
        let minor = parts.next()?;
        let numeric = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_digit() || c == '.');
        (numeric(major) && numeric(minor)).then(|| Self {
            folder: folder.to_owned(),
            version: format!("{major}-{minor}"),
        })
    }
}

/// `tar xf TARBALL -C DIR`.
pub(crate) fn unpack(tarball: &str, dir: &str) -> Vec<String> {
    ["tar", "xf", tarball, "-C", dir]
        .map(str::to_owned)
        .to_vec()
}

/// `dnf install -y PACKAGES...`.
pub(crate) fn dnf_install(packages: &[String]) -> Vec<String> {
    let mut argv: Vec<String> = ["dnf", "install", "-y"].map(str::to_owned).to_vec();
    argv.extend(packages.iter().cloned());
    argv
}

/// `DIR/FOLDER/mlnxofedinstall [--force] [--without-fw-update]`. The installer burns the
/// adapters' firmware unless told not to (its `--without-fw-update`; NVIDIA's MLNX_OFED user
/// manual, "Installation Procedure": the firmware is updated when the script runs in default
/// mode and the adapter's firmware is older than the bundle's); cairn leaves firmware to the
/// firmware step, so the flag is passed unless `firmware_update` asks otherwise.
pub(crate) fn mlnxofedinstall(
    dir: &str,
    folder: &str,
    force: bool,
    firmware_update: bool,
) -> Vec<String> {
    let mut argv = vec![format!(
        "{}/{folder}/mlnxofedinstall",
        dir.trim_end_matches('/')
    )];
    if force {
        argv.push("--force".into());
    }
    if !firmware_update {
        argv.push("--without-fw-update".into());
    }
    argv
}

/// The distribution packages MLNX_OFED needs, from `/etc/os-release`: `kernel-modules-extra`
/// on RHEL, `tk` on CentOS (VMware's guide, section 2.4).
pub(crate) fn prerequisites(os_release: &str) -> Vec<String> {
    let id = os_release
        .lines()
        .find_map(|l| l.strip_prefix("ID="))
        .map(|v| v.trim().trim_matches('"').to_owned())
        .unwrap_or_default();
    match id.as_str() {
        "centos" => vec!["tk".into()],
        "rhel" => vec!["kernel-modules-extra".into()],
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tarball_names() {
        let t = Tarball::from_path("/nfs/MLNX_OFED_LINUX-5.4-3.0.3.0-rhel8.1-x86_64.tgz");
        assert_eq!(
            t,
            Some(Tarball {
                folder: "MLNX_OFED_LINUX-5.4-3.0.3.0-rhel8.1-x86_64".into(),
                version: "5.4-3.0.3.0".into()
            })
        );
        assert_eq!(Tarball::from_path("ofed.tgz"), None);
        assert_eq!(Tarball::from_path("MLNX_OFED_LINUX-x-y.tgz"), None);
    }

    #[test]
    fn prerequisites_by_distribution() {
        assert_eq!(
            prerequisites("NAME=x\nID=\"rhel\"\n"),
            vec!["kernel-modules-extra"]
        );
        assert_eq!(prerequisites("ID=\"centos\"\n"), vec!["tk"]);
        assert!(prerequisites("ID=ubuntu\n").is_empty());
        assert_eq!(
            mlnxofedinstall("/tmp/", "M", true, false),
            vec!["/tmp/M/mlnxofedinstall", "--force", "--without-fw-update"]
        );
    }
}
