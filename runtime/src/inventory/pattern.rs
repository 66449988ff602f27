//! `--limit` patterns: which hosts of an inventory a run, a check, `cairn exec` or the REPL's
//! `:hosts` is about, written as Ansible writes them.
//!
//! As Ansible's patterns (docs.ansible.com, "Patterns: targeting hosts and groups"): terms are
//! separated by `:` or `,`; a term is a host name, a group name, a glob (`esx0*`, `node?1`) or
//! a range (`node[01-04]`, our inventory's range syntax); `!term` excludes and `&term`
//! intersects. As Ansible's `InventoryManager` orders them, every plain term is added first,
//! then each `&` term intersects, then each `!` term excludes, whatever their order in the
//! pattern. The result keeps inventory order. A term that matches nothing, and a pattern that
//! selects nothing, are errors: a typo must never mean "no hosts" or "every host".

use miette::{NamedSource, SourceSpan};

use super::host_pattern::expand;
use super::{HostSpec, Inventory};

/// What a pattern term does to the hosts chosen so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Add,
    Intersect,
    Exclude,
}

/// One term of a pattern and where it is in the pattern.
#[derive(Debug, Clone)]
struct Term {
    op: Op,
    text: String,
    at: usize,
}

/// A pattern that cannot be used: a term that matches no host or group, a bad range, or a
/// pattern that selects nothing.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
#[error("{reason}")]
#[diagnostic(code(cairn::runtime::host_pattern))]
pub struct PatternError {
    /// What is wrong.
    pub reason: String,
    /// A did-you-mean, or what the inventory holds.
    #[help]
    pub help: Option<String>,
    /// The pattern as given.
    #[source_code]
    pub src: NamedSource<String>,
    /// The offending term.
    #[label("here")]
    pub span: SourceSpan,
}

/// A parsed `--limit` pattern.
#[derive(Debug, Clone)]
pub struct HostPattern {
    source: String,
    terms: Vec<Term>,
}

impl HostPattern {
    /// Splits `pattern` into its terms; an empty term (`a::b`, a trailing `,`) is refused.
    pub fn parse(pattern: &str) -> Result<Self, PatternError> {
        let mut terms = Vec::new();
        let mut at = 0;
        for piece in pattern.split([':', ',']) {
            let (op, skip) = match piece.chars().next() {
                Some('!') => (Op::Exclude, 1),
                Some('&') => (Op::Intersect, 1),
                _ => (Op::Add, 0),
            };
            let text = piece[skip..].trim();
            if text.is_empty() {
                return Err(error(
                    pattern,
                    at..at + piece.len(),
                    "an empty term in the host pattern".into(),
                    Some(
                        "separate host names, groups, globs (`esx0*`) and ranges (`node[01-04]`) with `:` or `,`; `!` excludes, `&` intersects"
                            .into(),
                    ),
                ));
            }
            let lead = piece[skip..].len() - piece[skip..].trim_start().len();
            terms.push(Term {
                op,
                text: text.to_owned(),
                at: at + skip + lead,
            });
            at += piece.len() + 1;
        }
        Ok(Self {
            source: pattern.to_owned(),
            terms,
        })
    }

