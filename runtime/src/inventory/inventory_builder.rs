//! From the file's text to resolved hosts: ranges expanded, addresses parsed, groups closed over
//! their children, vars merged; every error points at its text.

use std::collections::BTreeMap;
use std::ops::Range;

use miette::{NamedSource, SourceSpan};
use toml::Spanned;

use super::group_graph::{ALL, GroupGraph};
use super::raw_inventory::{RawHost, RawInventory};
use super::string_span::string_span;
use super::suggest::closest;
use super::toml_json::to_json;
use super::{
    Address, AddressCheck, AddressError, HostSpec, InventoryError, host_name, host_pattern,
};
use crate::CONTROLLER;

/// Why `controller` cannot be a group.
const CONTROLLER_REASON: &str = "`on controller` runs a stage on the interpreter's machine";

/// Builds hosts from one inventory file.
pub(crate) struct InventoryBuilder<'a> {
    check: Option<AddressCheck<'a>>,
    name: &'a str,
    text: &'a str,
}

/// A host before its groups are closed over their parents and its vars merged.
struct PendingHost<'a> {
    address: Address,
    direct_groups: Vec<String>,
    name: String,
    vars: &'a BTreeMap<String, toml::Value>,
}

impl<'a> InventoryBuilder<'a> {
    pub(crate) fn new(name: &'a str, text: &'a str, check: Option<AddressCheck<'a>>) -> Self {
        Self { check, name, text }
    }

    /// The hosts in file order and the group names in declaration order; each check with its
    /// span where the value is read.
    pub(crate) fn build(&self) -> Result<(Vec<HostSpec>, Vec<String>), InventoryError> {
        let raw: RawInventory = toml::from_str(self.text).map_err(|e| self.toml_error(&e))?;
        let mut graph = GroupGraph::default();
        self.add_groups(&raw, &mut graph)?;
        let pending = self.pending_hosts(&raw, &mut graph)?;
        self.add_children(&raw, &mut graph)?;
        let hosts = resolved(pending, &raw, &graph);
        Ok((hosts, graph.names().to_vec()))
    }

    /// Checks every `[groups.NAME]` and records it.
    fn add_groups(&self, raw: &RawInventory, graph: &mut GroupGraph) -> Result<(), InventoryError> {
        for (key, group) in &raw.groups {
            self.check_name("group", key)?;
            if key.get_ref() == CONTROLLER {
                return Err(self.reserved(key, CONTROLLER_REASON));
            }
            if let (ALL, Some(child)) = (key.get_ref().as_str(), group.get_ref().children.first()) {
                return Err(self.reserved(child, "every host is in `all`; it takes no children"));
            }
            graph.add(key.get_ref());
        }
        Ok(())
    }

