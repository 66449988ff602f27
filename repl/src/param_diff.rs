//! How far two versions of a pack's params differ, in SemVer's terms (semver.org, items 6-8):
//! a recipe or param removed (a rename is one removed and one added), a param retyped or its
//! choices narrowed breaks a caller's `--param`: major; a new recipe, a new param (every param
//! has a default) or a choice added: minor; anything else: a patch.

use std::collections::BTreeMap;

use cairn_runtime::RecipeDoc;

/// A SemVer bump, smallest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Bump {
    /// Nothing a caller depends on changed.
    Patch,
    /// Something added.
    Minor,
    /// Something a caller used is gone or different.
    Major,
}

impl std::fmt::Display for Bump {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Patch => "patch",
            Self::Minor => "minor",
            Self::Major => "major",
        })
    }
}

/// One difference and the bump it needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Change {
    /// The bump.
    pub(crate) bump: Bump,
    /// What changed, in words.
    pub(crate) what: String,
}

/// The changes from `old` to `new`, recipes by name; the bump they need is the largest.
pub(crate) fn param_changes(
    old: &BTreeMap<String, RecipeDoc>,
    new: &BTreeMap<String, RecipeDoc>,
) -> Vec<Change> {
    let mut changes = Vec::new();
    let mut add = |bump, what: String| changes.push(Change { bump, what });
    for (recipe, before) in old {
        let Some(after) = new.get(recipe) else {
            add(Bump::Major, format!("recipe `{recipe}` removed"));
            continue;
        };
        for param in &before.params {
            let name = &param.name;
            let Some(now) = after.params.iter().find(|p| p.name == *name) else {
                add(Bump::Major, format!("{recipe}: param `{name}` removed"));
                continue;
            };
            if now.kind != param.kind {
                let what = format!(
                    "{recipe}: param `{name}` was {}, now {}",
                    param.kind, now.kind
                );
                add(Bump::Major, what);
            }
            let dropped: Vec<&String> = param
                .choices
                .iter()
                .filter(|c| !now.choices.is_empty() && !now.choices.contains(c))
                .collect();
            if !dropped.is_empty() || (param.choices.is_empty() && !now.choices.is_empty()) {
                let what =
                    format!("{recipe}: param `{name}` takes fewer values ({dropped:?} no longer)");
                add(Bump::Major, what);
            } else if now.choices.iter().any(|c| !param.choices.contains(c))
                && !param.choices.is_empty()
            {
                add(
                    Bump::Minor,
                    format!("{recipe}: param `{name}` takes new choices"),
                );
            }
            if now.default != param.default && !param.secret {
                let what = format!(
                    "{recipe}: param `{name}` defaults to {}, was {}",
                    now.default.as_deref().unwrap_or("nothing"),
                    param.default.as_deref().unwrap_or("nothing")
                );
                add(Bump::Patch, what);
            }
        }
        for param in &after.params {
            if !before.params.iter().any(|p| p.name == param.name) {
                add(Bump::Minor, format!("{recipe}: new param `{}`", param.name));
            }
        }
    }
    for recipe in new.keys().filter(|r| !old.contains_key(*r)) {
        add(Bump::Minor, format!("new recipe `{recipe}`"));
    }
    changes
}

#[cfg(test)]
mod tests {
    use super::*;
    use cairn_runtime::ParamDoc;

    fn param(name: &str, kind: &str, choices: &[&str]) -> ParamDoc {
        ParamDoc {
            choices: choices.iter().map(|c| (*c).to_owned()).collect(),
            default: Some("1".into()),
            description: String::new(),
            kind: kind.into(),
            name: name.into(),
            secret: false,
        }
    }

    fn recipes(params: Vec<ParamDoc>) -> BTreeMap<String, RecipeDoc> {
        BTreeMap::from([(
            "check".to_owned(),
            RecipeDoc {
                description: String::new(),
                params,
            },
        )])
    }

    fn bump(old: Vec<ParamDoc>, new: Vec<ParamDoc>) -> Option<Bump> {
        param_changes(&recipes(old), &recipes(new))
            .iter()
            .map(|c| c.bump)
            .max()
    }

    #[test]
    fn removed_retyped_and_narrowed_are_major_added_is_minor_the_same_is_nothing() {
        let a = || param("mtu", "integer", &[]);
        assert_eq!(bump(vec![a()], vec![a()]), None);
        assert_eq!(bump(vec![a()], vec![]), Some(Bump::Major));
        assert_eq!(
            bump(vec![a()], vec![param("mtu", "string", &[])]),
            Some(Bump::Major)
        );
        assert_eq!(
            bump(vec![a()], vec![a(), param("n", "integer", &[])]),
            Some(Bump::Minor)
        );
        let wide = param("src", "string", &["a", "b"]);
        let narrow = param("src", "string", &["a"]);
        assert_eq!(
            bump(vec![wide.clone()], vec![narrow.clone()]),
            Some(Bump::Major)
        );
        assert_eq!(bump(vec![narrow], vec![wide]), Some(Bump::Minor));
        let changes = param_changes(&recipes(vec![a()]), &BTreeMap::new());
        assert_eq!(changes[0].what, "recipe `check` removed");
    }
}
