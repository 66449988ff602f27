//! Walks the `ethtool -i` parse tree (`driver.pest`) into [`EthtoolDriver`].

use pest::Parser as _;
use pest::iterators::Pair;

use super::types::EthtoolDriver;
use crate::ParseError;
use crate::grammar::ToolError;

const TOOL: &str = "ethtool-driver";
/// What an output that is not `ethtool -i`'s is told.
const EXPECTED: &str = "expected `ethtool -i` output: `driver:` and the fields after it, or \
                        ethtool's error";

#[derive(pest_derive::Parser)]
#[grammar = "src/net/ethtool/driver.pest"]
struct DriverParser;

/// Parses `ethtool -i IFACE` output.
pub(super) fn parse(text: &str) -> Result<EthtoolDriver, ParseError> {
    let root = DriverParser::parse(Rule::ethtool_driver, text).map_err(|error| {
        let error = ParseError::from_pest(TOOL, text, &error);
        // Refused at its start (pest names only the whole output): say what ethtool prints.
        if error.message == "expected ethtool driver" {
            ParseError::at(TOOL, text, error.span.offset(), error.span.len(), EXPECTED)
        } else {
            error
        }
    })?;
    let mut info = EthtoolDriver {
        driver: None,
        version: None,
        firmware_version: None,
        expansion_rom_version: None,
        bus_info: None,
        supports_statistics: None,
        supports_test: None,
        supports_eeprom_access: None,
        supports_register_dump: None,
        supports_priv_flags: None,
        error: None,
    };
    for pair in root.flatten() {
        match pair.as_rule() {
            Rule::driver_line => info.driver = value(pair),
            Rule::version_line => info.version = value(pair),
            Rule::firmware_version_line => info.firmware_version = value(pair),
            Rule::expansion_rom_version_line => info.expansion_rom_version = value(pair),
            Rule::bus_info_line => info.bus_info = value(pair),
            Rule::supports_statistics_line => info.supports_statistics = yes(pair),
            Rule::supports_test_line => info.supports_test = yes(pair),
            Rule::supports_eeprom_access_line => info.supports_eeprom_access = yes(pair),
            Rule::supports_register_dump_line => info.supports_register_dump = yes(pair),
            Rule::supports_priv_flags_line => info.supports_priv_flags = yes(pair),
            Rule::error if info.error.is_none() => {
                let kind = if pair.as_str().starts_with("Cannot get driver") {
                    "driver_info"
                } else {
                    "socket"
                };
                info.error = Some(ToolError::at_span(kind, text, pair.as_span()));
            }
            _ => {}
        }
    }
    Ok(info)
}

/// A field's value as printed; `None` when it is empty.
fn value(line: Pair<'_, Rule>) -> Option<String> {
    line.into_inner()
        .map(|value| value.as_str())
        .find(|value| !value.is_empty())
        .map(str::to_owned)
}

/// A `supports-*` field: `yes` or `no`.
fn yes(line: Pair<'_, Rule>) -> Option<bool> {
    line.into_inner()
        .next()
        .map(|answer| answer.as_str() == "yes")
}

#[cfg(test)]
mod tests {
    use super::parse;

    const MLX5: &str =
        include_str!("../../../../tests/fixtures/ethtool-driver/ethq-issue-8-mlx5-core.txt");
    const BE2NET: &str =
        include_str!("../../../../tests/fixtures/ethtool-driver/ethq-issue-7-be2net.txt");

    #[test]
    fn line_ends_and_indentation_do_not_change_the_result() {
        let expected = parse(crate::test_support::output_of(BE2NET));
        assert!(expected.is_ok());
        for text in crate::test_support::variants(BE2NET) {
            assert_eq!(
                parse(&text).ok(),
                expected.as_ref().ok().cloned(),
                "{text:?}"
            );
        }
    }

    /// An older ethtool prints no `expansion-rom-version:` line (igb in
    /// github.com/chyaohui/docs, `lb/ethtool.md`, "查询网口驱动相关信息", its lines as published,
    /// indented by four blanks).
    #[test]
    fn an_older_ethtool_prints_fewer_fields() {
        let out = "    driver: igb\n\
                   \x20   version: 5.3.0-k\n\
                   \x20   firmware-version: 1.67, 0x80000d38, 18.3.6\n\
                   \x20   bus-info: 0000:01:00.0\n\
                   \x20   supports-statistics: yes\n\
                   \x20   supports-test: yes\n\
                   \x20   supports-eeprom-access: yes\n\
                   \x20   supports-register-dump: yes\n\
                   \x20   supports-priv-flags: no\n";
        let info = parse(out).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(info.driver.as_deref(), Some("igb"));
        assert_eq!(
            info.firmware_version.as_deref(),
            Some("1.67, 0x80000d38, 18.3.6")
        );
        assert_eq!(info.expansion_rom_version, None);
        assert_eq!(info.supports_priv_flags, Some(false));
    }

    /// `do_gdrv` (ethtool.c) prints `perror("Cannot get driver information")` when the
    /// interface does not answer: data, not a refusal.
    #[test]
    fn ethtool_errors_are_data() {
        let info = parse("Cannot get driver information: No such device\n")
            .unwrap_or_else(|e| panic!("{e}"));
        let error = info.error.unwrap_or_else(|| panic!("no error"));
        assert_eq!(error.kind, "driver_info");
        assert_eq!(
            error.message,
            "Cannot get driver information: No such device"
        );
        assert_eq!(error.line, 1);
        assert_eq!(info.driver, None);
    }

    #[test]
    fn other_text_is_refused() {
        let mlx5 = crate::test_support::output_of(MLX5);
        for text in [
            "",
            "hello world\n",
            // A field ethtool does not print, out of its order, or a `supports-*` not yes/no.
            &format!("{mlx5}speed: 100000\n"),
            &mlx5
                .replace("version: 5.0-0\n", "")
                .replace("bus-info", "version: 5.0-0\nbus-info"),
            &mlx5.replace("supports-test: yes", "supports-test: maybe"),
            // `ethtool -S`.
            "NIC statistics:\n     rx_packets: 1\n",
        ] {
            assert!(parse(text).is_err(), "{text:?}");
        }
    }
}
