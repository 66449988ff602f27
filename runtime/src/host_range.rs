//! Host lists written as ranges, `node[03-22]`, in the notation the inventory accepts
//! (docs/inventory.md) and Slurm's hostlists use: a shared prefix, then numbers of one width.

use std::collections::BTreeMap;

/// `names` as ranges: `node[03-22,25],esx01`. Names with a trailing number and the same prefix
/// and number width share brackets; a group of one is written plainly. Groups keep the order
/// of their first name; numbers within a group are sorted.
pub fn compress_hosts<S: AsRef<str>>(names: &[S]) -> String {
    // (prefix, width) -> numbers, in order of first appearance.
    let mut order: Vec<(String, usize)> = Vec::new();
    let mut numbers: BTreeMap<(String, usize), Vec<u64>> = BTreeMap::new();
    let mut plain: BTreeMap<usize, String> = BTreeMap::new();
    for name in names {
        let name = name.as_ref();
        let digits = name.len() - name.trim_end_matches(|c: char| c.is_ascii_digit()).len();
        let (prefix, number) = name.split_at(name.len() - digits);
        match number.parse::<u64>() {
            Ok(value) if digits > 0 && digits <= 18 => {
                let key = (prefix.to_owned(), digits);
                if !numbers.contains_key(&key) {
                    order.push(key.clone());
                }
                numbers.entry(key).or_default().push(value);
            }
            _ => {
                plain.insert(order.len() + plain.len(), name.to_owned());
                order.push((name.to_owned(), usize::MAX));
            }
        }
    }
    let mut parts = Vec::with_capacity(order.len());
    for key in order {
        if key.1 == usize::MAX {
            parts.push(key.0);
            continue;
        }
        let Some(mut values) = numbers.remove(&key) else {
            continue;
        };
        values.sort_unstable();
        values.dedup();
        let (prefix, width) = key;
        if let [only] = values.as_slice() {
            parts.push(format!("{prefix}{only:0width$}"));
            continue;
        }
        let mut ranges = Vec::new();
        let mut start = values[0];
        let mut end = start;
        for &value in &values[1..] {
            if value == end + 1 {
                end = value;
            } else {
                ranges.push(range(start, end, width));
                (start, end) = (value, value);
            }
        }
        ranges.push(range(start, end, width));
        parts.push(format!("{prefix}[{}]", ranges.join(",")));
    }
    parts.join(",")
}

fn range(start: u64, end: u64, width: usize) -> String {
    if start == end {
        format!("{start:0width$}")
    } else {
        format!("{start:0width$}-{end:0width$}")
    }
}

/// `20 hosts: node[03-22]`, or just the name for one host.
pub fn describe_hosts<S: AsRef<str>>(names: &[S]) -> String {
    match names {
        [one] => one.as_ref().to_owned(),
        _ => format!("{} hosts: {}", names.len(), compress_hosts(names)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn consecutive_numbers_of_one_width_become_a_range() {
        let names: Vec<String> = (3..=22).map(|n| format!("node{n:02}")).collect();
        assert_eq!(compress_hosts(&names), "node[03-22]");
        assert_eq!(describe_hosts(&names), "20 hosts: node[03-22]");
    }

    #[test]
    fn gaps_other_prefixes_and_plain_names_are_kept() {
        let names = [
            "node05",
            "esx01",
            "node03",
            "node04",
            "node09",
            "controller",
            "esx02",
            "gpu7",
        ];
        assert_eq!(
            compress_hosts(&names),
            "node[03-05,09],esx[01-02],controller,gpu7"
        );
    }

    #[test]
    fn widths_are_not_mixed() {
        assert_eq!(compress_hosts(&["n1", "n2", "n03"]), "n[1-2],n03");
        assert_eq!(describe_hosts(&["esx01"]), "esx01");
    }
}
