//! The `report::` builtins: a table and a verdict line, journaled as read-only actions whose
//! arguments are what the report shows (`docs/report.md`, "Verdict").

use cairn_runtime::{ActionError, HostContext};
use rhai::plugin::*;
use rhai::{Array, NativeCallContext};
use serde_json::{Value, json};

use crate::action::{self, RhaiResult};

/// The `report::` module.
#[export_module]
pub mod report_builtins {
    use super::*;

    /// Publishes a result table to the run's report, under the verdict: `title`, the column
    /// names and the rows (arrays of cells, one per column; numbers and booleans are written
    /// as text). Returns the table as Markdown, for the run's log.
    ///
    /// ```rhai
    /// log(report::table("Bandwidth per pair", ["pair", "Gb/s"], [["vm01 → vm02", 97.8]]));
    /// ```
    #[rhai_fn(volatile, return_raw)]
    pub fn table(
        ctx: NativeCallContext,
        title: String,
        columns: Array,
        rows: Array,
    ) -> RhaiResult<String> {
        let columns: Vec<String> = columns.iter().map(cell).collect();
        let rows = table_rows(&columns, &rows).map_err(|message| refuse(&ctx, message))?;
        let markdown = markdown(&columns, &rows);
        let args = json!({ "title": title, "columns": columns, "rows": rows });
        let text = markdown.clone();
        let logged = action::query(&ctx, crate::report::NAMESPACE, args, move |_| {
            Ok(Value::String(text))
        })?;
        Ok(logged.into_string().unwrap_or(markdown))
    }

    /// Publishes a verdict line to the run's report: whether what the runbook checked passed,
    /// and one sentence that says what (`"all 2 pairs reached 90 Gb/s"`). A line with
    /// `ok == false` makes the report's verdict a fail. Returns `ok`.
    ///
    /// ```rhai
    /// report::verdict(failures.is_empty(), `${rows.len()} pairs measured`);
    /// ```
    #[rhai_fn(volatile, return_raw)]
    pub fn verdict(ctx: NativeCallContext, ok: bool, text: String) -> RhaiResult<bool> {
        if text.trim().is_empty() {
            return Err(refuse(
                &ctx,
                "report::verdict: the text is empty; say in one sentence what passed or failed"
                    .into(),
            ));
        }
        let published = action::query(
            &ctx,
            crate::report::NAMESPACE,
            json!({ "ok": ok, "text": text }),
            move |_| Ok(Value::Bool(ok)),
        )?;
        Ok(published.as_bool().unwrap_or(ok))
    }
}

/// A runbook mistake in a call, at the call's position.
fn refuse(ctx: &NativeCallContext, message: String) -> Box<EvalAltResult> {
    match HostContext::current(ctx) {
        Ok(host) => host.fail(ActionError::Runbook(message), ctx.call_position()),
        Err(error) => error,
    }
}

/// A cell as the page and the log show it.
fn cell(value: &Dynamic) -> String {
    value
        .clone()
        .into_immutable_string()
        .map(|s| s.to_string())
        .unwrap_or_else(|_| value.to_string())
}

/// The rows as text, each as wide as `columns`.
fn table_rows(columns: &[String], rows: &Array) -> Result<Vec<Vec<String>>, String> {
    if columns.is_empty() {
        return Err("report::table: no columns; give the column names as an array".into());
    }
    rows.iter()
        .enumerate()
        .map(|(index, row)| {
            let Some(cells) = row.read_lock::<Array>() else {
                return Err(format!(
                    "report::table: row {} is a {}, not an array of cells",
                    index + 1,
                    row.type_name()
                ));
            };
            if cells.len() != columns.len() {
                return Err(format!(
                    "report::table: row {} has {} cells for {} columns",
                    index + 1,
                    cells.len(),
                    columns.len()
                ));
            }
            Ok(cells.iter().map(cell).collect())
        })
        .collect()
}

/// The table in Markdown: a header, its rule, a line per row.
fn markdown(columns: &[String], rows: &[Vec<String>]) -> String {
    let line = |cells: &[String]| format!("| {} |", cells.join(" | "));
    let mut lines = vec![
        line(columns),
        format!("|{}|", vec!["---"; columns.len()].join("|")),
    ];
    lines.extend(rows.iter().map(|row| line(row)));
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_of_the_wrong_width_or_kind_is_refused_with_its_number() {
        let columns = vec!["pair".to_owned(), "Gb/s".to_owned()];
        let good: Array = vec![Dynamic::from_array(vec![
            "a".into(),
            Dynamic::from(97.5_f64),
        ])];
        assert_eq!(
            table_rows(&columns, &good),
            Ok(vec![vec!["a".to_owned(), "97.5".to_owned()]])
        );
        let short: Array = vec![Dynamic::from_array(vec!["a".into()])];
        assert_eq!(
            table_rows(&columns, &short),
            Err("report::table: row 1 has 1 cells for 2 columns".into())
        );
        let flat: Array = vec!["a".into()];
        assert!(table_rows(&columns, &flat).is_err_and(|e| e.contains("row 1 is a string")));
        assert!(table_rows(&[], &good).is_err());
    }

    #[test]
    fn the_log_gets_the_table_in_markdown() {
        let columns = vec!["pair".to_owned(), "Gb/s".to_owned()];
        let rows = vec![vec!["vm01 → vm02".to_owned(), "97.8".to_owned()]];
        assert_eq!(
            markdown(&columns, &rows),
            "| pair | Gb/s |\n|---|---|\n| vm01 → vm02 | 97.8 |"
        );
    }
}