    /// The pattern as written.
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// The hosts of `inventory` the pattern selects, in inventory order.
    pub fn select<'a>(&self, inventory: &'a Inventory) -> Result<Vec<&'a HostSpec>, PatternError> {
        let hosts = inventory.hosts();
        let mut chosen = vec![false; hosts.len()];
        let ordered = [Op::Add, Op::Intersect, Op::Exclude]
            .into_iter()
            .flat_map(|op| self.terms.iter().filter(move |t| t.op == op));
        let mut any_added = false;
        for term in ordered {
            let matched = self.matches(term, inventory)?;
            match term.op {
                Op::Add => {
                    any_added = true;
                    for (slot, hit) in chosen.iter_mut().zip(&matched) {
                        *slot |= *hit;
                    }
                }
                Op::Intersect | Op::Exclude => {
                    // `!b` or `&b` alone means "all hosts, except/within b", as in Ansible.
                    if !any_added {
                        chosen.iter_mut().for_each(|slot| *slot = true);
                        any_added = true;
                    }
                    let keep = term.op == Op::Intersect;
                    for (slot, hit) in chosen.iter_mut().zip(&matched) {
                        *slot &= *hit == keep;
                    }
                }
            }
        }
        let selected: Vec<&HostSpec> = hosts
            .iter()
            .zip(&chosen)
            .filter(|(_, hit)| **hit)
            .map(|(host, _)| host)
            .collect();
        if selected.is_empty() {
            return Err(error(
                &self.source,
                0..self.source.len(),
                format!("the host pattern `{}` selects no host", self.source),
                Some(
                    "its terms each match hosts, but together (`&` intersects, `!` excludes) they leave none; `cairn hosts -i INVENTORY PATTERN` shows what a pattern matches"
                        .into(),
                ),
            ));
        }
        Ok(selected)
    }

    /// Which hosts one term matches: a group, a host, a glob over both, or a range of hosts.
    fn matches(&self, term: &Term, inventory: &Inventory) -> Result<Vec<bool>, PatternError> {
        let hosts = inventory.hosts();
        let span = term.at..term.at + term.text.len();
        let text = term.text.as_str();
        let found: Vec<bool> = if inventory.group_names().iter().any(|g| g == text) {
            hosts.iter().map(|h| h.in_group(text)).collect()
        } else if text.contains(['*', '?']) {
            let groups: Vec<&String> = inventory
                .group_names()
                .iter()
                .filter(|g| glob(text, g))
                .collect();
            hosts
                .iter()
                .map(|h| glob(text, &h.name) || groups.iter().any(|g| h.in_group(g)))
                .collect()
        } else if text.contains('[') {
            let names = expand(text).map_err(|e| {
                error(
                    &self.source,
                    term.at + e.range.start..term.at + e.range.end,
                    format!("invalid range in the host pattern: {}", e.reason),
                    Some("ranges are written `node[01-16]` or `node[1-3,7]`".into()),
                )
            })?;
            hosts.iter().map(|h| names.contains(&h.name)).collect()
        } else {
            hosts.iter().map(|h| h.name == text).collect()
        };
        if found.iter().any(|hit| *hit) {
            return Ok(found);
        }
        let help = near_miss(text, hosts, inventory);
        Err(error(
            &self.source,
            span,
            format!("`{text}` matches no host or group of the inventory"),
            Some(help),
        ))
    }
}

/// What `text` was likely meant to be: a host a typo away (`nod01`: `node01`), else the hosts
/// named like it (`esx5`: `esx[01-04]`) before any group a letter away, since a name with a
/// number is a host's; else the nearest name.
fn near_miss(text: &str, hosts: &[HostSpec], inventory: &Inventory) -> String {
    let host_names = hosts.iter().map(|h| h.name.as_str());
    if let Some(near) = super::suggest::closest(text, host_names) {
        return format!("did you mean `{near}`?");
    }
    let stem = text.trim_end_matches(|c: char| c.is_ascii_digit());
    let alike: Vec<&str> = hosts
        .iter()
        .map(|h| h.name.as_str())
        .filter(|name| stem.len() < text.len() && !stem.is_empty() && name.starts_with(stem))
        .collect();
    if !alike.is_empty() {
        return format!(
            "the hosts named `{stem}...`: {}",
            crate::host_range::compress_hosts(&alike)
        );
    }
    let names = hosts
        .iter()
        .map(|h| h.name.as_str())
        .chain(inventory.group_names().iter().map(String::as_str));
    match super::suggest::closest(text, names) {
        Some(near) => format!("did you mean `{near}`?"),
        None => format!(
            "the inventory's groups: {}; `cairn hosts -i INVENTORY` lists its hosts",
            inventory.group_names().join(", ")
        ),
    }
}

/// Whether `name` matches the glob `pattern` (`*` any run of characters, `?` one character).
fn glob(pattern: &str, name: &str) -> bool {
    let pattern: Vec<char> = pattern.chars().collect();
    let name: Vec<char> = name.chars().collect();
    let (mut p, mut n) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while n < name.len() {
        match pattern.get(p) {
            Some('*') => {
                star = Some((p, n));
                p += 1;
            }
            Some(c) if *c == '?' || *c == name[n] => {
                p += 1;
                n += 1;
            }
            _ => match star {
                Some((sp, sn)) => {
                    p = sp + 1;
                    n = sn + 1;
                    star = Some((sp, sn + 1));
                }
                None => return false,
            },
        }
    }
    pattern[p..].iter().all(|c| *c == '*')
}

