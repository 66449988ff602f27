//! Walks the `show_gids` parse tree into [`ShowGids`].

use pest::Parser as _;
use pest::iterators::Pair;

use super::types::{GidEntry, ShowGids};
use crate::ParseError;
use crate::grammar::named_number;

const TOOL: &str = "show-gids";

#[derive(pest_derive::Parser)]
#[grammar = "src/grammar/show_gids/show_gids.pest"]
struct ShowGidsParser;

/// Parses `show_gids [DEV]` output.
pub(super) fn parse(text: &str) -> Result<ShowGids, ParseError> {
    let root = ShowGidsParser::parse(Rule::show_gids, text)
        .map_err(|error| ParseError::from_pest(TOOL, text, &error))?;
    let mut result = ShowGids {
        gids: Vec::new(),
        n_gids_found: None,
    };
    for pair in root.flatten() {
        match pair.as_rule() {
            Rule::gid_row => result.gids.push(gid_row(text, pair)?),
            Rule::count => {
                let count: u32 = named_number(TOOL, text, &pair, "n_gids_found")?;
                // The script counts the rows it printed: another count is a damaged capture.
                if usize::try_from(count).ok() != Some(result.gids.len()) {
                    let span = pair.as_span();
                    return Err(ParseError::at(
                        TOOL,
                        text,
                        span.start(),
                        span.end() - span.start(),
                        format!(
                            "n_gids_found={count} but {} GID rows were printed",
                            result.gids.len()
                        ),
                    ));
                }
                result.n_gids_found = Some(count);
            }
            _ => {}
        }
    }
    Ok(result)
}

fn gid_row(text: &str, row: Pair<'_, Rule>) -> Result<GidEntry, ParseError> {
    let mut entry = GidEntry {
        device: String::new(),
        port: 0,
        index: 0,
        gid: String::new(),
        ipv4: None,
        ver: None,
        netdev: None,
    };
    for cell in row.into_inner() {
        let value = cell.as_str().to_owned();
        match cell.as_rule() {
            Rule::device => entry.device = value,
            Rule::port => entry.port = named_number(TOOL, text, &cell, "port number")?,
            Rule::index => entry.index = named_number(TOOL, text, &cell, "GID index")?,
            Rule::gid => entry.gid = value,
            Rule::ipv4 => entry.ipv4 = Some(value),
            Rule::ver => entry.ver = Some(value),
            Rule::netdev => entry.netdev = Some(value),
            _ => {}
        }
    }
    Ok(entry)
}

#[cfg(test)]
mod tests {
    use super::parse;

    const HUSKY: &str =
        include_str!("../../../../tests/fixtures/show-gids/husky-readme-cx-roce-v1-v2-ipv4.txt");

    #[test]
    fn line_ends_and_indentation_do_not_change_the_result() {
        let expected = parse(crate::test_support::output_of(HUSKY));
        assert!(expected.is_ok());
        for text in crate::test_support::variants(HUSKY) {
            assert_eq!(
                parse(&text).ok(),
                expected.as_ref().ok().cloned(),
                "{text:?}"
            );
        }
    }

    /// An InfiniBand port: sysfs's type `IB/RoCE v1` gives `v1`, and no netdev is printed (the
    /// rows of the Mitosis README, github.com/ProjectMitosisOS/mitosis-core, README.md at 01fa123, "Get the
    /// gid", without the `# ` it quotes them with).
    #[test]
    fn an_infiniband_port_has_no_netdev() {
        let out = "DEV     PORT    INDEX   GID                                     IPv4            VER     DEV\n\
                   ---     ----    -----   ---                                     ------------    ---     ---\n\
                   mlx5_0  1       0       fe80:0000:0000:0000:ec0d:9a03:00ca:2f4c                 v1\n\
                   mlx5_1  1       0       fe80:0000:0000:0000:ec0d:9a03:0078:6376                 v1\n\
                   n_gids_found=2\n";
        let gids = parse(out).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(gids.gids.len(), 2);
        assert_eq!(gids.gids[1].device, "mlx5_1");
        assert_eq!(gids.gids[1].ver.as_deref(), Some("v1"));
        assert_eq!(gids.gids[1].netdev, None);
        assert_eq!(gids.gids[1].ipv4, None);
    }

    /// A netdev whose name starts like a version (`v2x`) is the netdev, not a version.
    #[test]
    fn a_version_is_a_whole_cell() {
        let out = "DEV\tPORT\tINDEX\tGID\t\t\t\t\tIPv4  \t\tVER\tDEV\n\
                   ---\t----\t-----\t---\t\t\t\t\t------------  \t---\t---\n\
                   mlx5_0\t1\t0\tfe80:0000:0000:0000:0ac0:ebff:fe21:03da\t\t\t\tv2x\n";
        let gids = parse(out).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(gids.gids[0].ver, None);
        assert_eq!(gids.gids[0].netdev.as_deref(), Some("v2x"));
        assert_eq!(gids.n_gids_found, None);
    }

    #[test]
    fn a_count_other_than_the_rows_is_refused_at_the_count() {
        let text =
            crate::test_support::output_of(HUSKY).replace("n_gids_found=4", "n_gids_found=5");
        let error = parse(&text).err().map(|e| e.message);
        assert_eq!(
            error.as_deref(),
            Some("n_gids_found=5 but 4 GID rows were printed")
        );
    }

    #[test]
    fn rows_without_the_title_or_another_table_are_refused() {
        let husky = crate::test_support::output_of(HUSKY);
        let rows: String = husky.lines().skip(2).map(|l| format!("{l}\n")).collect();
        assert!(parse(&rows).is_err());
        assert!(parse("").is_err());
        assert!(parse("hello world\n").is_err());
        let bad_row = husky.replace("\tv1\trdma0", "\tv1\trdma0 extra");
        assert!(parse(&bad_row).is_err());
    }
}
