//! Recipe packs: a folder with a manifest (`cairn-pack.toml`), its recipes, its `lib/` modules
//! and its labs, identified by the hash of its files (docs/recipes.md).

pub mod files;
pub mod manifest;
pub mod pack;
pub mod recipe_ref;

pub use files::{FILES, FileSet, FilesError, SIGNATURE, content_id_of};
pub use manifest::{MANIFEST, Manifest, ManifestError, RecipeEntry};
pub use pack::{Origin, Pack, PackError};
pub use recipe_ref::{RecipeRef, every_recipe, find, runbook_file};