fn error(
    pattern: &str,
    range: std::ops::Range<usize>,
    reason: String,
    help: Option<String>,
) -> PatternError {
    PatternError {
        reason,
        help,
        src: NamedSource::new("host pattern", pattern.to_owned()),
        span: (range.start, range.end.saturating_sub(range.start)).into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lab() -> Inventory {
        let text = r#"
            [groups.fabric]
            children = ["esxi"]
            [hosts."esx[01-02]"]
            address = "sim:esxi7"
            groups = ["esxi"]
            [hosts.esx03]
            address = "sim:esxi7"
            groups = ["esxi", "staging"]
            [hosts.esx04]
            address = "sim:esxi7"
            groups = ["esxi"]
            [hosts."node[01-03]"]
            address = "sim:linux"
            groups = ["compute"]
        "#;
        Inventory::parse("lab.toml", text).unwrap_or_else(|e| panic!("{e:?}"))
    }

    fn names(pattern: &str) -> Result<Vec<String>, String> {
        let inventory = lab();
        HostPattern::parse(pattern)
            .and_then(|p| {
                p.select(&inventory)
                    .map(|hosts| hosts.iter().map(|h| h.name.clone()).collect())
            })
            .map_err(|e| e.reason)
    }

    #[test]
    fn names_groups_globs_ranges_and_set_operations() {
        let ok = |pattern: &str| names(pattern).unwrap_or_else(|e| panic!("{pattern}: {e}"));
        assert_eq!(ok("node02"), ["node02"]);
        assert_eq!(ok("compute"), ["node01", "node02", "node03"]);
        assert_eq!(ok("esx0*").len(), 4);
        assert_eq!(ok("node[01-02],esx04"), ["esx04", "node01", "node02"]);
        assert_eq!(ok("fabric:!esx0[1-2]"), ["esx03", "esx04"]);
        // Order does not matter: adds, then intersections, then exclusions.
        assert_eq!(ok("!esx01:esxi"), ["esx02", "esx03", "esx04"]);
        assert_eq!(ok("esxi:&staging"), ["esx03"]);
        assert_eq!(ok("!compute").len(), 4);
        assert_eq!(ok("fab*").len(), 4, "a glob matches group names too");
    }

    #[test]
    fn refuses_typos_empty_terms_and_empty_results() {
        let err = |pattern: &str| names(pattern).err().unwrap_or_default();
        assert!(err("nod01").contains("`nod01` matches no host or group"));
        assert!(err("esxi,").contains("empty term"));
        assert!(err("gpu*").contains("matches no host"));
        assert!(err("compute:&esxi").contains("selects no host"));
        assert!(err("node[3-1]").contains("invalid range"));
        let inventory = lab();
        let typo = HostPattern::parse("esxi:!stagin")
            .and_then(|p| p.select(&inventory).map(|_| ()))
            .err();
        assert_eq!(
            typo.as_ref().and_then(|e| e.help.as_deref()),
            Some("did you mean `staging`?")
        );
        assert_eq!(typo.map(|e| e.span), Some((6, 6).into()));
    }

    #[test]
    fn a_missing_numbered_host_suggests_the_hosts_named_like_it_not_a_group() {
        let inventory = lab();
        let help = |pattern: &str| {
            HostPattern::parse(pattern)
                .and_then(|p| p.select(&inventory).map(|_| ()))
                .err()
                .and_then(|e| e.help)
                .unwrap_or_default()
        };
        assert_eq!(help("esx5"), "the hosts named `esx...`: esx[01-04]");
        // A host a typo away is named first.
        assert_eq!(help("nod01"), "did you mean `node01`?");
        // A name without a number is still matched against groups too.
        assert_eq!(help("esxj"), "did you mean `esxi`?");
    }

    #[test]
    fn globs() {
        assert!(glob("esx0*", "esx01"));
        assert!(glob("*", ""));
        assert!(glob("n?de*1", "node01"));
        assert!(!glob("esx0*", "node01"));
        assert!(glob("*a*b", "xaxxb"));
        assert!(!glob("*a*b", "xaxxbc"));
    }
}
