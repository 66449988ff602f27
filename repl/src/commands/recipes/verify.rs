//! `cairn recipes verify`: every installed pack re-hashed against its `FILES` and its signature
//! checked again; and `cairn recipes lock`: the project's constraints resolved into `cairn.lock`.

use cairn_packs::{Context, LOCK_FILE, Lock, UNSIGNED, verify_installed};

pub(super) fn verify(context: &Context) -> miette::Result<()> {
    let installed = context.installed()?;
    let Some(home) = &context.home else {
        return Err(miette::miette!(
            "no packs folder: none of CAIRN_HOME, XDG_DATA_HOME and HOME is set"
        ));
    };
    if installed.is_empty() {
        return Err(miette::miette!(
            help = "`cairn recipes install FILE` installs one",
            "no packs installed in {}",
            home.packs().display()
        ));
    }
    let mut failed = 0;
    for each in &installed {
        let pack = &each.pack;
        match verify_installed(each, &context.keys) {
            Ok(signer) => say!(
                "ok {} {} {} {}",
                pack.name(),
                pack.manifest.version,
                pack.content_id(),
                signer.map_or_else(
                    || UNSIGNED.to_owned(),
                    |s| format!("signed by {}", s.key_id)
                )
            ),
            Err(error) => {
                failed += 1;
                eprintln!("{:?}", miette::Report::new(error));
            }
        }
    }
    if let Some(lock) = context.lock()? {
        match cairn_packs::project::visible(installed.clone(), Some(&lock), &Default::default()) {
            Ok(packs) => say!(
                "ok {LOCK_FILE}: {} pack(s) pinned and installed",
                packs.len()
            ),
            Err(error) => {
                failed += 1;
                eprintln!("{:?}", miette::Report::new(error));
            }
        }
    }
    if failed > 0 {
        return Err(miette::miette!(
            "{failed} of {} installed pack(s) failed verification",
            installed.len()
        ));
    }
    Ok(())
}

pub(super) fn lock(context: &Context) -> miette::Result<()> {
    let Some(project) = &context.project else {
        return Err(miette::miette!(
            help = "write the constraints in cairn.toml: [packs.require] \"acme/infra\" = \"^1.2\"",
            "no cairn.toml here or above"
        ));
    };
    let lock = Lock::resolve(&context.section.require, &context.installed()?)?;
    let path = cairn_packs::project::lock_path(project);
    std::fs::write(&path, lock.to_text())
        .map_err(|e| miette::miette!("cannot write {}: {e}", path.display()))?;
    for pinned in &lock.packs {
        say!("{} {} {}", pinned.name, pinned.version, pinned.content_id);
    }
    say!("wrote {} ({} pack(s))", path.display(), lock.packs.len());
    Ok(())
}
