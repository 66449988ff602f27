//! Recipe packs: a folder with a manifest (`cairn-pack.toml`), its recipes, its `lib/` modules
//! and its labs, identified by the hash of its files (docs/recipes.md).

pub mod archive;
pub mod context;
pub mod files;
pub mod keys;
pub mod manifest;
pub mod pack;
pub mod packs_home;
pub mod project;
pub mod recipe_ref;
pub mod verify;

/// The SemVer crate the manifests and locks use, for callers comparing versions.
pub use semver;

pub use archive::ArchiveError;
pub use context::Context;
pub use files::{FILES, FileSet, FilesError, SIGNATURE, content_id_of};
pub use keys::{KeyError, TrustedKey};
pub use manifest::{MANIFEST, Manifest, ManifestError, RecipeEntry};
pub use pack::{Origin, Pack, PackError};
pub use packs_home::{InstallRecord, Installed, Outcome, PacksHome};
pub use project::{LOCK_FILE, Lock, Locked, PacksSection};
pub use recipe_ref::{RecipeRef, every_recipe, find, runbook_file};
pub use verify::{
    Signer, UNSIGNED, VerifyError, check_listing, check_signature, check_signed_for,
    expected_comment, verify_installed,
};
