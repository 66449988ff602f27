//! Results a section reads as their builtin's type (the stdlib's), and the ones it could not
//! read: a journal of another shape (a renamed field, another cairn's) is counted and named in
//! the section, never skipped silently.

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::host_model::Action;
use crate::html::escape;
use crate::run_model::RunModel;

/// The results of one kind that did not read, each with its host, action and runbook line.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Unread {
    /// What they are results of (`perftest`, `mlxconfig query`).
    what: &'static str,
    /// (why, where): `missing field `rows``, `esx01 action 2, book.rhai:12`.
    results: Vec<(String, String)>,
}

impl Unread {
    /// None unread yet, of `what`.
    pub(crate) fn of(what: &'static str) -> Self {
        Self {
            what,
            results: Vec::new(),
        }
    }

    /// `action`'s result on `host` as `T`, or `None`, noting why.
    pub(crate) fn read<T: DeserializeOwned>(&mut self, host: &str, action: &Action) -> Option<T> {
        match serde_json::from_value(action.result.clone()) {
            Ok(value) => Some(value),
            Err(error) => {
                self.results.push((error.to_string(), place(host, action)));
                None
            }
        }
    }

    /// `action`'s result on `host` as `T` when `T` is the whole of the result: also refused
    /// when it has a field `T` does not keep (a renamed optional field, which serde would read
    /// as none).
    pub(crate) fn read_whole<T: DeserializeOwned + Serialize>(
        &mut self,
        host: &str,
        action: &Action,
    ) -> Option<T> {
        let value: T = self.read(host, action)?;
        let reread = serde_json::to_value(&value).unwrap_or(Value::Null);
        match cairn_stdlib::unread_field(&action.result, &reread) {
            None => Some(value),
            Some(field) => {
                let why = format!("a field `{field}` its type does not have");
                self.results.push((why, place(host, action)));
                None
            }
        }
    }

    /// Whether every result read.
    pub(crate) fn is_empty(&self) -> bool {
        self.results.is_empty()
    }

    /// The line a section shows: `2 results of perftest could not be read: missing field
    /// `rows` (esx01 action 2, book.rhai:12); ...`, or nothing when all read.
    pub(crate) fn line(&self) -> Option<String> {
        let count = self.results.len();
        if count == 0 {
            return None;
        }
        let each: Vec<String> = self
            .results
            .iter()
            .map(|(why, place)| format!("{why} ({place})"))
            .collect();
        let results = if count == 1 { "result" } else { "results" };
        Some(format!(
            "{count} {results} of {} could not be read: {}",
            self.what,
            each.join("; ")
        ))
    }

    /// [`Unread::line`] as the section's paragraph (empty when all read).
    pub(crate) fn html(&self) -> String {
        self.line().map_or_else(String::new, |line| {
            format!("<p class=\"unread\">{}</p>", escape(&line))
        })
    }
}

/// Where a result is: `esx01 action 2, book.rhai:12`.
fn place(host: &str, action: &Action) -> String {
    format!(
        "{host} action {}, {}:{}",
        action.seq, action.file, action.line
    )
}

/// Every successful result of the builtins `matches` names, read as `T`, with its host and
/// action; check mode's `{checked: true}` (nothing was run) is neither read nor counted.
pub(crate) fn read_results<'a, T: DeserializeOwned>(
    model: &'a RunModel,
    unread: &mut Unread,
    matches: impl Fn(&str) -> bool,
) -> Vec<(&'a str, &'a Action, T)> {
    let mut found = Vec::new();
    for host in &model.hosts {
        for action in host.actions.iter().filter(|a| a.ok && matches(&a.builtin)) {
            if action.result.get("checked") == Some(&Value::Bool(true)) {
                continue;
            }
            if let Some(value) = unread.read(&host.name, action) {
                found.push((host.name.as_str(), action, value));
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use cairn_runtime::RunFolders;
    use serde_json::json;

    use crate::run_model::RunModel;
    use crate::section::Section;
    use crate::test_journals::{Act, new_run, write_controller};

    /// A real `ib_send_bw` client's output, read by the stdlib's parser.
    const SEND_BW: &str = include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/fixtures/perftest/blog-ndr200-send-bw-client-collapsed-spaces.txt"
    ));

    /// `perftest::send_bw`'s result as the builtin journals it: the parsed run and the pair.
    fn send_bw_result() -> serde_json::Value {
        let run = cairn_stdlib::perftest::parse(SEND_BW).unwrap_or_else(|e| panic!("{e}"));
        let mut result = serde_json::to_value(run).unwrap_or_else(|e| panic!("{e}"));
        for (key, value) in [
            ("client", "vm001"),
            ("server", "vm002"),
            ("program", "ib_send_bw"),
            ("command", "ib_send_bw -a vm002"),
        ] {
            result[key] = json!(value);
        }
        result
    }

    #[test]
    fn a_result_with_a_renamed_field_is_named_in_its_section_not_skipped() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let store = RunFolders::new(dir.path());
        let hosts = vec!["vm001".to_owned(), "vm002".to_owned()];
        let id = new_run(&store, &hosts);
        let args = json!({"client": "vm001", "server": "vm002"});
        let good = send_bw_result();
        let mut renamed = good.clone();
        let rows = renamed
            .as_object_mut()
            .and_then(|map| map.remove("rows"))
            .unwrap_or_else(|| panic!("a run has rows"));
        renamed["results"] = rows;
        let actions = [
            Act::query("perftest::send_bw", args.clone(), good),
            Act::query("perftest::send_bw", args.clone(), renamed),
            Act::query("perftest::send_bw", args, json!({"checked": true})),
        ];
        write_controller(&store, &id, &hosts, &actions);
        let model = RunModel::load(&store, Some(&id)).unwrap_or_else(|e| panic!("{e}"));

        let html = crate::perftest::PerftestSection
            .render(&model)
            .unwrap_or_else(|e| panic!("{e}"))
            .unwrap_or_default();
        assert_eq!(html.matches("<figure").count(), 1, "{html}");
        assert!(
            html.contains(
                "1 result of perftest could not be read: missing field `rows` (controller action 2, book.rhai:12)"
            ),
            "{html}"
        );
    }
}
