//! A run id or a run's host that is not there, refused with the nearest name and the list.

/// `cairn resume 2099`, `cairn journal 7 node99`: no such run, or no such host in it.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
#[error("{what}")]
#[diagnostic(code(cairn::runtime::unknown_name))]
pub struct UnknownName {
    /// `no run 2099 in .cairn`, `run 7 has no host node99`.
    pub what: String,
    /// The nearest name, and the names there are.
    #[help]
    pub help: String,
}

impl UnknownName {
    /// `name` is not one of `known` (`things` says what they are: `runs`, `the run's hosts`).
    pub fn new(what: String, name: &str, known: &[String], things: &str) -> Self {
        let near = crate::inventory::closest(name, known.iter().map(String::as_str));
        let list = if known.len() > 20 {
            format!("{}, ... ({} in all)", known[..20].join(", "), known.len())
        } else {
            known.join(", ")
        };
        let help = match (near, list.is_empty()) {
            (Some(near), _) => format!("did you mean `{near}`? {things}: {list}"),
            (None, false) => format!("{things}: {list}"),
            (None, true) => format!("there are no {things}"),
        };
        Self { what, help }
    }
}