    /// Every host of every `[hosts]` pattern, in file order, with its groups recorded.
    fn pending_hosts<'r>(
        &self,
        raw: &'r RawInventory,
        graph: &mut GroupGraph,
    ) -> Result<Vec<PendingHost<'r>>, InventoryError> {
        let mut pending = Vec::new();
        let mut defined: BTreeMap<String, Range<usize>> = BTreeMap::new();
        for (key, host) in &raw.hosts {
            let host = host.get_ref();
            let names =
                host_pattern::expand(key.get_ref()).map_err(|e| InventoryError::BadPattern {
                    pattern: host_name::shown(key.get_ref()),
                    reason: e.reason,
                    span: self.within(key, e.range),
                    src: self.src(),
                })?;
            for group in &host.groups {
                self.check_name("group", group)?;
                if group.get_ref() == CONTROLLER {
                    return Err(self.reserved(group, CONTROLLER_REASON));
                }
                graph.add(group.get_ref());
            }
            for name in names {
                self.check_new_host(key, &name, &mut defined)?;
                let direct_groups = host.groups.iter().map(|g| g.get_ref().clone()).collect();
                pending.push(PendingHost {
                    address: self.address_of(host, &name)?,
                    direct_groups,
                    name,
                    vars: &host.vars,
                });
            }
        }
        Ok(pending)
    }

    /// Checks the name `key` expanded to: valid, and not defined before (recorded in `defined`).
    fn check_new_host(
        &self,
        key: &Spanned<String>,
        name: &str,
        defined: &mut BTreeMap<String, Range<usize>>,
    ) -> Result<(), InventoryError> {
        if let Err(reason) = host_name::check(name) {
            return Err(InventoryError::BadHostName {
                name: host_name::shown(name),
                reason,
                span: key.span().into(),
                src: self.src(),
            });
        }
        if let Some(first) = defined.get(name) {
            return Err(InventoryError::DuplicateHost {
                first: first.clone().into(),
                name: name.to_owned(),
                second: key.span().into(),
                src: self.src(),
            });
        }
        defined.insert(name.to_owned(), key.span());
        Ok(())
    }

    /// The host's `address` (by default SSH to its name), parsed and, when the inventory is
    /// given a check, checked beyond its syntax.
    fn address_of(&self, host: &RawHost, name: &str) -> Result<Address, InventoryError> {
        let address = match &host.address {
            Some(address) => Address::parse_for(address.get_ref(), Some(name))
                .map_err(|e| self.address_error(address, &e))?,
            None => Address::ssh(name.to_owned()),
        };
        if let (Some(check), Some(written)) = (self.check, &host.address)
            && let Err(problem) = check(&address)
        {
            let value = written.get_ref();
            let range = value
                .find(&problem.part)
                .map_or(0..value.len(), |at| at..at + problem.part.len());
            return Err(InventoryError::UnusableAddress {
                help: problem.help,
                reason: problem.reason,
                span: self.within(written, range),
                src: self.src(),
            });
        }
        Ok(address)
    }

    /// Checks every group's `children` and records them; then that they form no cycle.
    fn add_children(
        &self,
        raw: &RawInventory,
        graph: &mut GroupGraph,
    ) -> Result<(), InventoryError> {
        let mut references: BTreeMap<(String, String), Range<usize>> = BTreeMap::new();
        for (key, group) in &raw.groups {
            for child in &group.get_ref().children {
                self.check_name("group", child)?;
                match child.get_ref().as_str() {
                    CONTROLLER => return Err(self.reserved(child, CONTROLLER_REASON)),
                    ALL => {
                        return Err(
                            self.reserved(child, "every host is in `all`; it cannot be a child")
                        );
                    }
                    _ => {}
                }
                if !graph.contains(child.get_ref()) {
                    let known = graph
                        .names()
                        .iter()
                        .map(String::as_str)
                        .filter(|g| *g != ALL);
                    let help = match closest(child.get_ref(), known) {
                        Some(near) => format!("did you mean `{near}`?"),
                        None => format!(
                            "declare it with `[groups.{}]`, or name it in a host's `groups`",
                            child.get_ref()
                        ),
                    };
                    return Err(InventoryError::UnknownGroup {
                        help,
                        name: child.get_ref().clone(),
                        parent: key.get_ref().clone(),
                        src: self.src(),
                        span: child.span().into(),
                    });
                }
                graph.add_child(key.get_ref(), child.get_ref());
                references.insert(
                    (key.get_ref().clone(), child.get_ref().clone()),
                    child.span(),
                );
            }
        }
        if let Some(edge) = graph.find_cycle() {
            let span = references.get(&edge).cloned().unwrap_or(0..0);
            return Err(InventoryError::GroupCycle {
                name: edge.1,
                src: self.src(),
                span: span.into(),
            });
        }
        Ok(())
    }

    /// Group names are identifiers, as `stage ... on GROUP` writes them.
    fn check_name(&self, kind: &'static str, name: &Spanned<String>) -> Result<(), InventoryError> {
        let text = name.get_ref();
        let bad = if text.is_empty() {
            Some((0..0, "it is empty".to_owned()))
        } else if text.starts_with(|c: char| c.is_ascii_digit()) {
            Some((0..1, "it starts with a digit".to_owned()))
        } else {
            text.char_indices()
                .find(|(_, c)| !(c.is_ascii_alphanumeric() || *c == '_'))
                .map(|(at, c)| (at..at + c.len_utf8(), format!("{c:?} cannot appear in it")))
        };
        match bad {
            Some((range, reason)) => Err(InventoryError::BadName {
                kind,
                name: text.clone(),
                reason,
                span: self.within(name, range),
                src: self.src(),
            }),
            None => Ok(()),
        }
    }

    fn reserved(&self, at: &Spanned<String>, reason: &'static str) -> InventoryError {
        InventoryError::ReservedGroup {
            name: at.get_ref().clone(),
            reason,
            src: self.src(),
            span: at.span().into(),
        }
    }

    fn address_error(&self, address: &Spanned<String>, error: &AddressError) -> InventoryError {
        let span = self.within(address, error.range());
        let src = self.src();
        match error {
            AddressError::BadPort { port, .. } => InventoryError::BadPort {
                port: port.clone(),
                src,
                span,
            },
            AddressError::Invalid { reason, .. } => InventoryError::BadAddress {
                reason: reason.clone(),
                src,
                span,
            },
            AddressError::UnknownScheme { help, scheme, .. } => InventoryError::UnknownScheme {
                help: help.clone(),
                scheme: scheme.clone(),
                src,
                span,
            },
        }
    }

    fn toml_error(&self, error: &toml::de::Error) -> InventoryError {
        let (message, span) = crate::source_fold::toml_message(error);
        let unknown = message
            .strip_prefix("unknown field `")
            .and_then(|rest| rest.split_once('`'))
            .map(|(key, expected)| (key.to_owned(), expected.trim_start_matches(", expected ")));
        let Some((key, expected)) = unknown else {
            return InventoryError::Syntax {
                message,
                src: self.src(),
                span,
            };
        };
        let allowed = expected.trim_start_matches("one of ").replace(" or ", ", ");
        let help = match closest(&key, allowed.split(", ").map(|k| k.trim_matches('`'))) {
            Some(near) => format!("did you mean `{near}`? allowed keys here: {allowed}"),
            None => format!("allowed keys here: {allowed}"),
        };
        InventoryError::UnknownKey {
            help,
            key,
            src: self.src(),
            span,
        }
    }

    /// The span of `range` within the string value of `value`.
    fn within(&self, value: &Spanned<String>, range: Range<usize>) -> SourceSpan {
        string_span(self.text, value.span(), value.get_ref(), range)
    }

    fn src(&self) -> NamedSource<crate::source_fold::LongLines> {
        crate::source_fold::toml_source(self.name, self.text)
    }
}

/// The pending hosts with their groups closed over their parents and their vars merged: the
/// inventory's, then each group's, then the host's own.
fn resolved(
    pending: Vec<PendingHost<'_>>,
    raw: &RawInventory,
    graph: &GroupGraph,
) -> Vec<HostSpec> {
    let group_vars: BTreeMap<&str, &BTreeMap<String, toml::Value>> = raw
        .groups
        .iter()
        .map(|(key, group)| (key.get_ref().as_str(), &group.get_ref().vars))
        .collect();
    pending
        .into_iter()
        .map(|host| {
            let groups = graph.closure(&host.direct_groups);
            let mut vars = BTreeMap::new();
            let layers = std::iter::once(&raw.vars)
                .chain(
                    groups
                        .iter()
                        .filter_map(|group| group_vars.get(group.as_str()).copied()),
                )
                .chain(std::iter::once(host.vars));
            for layer in layers {
                vars.extend(
                    layer
                        .iter()
                        .map(|(key, value)| (key.clone(), to_json(value.clone()))),
                );
            }
            HostSpec {
                address: host.address,
                groups,
                name: host.name,
                vars,
            }
        })
        .collect()
}
