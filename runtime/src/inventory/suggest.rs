//! "Did you mean": the closest of some names to a misspelt one.

/// The candidate closest to `word` by edit distance, if close enough to be a likely typo.
pub fn closest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    candidates
        .into_iter()
        .map(|candidate| (distance(word, candidate), candidate))
        .filter(|(distance, candidate)| *distance <= (candidate.chars().count() / 3).max(1))
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, candidate)| candidate)
}

/// Edit distance over characters, a swap of neighbours counting as one edit (`lgo` is one
/// edit from `log`): Levenshtein with transpositions (optimal string alignment).
fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let width = b.len() + 1;
    let mut table = vec![0usize; (a.len() + 1) * width];
    for (i, cell) in table.iter_mut().step_by(width).enumerate() {
        *cell = i;
    }
    for (j, cell) in table.iter_mut().take(width).enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (table[(i - 1) * width + j] + 1)
                .min(table[i * width + j - 1] + 1)
                .min(table[(i - 1) * width + j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(table[(i - 2) * width + j - 2] + 1);
            }
            table[i * width + j] = best;
        }
    }
    table.last().copied().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_only_near_misses() {
        let keys = ["address", "groups", "vars"];
        assert_eq!(closest("adress", keys), Some("address"));
        assert_eq!(closest("group", keys), Some("groups"));
        assert_eq!(closest("user", keys), None);
        assert_eq!(distance("kitten", "sitting"), 3);
        assert_eq!(distance("lgo", "log"), 1);
        assert_eq!(closest("lgo", ["log", "run"]), Some("log"));
    }
}
