//! DOCA-OFED, NVIDIA's host driver that replaced MLNX_OFED: its repo package's name and the
//! commands that install it.
//!
//! DOCA-Host ships as a local repo package; the `doca-ofed` profile is then installed from it
//! with the distribution's package manager (NVIDIA DOCA-Host Installation and Upgrade guide):
//! `rpm -i doca-host-<ver>.rpm`, `dnf clean all`, `dnf -y install doca-ofed` on RHEL (as in
//! Oracle's "Installing DOCA OFED" for Oracle Linux 9.6), and `dpkg -i doca-host_<ver>.deb`,
//! `apt-get update`, `apt-get -y install doca-ofed mlnx-fw-updater` on Ubuntu (NVIDIA's DGX
//! Spark Aerial guide). `mlnx-fw-updater` burns the bundled firmware when it is newer, so it
//! is installed only when asked: firmware belongs to the firmware step.

/// How the repo package is installed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PackageKind {
    /// `.rpm`: `rpm -i`, then `dnf`.
    Rpm,
    /// `.deb`: `dpkg -i`, then `apt-get`.
    Deb,
}

/// A DOCA-Host repo package, read from its published file names:
/// `doca-host-2.10.0-093000_25.01_rhel95.x86_64.rpm` and
/// `doca-host_3.2.1-044000-25.10-ubuntu2404_arm64.deb`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DocaPackage {
    /// The file name without its folder and extension (what `rpm -q doca-host` prints).
    pub(crate) stem: String,
    /// The DOCA version (`2.10.0`).
    pub(crate) doca_version: String,
    /// The OFED release it carries (`25.01`): `ofed_info -s` prints `OFED-internal-25.01-...`.
    pub(crate) ofed_release: String,
    /// Whether it is an rpm or a deb.
    pub(crate) kind: PackageKind,
}

impl DocaPackage {
    /// Reads a package's path; `None` unless it is a DOCA-Host repo package named as NVIDIA
    /// publishes them.
    pub(crate) fn from_path(path: &str) -> Option<Self> {
        let name = path.rsplit('/').next()?;
        let dotted = |s: &str| {
            !s.is_empty()
                && s.split('.')
                    .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
        };
        if let Some(stem) = name.strip_suffix(".rpm") {
            // doca-host-<doca>-<build>_<ofed>_<distro>.<arch>
            let rest = stem.strip_prefix("doca-host-")?;
            let mut parts = rest.split('_');
            let (doca, build) = parts.next()?.split_once('-')?;
            let ofed = parts.next()?;
            let distro = parts.next()?;
            (dotted(doca) && dotted(build) && dotted(ofed) && distro.contains('.')).then(|| Self {
                stem: stem.to_owned(),
                doca_version: doca.to_owned(),
                ofed_release: ofed.to_owned(),
                kind: PackageKind::Rpm,
            })
        } else {
            // doca-host_<doca>-<build>-<ofed>-<distro>_<arch>
            let stem = name.strip_suffix(".deb")?;
            let (version, arch) = stem.strip_prefix("doca-host_")?.rsplit_once('_')?;
            let mut parts = version.split('-');
            let (doca, build, ofed) = (parts.next()?, parts.next()?, parts.next()?);
            let distro = parts.next()?;
            (dotted(doca)
                && dotted(build)
                && dotted(ofed)
                && !distro.is_empty()
                && !arch.is_empty())
            .then(|| Self {
                stem: stem.to_owned(),
                doca_version: doca.to_owned(),
                ofed_release: ofed.to_owned(),
                kind: PackageKind::Deb,
            })
        }
    }

    /// Whether `version` (from `ofed_info -s`, `25.01-0.6.0`) is this package's OFED release.
    pub(crate) fn carries(&self, version: &str) -> bool {
        version
            .strip_prefix(self.ofed_release.as_str())
            .is_some_and(|rest| rest.starts_with('-'))
    }

    /// `rpm -i FILE` or `dpkg -i FILE`: installs the local repo.
    pub(crate) fn add_repo(&self, path: &str) -> Vec<String> {
        let tool = match self.kind {
            PackageKind::Rpm => "rpm",
            PackageKind::Deb => "dpkg",
        };
        [tool, "-i", path].map(str::to_owned).to_vec()
    }

    /// `dnf clean all` or `apt-get update`: the package manager reads the new repo.
    pub(crate) fn refresh(&self) -> Vec<String> {
        match self.kind {
            PackageKind::Rpm => ["dnf", "clean", "all"].map(str::to_owned).to_vec(),
            PackageKind::Deb => ["apt-get", "update"].map(str::to_owned).to_vec(),
        }
    }

    /// `dnf -y install doca-ofed` (or `apt-get -y install`), with `mlnx-fw-updater` when the
    /// adapters' firmware is to be updated too.
    pub(crate) fn install(&self, firmware_update: bool) -> Vec<String> {
        let tool = match self.kind {
            PackageKind::Rpm => "dnf",
            PackageKind::Deb => "apt-get",
        };
        let mut argv: Vec<String> = [tool, "-y", "install", PROFILE].map(str::to_owned).to_vec();
        if firmware_update {
            argv.push(FW_UPDATER.into());
        }
        argv
    }
}

/// The DOCA-Host profile that installs the driver stack alone, the MLNX_OFED-like one (NVIDIA
/// DOCA Profiles: "For MLNX_OFED-like installation, use doca-ofed").
pub(crate) const PROFILE: &str = "doca-ofed";

/// The package whose install burns the bundled firmware when it is newer.
pub(crate) const FW_UPDATER: &str = "mlnx-fw-updater";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn published_package_names() {
        let rpm = DocaPackage::from_path("/root/doca-host-2.10.0-093000_25.01_rhel95.x86_64.rpm");
        assert_eq!(
            rpm,
            Some(DocaPackage {
                stem: "doca-host-2.10.0-093000_25.01_rhel95.x86_64".into(),
                doca_version: "2.10.0".into(),
                ofed_release: "25.01".into(),
                kind: PackageKind::Rpm,
            })
        );
        let ol = DocaPackage::from_path("doca-host-3.1.0-091000_25.07_ol96.x86_64.rpm");
        assert_eq!(ol.map(|p| p.ofed_release), Some("25.07".into()));
        let deb = DocaPackage::from_path("doca-host_3.2.1-044000-25.10-ubuntu2404_arm64.deb")
            .unwrap_or_else(|| panic!("the DGX Spark guide's package"));
        assert_eq!(
            (deb.doca_version.as_str(), deb.ofed_release.as_str()),
            ("3.2.1", "25.10")
        );
        assert!(deb.carries("25.10-1.7.1"));
        assert!(!deb.carries("25.100-1"));
        assert_eq!(
            deb.install(true),
            ["apt-get", "-y", "install", "doca-ofed", "mlnx-fw-updater"]
        );
        for bad in [
            "doca.rpm",
            "doca-host-x-y_z_w.rpm",
            "MLNX_OFED_LINUX-5.4-3.0.3.0-rhel8.1-x86_64.tgz",
        ] {
            assert_eq!(DocaPackage::from_path(bad), None, "{bad}");
        }
    }
}
