//! Showing values readably: a list of maps as a table, nested values indented.

use rhai::{Array, Dynamic, Map};

/// Renders a REPL result.
pub(crate) fn render(value: &Dynamic) -> String {
    if value.is_unit() {
        return String::new();
    }
    if let Some(rows) = value.read_lock::<Array>()
        && !rows.is_empty()
        && rows.iter().all(Dynamic::is_map)
    {
        return table(&rows);
    }
    let mut out = String::new();
    nested(&mut out, value, 0);
    out.trim_end().to_owned()
}

/// An array of maps as columns: the union of their keys, in first-seen order.
fn table(rows: &[Dynamic]) -> String {
    let maps: Vec<Map> = rows
        .iter()
        .filter_map(|row| row.read_lock::<Map>().map(|m| m.clone()))
        .collect();
    let mut columns: Vec<String> = Vec::new();
    for map in &maps {
        for key in map.keys() {
            if !columns.iter().any(|c| c == key.as_str()) {
                columns.push(key.to_string());
            }
        }
    }
    let cells: Vec<Vec<String>> = maps
        .iter()
        .map(|map| {
            columns
                .iter()
                .map(|c| map.get(c.as_str()).map_or_else(String::new, cell))
                .collect()
        })
        .collect();
    let widths: Vec<usize> = columns
        .iter()
        .enumerate()
        .map(|(i, c)| {
            cells
                .iter()
                .map(|row| row[i].chars().count())
                .chain([c.len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |values: &[String]| {
        values
            .iter()
            .zip(&widths)
            .map(|(v, w)| format!("{v:<w$}"))
            .collect::<Vec<_>>()
            .join("  ")
            .trim_end()
            .to_owned()
    };
    let mut out = vec![
        line(&columns),
        line(&widths.iter().map(|w| "─".repeat(*w)).collect::<Vec<_>>()),
    ];
    out.extend(cells.iter().map(|row| line(row)));
    out.join("\n")
}

/// One table cell: scalars as they are, collections shortened.
fn cell(value: &Dynamic) -> String {
    if value.is_unit() {
        return String::new();
    }
    if value.is_string() {
        return value.to_string();
    }
    if let Some(array) = value.read_lock::<Array>() {
        return format!("[{} items]", array.len());
    }
    if value.is_map() {
        return "{…}".into();
    }
    value.to_string()
}

fn nested(out: &mut String, value: &Dynamic, depth: usize) {
    let pad = "  ".repeat(depth);
    // An empty list or map still answers: `mst::status()` before `mst start` finds nothing.
    if let Some(map) = value.read_lock::<Map>()
        && map.is_empty()
    {
        out.push_str(&format!("{pad}#{{}}\n"));
    } else if let Some(array) = value.read_lock::<Array>()
        && array.is_empty()
    {
        out.push_str(&format!("{pad}[]\n"));
    } else if let Some(map) = value.read_lock::<Map>() {
        for (key, item) in map.iter() {
            if item.is_map() || item.is_array() {
                out.push_str(&format!("{pad}{key}:\n"));
                nested(out, item, depth + 1);
            } else {
                out.push_str(&format!("{pad}{key}: {}\n", cell(item)));
            }
        }
    } else if let Some(array) = value.read_lock::<Array>() {
        for item in array.iter() {
            if item.is_map() || item.is_array() {
                out.push_str(&format!("{pad}-\n"));
                nested(out, item, depth + 1);
            } else {
                out.push_str(&format!("{pad}- {}\n", cell(item)));
            }
        }
    } else if value.is_string() {
        out.push_str(&format!("{pad}{value:?}\n"));
    } else {
        out.push_str(&format!("{pad}{value}\n"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eval(script: &str) -> Dynamic {
        rhai::Engine::new()
            .eval::<Dynamic>(script)
            .unwrap_or_default()
    }

    #[test]
    fn a_list_of_maps_is_a_table() {
        let shown = render(&eval(
            r#"[#{mst: "mt4119_pciconf1", pci: "3b:00.0"}, #{mst: "mt4119_pciconf1.1", pci: "3b:00.1", net: "vmnic4"}]"#,
        ));
        let lines: Vec<&str> = shown.lines().collect();
        assert_eq!(lines[0], "mst                pci      net");
        assert_eq!(lines[2], "mt4119_pciconf1    3b:00.0");
        assert_eq!(lines[3], "mt4119_pciconf1.1  3b:00.1  vmnic4");
    }

    #[test]
    fn empty_lists_and_maps_are_shown() {
        assert_eq!(render(&eval("[]")), "[]");
        assert_eq!(
            render(&eval("#{rows: [], header: #{}}")),
            "header:\n  #{}\nrows:\n  []"
        );
    }

    #[test]
    fn nested_values_are_indented() {
        let shown = render(&eval(
            r#"#{code: 0, rows: [1, 2], header: #{device: "mlx5_0"}}"#,
        ));
        assert_eq!(
            shown,
            "code: 0\nheader:\n  device: mlx5_0\nrows:\n  - 1\n  - 2"
        );
    }
}
