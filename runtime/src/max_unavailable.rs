//! What `--max-unavailable` says: one limit for the whole run (`4`, `25%`), limits per inventory
//! group (`esxi=1,guests=2`), or both (`3,esxi=1`). A group's limit counts only its own hosts,
//! so ESXi hosts failed in maintenance do not hold the places of the guests' reboots.
//!
//! Both are kept in `run.json` as typed, so a resume reads what the run was given.

use std::collections::BTreeSet;
use std::fmt;

/// One limit: a host count, or a percentage of the hosts it covers (rounded down, at least one).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum MaxUnavailable {
    /// At most this many hosts (at least one).
    Hosts(usize),
    /// This percentage of the hosts.
    Percent(u8),
}

impl MaxUnavailable {
    /// Reads `4` or `"25%"`.
    pub fn parse(text: &str) -> Result<Self, String> {
        let text = text.trim();
        if let Some(percent) = text.strip_suffix('%') {
            return match percent.trim().parse::<u8>() {
                Ok(p @ 1..=100) => Ok(Self::Percent(p)),
                _ => Err(format!("`{text}`: a percentage from 1% to 100%")),
            };
        }
        match text.parse::<usize>() {
            Ok(n) if n >= 1 => Ok(Self::Hosts(n)),
            _ => Err(format!(
                "`{text}`: a host count (1 or more) or a percentage like 25%"
            )),
        }
    }

    /// How many of `hosts` may be unavailable at once.
    pub fn limit(self, hosts: usize) -> usize {
        match self {
            Self::Hosts(n) => n.max(1),
            Self::Percent(p) => (usize::from(p) * hosts / 100).max(1),
        }
    }
}

impl fmt::Display for MaxUnavailable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Hosts(n) => write!(f, "{n}"),
            Self::Percent(p) => write!(f, "{p}%"),
        }
    }
}

/// The whole `--max-unavailable` value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Budgets {
    /// The limit over every host of the run, if given.
    pub all: Option<MaxUnavailable>,
    /// The limit of each named group, in the order given.
    pub groups: Vec<(String, MaxUnavailable)>,
}

impl Budgets {
    /// Reads `4`, `25%`, `esxi=1,guests=2` or `3,esxi=1`.
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut budgets = Self {
            all: None,
            groups: Vec::new(),
        };
        for part in text.split(',').map(str::trim) {
            match part.split_once('=') {
                Some((group, limit)) => {
                    let group = group.trim();
                    if group.is_empty() || group.chars().any(char::is_whitespace) {
                        return Err(format!(
                            "`{part}`: GROUP=N or GROUP=P%, a group's name first"
                        ));
                    }
                    if budgets.groups.iter().any(|(g, _)| g == group) {
                        return Err(format!("`{group}` is given twice"));
                    }
                    let limit =
                        MaxUnavailable::parse(limit).map_err(|e| format!("{group}: {e}"))?;
                    budgets.groups.push((group.to_owned(), limit));
                }
                None if budgets.all.is_some() => {
                    return Err(format!(
                        "`{part}`: one limit for the whole run at most; per group: GROUP=N"
                    ));
                }
                None => budgets.all = Some(MaxUnavailable::parse(part)?),
            }
        }
        Ok(budgets)
    }

    /// The named groups `known` lacks, each with its nearest known name.
    pub fn unknown_groups<'a>(
        &'a self,
        known: &'a BTreeSet<String>,
    ) -> Vec<(&'a str, Option<&'a str>)> {
        self.groups
            .iter()
            .map(|(group, _)| group.as_str())
            .filter(|group| !known.contains(*group))
            .map(|group| {
                let near = crate::inventory::closest(group, known.iter().map(String::as_str));
                (group, near)
            })
            .collect()
    }
}

impl fmt::Display for Budgets {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let all = self.all.iter().map(ToString::to_string);
        let groups = self.groups.iter().map(|(g, m)| format!("{g}={m}"));
        let parts: Vec<String> = all.chain(groups).collect();
        f.write_str(&parts.join(","))
    }
}

impl From<MaxUnavailable> for Budgets {
    fn from(all: MaxUnavailable) -> Self {
        Self {
            all: Some(all),
            groups: Vec::new(),
        }
    }
}

/// In `run.json` as the command line spells it; a run written before groups existed holds the
/// enum's object form (`{"Hosts":4}`), still read.
impl serde::Serialize for Budgets {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.to_string())
    }
}

impl<'de> serde::Deserialize<'de> for Budgets {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(serde::Deserialize)]
        #[serde(untagged)]
        enum Stored {
            Text(String),
            Old(MaxUnavailable),
        }
        match Stored::deserialize(deserializer)? {
            Stored::Text(text) => Self::parse(&text).map_err(serde::de::Error::custom),
            Stored::Old(all) => Ok(all.into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_parse_as_counts_or_percentages() {
        assert_eq!(MaxUnavailable::parse("4"), Ok(MaxUnavailable::Hosts(4)));
        assert_eq!(
            MaxUnavailable::parse("25%"),
            Ok(MaxUnavailable::Percent(25))
        );
        assert_eq!(MaxUnavailable::Percent(25).limit(64), 16);
        assert_eq!(MaxUnavailable::Percent(1).limit(8), 1);
        for bad in ["0", "-1", "0%", "101%", "four"] {
            assert!(MaxUnavailable::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn groups_and_a_run_wide_limit_parse_and_print_as_given() {
        let both = Budgets::parse("3, esxi=1,guests=25%").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(both.all, Some(MaxUnavailable::Hosts(3)));
        assert_eq!(
            both.groups,
            [
                ("esxi".to_owned(), MaxUnavailable::Hosts(1)),
                ("guests".to_owned(), MaxUnavailable::Percent(25))
            ]
        );
        assert_eq!(both.to_string(), "3,esxi=1,guests=25%");
        for (bad, says) in [
            ("esxi=0", "esxi: `0`"),
            ("=2", "a group's name first"),
            ("esxi=1,esxi=2", "given twice"),
            ("2,3", "one limit for the whole run"),
            ("esxi=1,", "a host count"),
        ] {
            let error = Budgets::parse(bad).err().unwrap_or_default();
            assert!(error.contains(says), "{bad}: {error}");
        }
    }

    #[test]
    fn run_json_keeps_the_text_and_reads_the_old_object_form() {
        let budgets = Budgets::parse("esxi=1,guests=2").unwrap_or_else(|e| panic!("{e}"));
        let json = serde_json::to_string(&budgets).unwrap_or_default();
        assert_eq!(json, "\"esxi=1,guests=2\"");
        let old: Budgets =
            serde_json::from_str("{\"Percent\":25}").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(old, MaxUnavailable::Percent(25).into());
        assert!(serde_json::from_str::<Budgets>("\"esxi=0\"").is_err());
    }

    #[test]
    fn an_unknown_group_is_named_with_the_nearest_known_one() {
        let budgets = Budgets::parse("esx=1,guests=2").unwrap_or_else(|e| panic!("{e}"));
        let known: BTreeSet<String> = ["esxi", "guests"].map(String::from).into();
        assert_eq!(budgets.unknown_groups(&known), [("esx", Some("esxi"))]);
    }
}
