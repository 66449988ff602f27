//! What a runbook published with the `report::` builtins (`report::table`,
//! `report::verdict`), read from the actions in the hosts' journals.

use serde_json::Value;

use crate::run_model::RunModel;

/// A verdict line: whether what the runbook checked passed, in one sentence.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PublishedVerdict {
    pub(crate) host: String,
    pub(crate) ok: bool,
    pub(crate) text: String,
}

/// A result table.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PublishedTable {
    pub(crate) host: String,
    pub(crate) title: String,
    pub(crate) columns: Vec<String>,
    pub(crate) rows: Vec<Vec<String>>,
}

/// Every verdict line, host by host in run order, each host's in call order.
pub(crate) fn verdicts(model: &RunModel) -> Vec<PublishedVerdict> {
    model
        .hosts
        .iter()
        .flat_map(|host| {
            host.results("report::verdict")
                .map(|action| PublishedVerdict {
                    host: host.name.clone(),
                    ok: action.args["ok"].as_bool().unwrap_or(false),
                    text: action.args["text"].as_str().unwrap_or_default().to_owned(),
                })
        })
        .collect()
}

/// Every table, in the same order.
pub(crate) fn tables(model: &RunModel) -> Vec<PublishedTable> {
    let texts = |value: &Value| -> Vec<String> {
        value
            .as_array()
            .map(|cells| cells.iter().map(cell).collect())
            .unwrap_or_default()
    };
    model
        .hosts
        .iter()
        .flat_map(|host| {
            host.results("report::table")
                .map(move |action| PublishedTable {
                    host: host.name.clone(),
                    title: action.args["title"].as_str().unwrap_or_default().to_owned(),
                    columns: texts(&action.args["columns"]),
                    rows: action.args["rows"]
                        .as_array()
                        .map(|rows| rows.iter().map(texts).collect())
                        .unwrap_or_default(),
                })
        })
        .collect()
}

fn cell(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}
