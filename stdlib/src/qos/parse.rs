//! Walks the `mlnx_qos` parse tree into [`MlnxQos`].

use pest::Parser as _;
use pest::iterators::Pair;

use super::types::{DscpToPriority, MlnxQos, PfcPriority, TrafficClass};
use crate::ParseError;
use crate::grammar::transcript::LineCounter;
use crate::grammar::{Message, ToolError, named_number, number};

const TOOL: &str = "mlnx-qos";
/// What an output that is not `mlnx_qos`'s is told: the line the tool starts with.
const EXPECTED: &str = "expected `mlnx_qos` output: its first line `DCBX mode: ...` (`Priority \
                        trust state:` or `PFC configuration:` in older versions), or its error";

#[derive(pest_derive::Parser)]
#[grammar = "src/qos/mlnx_qos.pest"]
struct MlnxQosParser;

/// Parses `mlnx_qos -i IFACE` output.
pub(super) fn parse(text: &str) -> Result<MlnxQos, ParseError> {
    let root = MlnxQosParser::parse(Rule::mlnx_qos_output, text).map_err(|error| {
        let error = ParseError::from_pest(TOOL, text, &error);
        // Refused at its start (pest names only the whole output): name the line it wanted.
        if error.message == "expected mlnx qos output" {
            ParseError::at(TOOL, text, error.span.offset(), error.span.len(), EXPECTED)
        } else {
            error
        }
    })?;
    let mut qos = MlnxQos {
        warning: None,
        dcbx_mode: None,
        trust_state: None,
        dscp2prio: Vec::new(),
        receive_buffer_size_bytes: None,
        max_buffer_size_bytes: None,
        cable_len: None,
        pfc: Vec::new(),
        tcs: Vec::new(),
        notices: Vec::new(),
        error: None,
    };
    let mut lines = LineCounter::new(text);
    let mut configured = false;
    for pair in root.flatten() {
        match pair.as_rule() {
            Rule::warning => {
                qos.warning = Some(pair.as_str().trim_end_matches('*').trim_end().to_owned());
            }
            Rule::dcbx_mode => qos.dcbx_mode = Some(pair.as_str().to_owned()),
            Rule::trust_state => qos.trust_state = Some(pair.as_str().to_owned()),
            Rule::dscp_line => dscp_line(text, pair, &mut qos.dscp2prio)?,
            Rule::buffer_size => qos
                .receive_buffer_size_bytes
                .get_or_insert_with(Vec::new)
                .push(number(TOOL, text, &pair)?),
            Rule::max_buffer_size => qos.max_buffer_size_bytes = Some(number(TOOL, text, &pair)?),
            Rule::cable_len => qos.cable_len = Some(number(TOOL, text, &pair)?),
            Rule::pfc_priority => qos.pfc.push(PfcPriority {
                priority: named_number(TOOL, text, &pair, "priority")?,
                enabled: false,
                buffer: None,
            }),
            Rule::pfc_enabled_row => column_values(text, pair, &mut qos.pfc, |column, value| {
                column.enabled = value == 1;
            })?,
            Rule::pfc_buffer_row => column_values(text, pair, &mut qos.pfc, |column, value| {
                column.buffer = Some(value);
            })?,
            Rule::tc_line => qos.tcs.push(tc_line(text, pair)?),
            Rule::pfc_block => configured = true,
            Rule::notice => qos.notices.push(Message {
                line: lines.line_of(pair.as_span().start()),
                text: pair.as_str().to_owned(),
            }),
            Rule::unsupported | Rule::usage_error | Rule::failed | Rule::permission
                if qos.error.is_none() =>
            {
                let kind = match pair.as_rule() {
                    Rule::unsupported => "unsupported",
                    Rule::usage_error => "usage",
                    Rule::failed => "failed",
                    _ => "permission",
                };
                qos.error = Some(ToolError::at_span(kind, text, pair.as_span()));
            }
            Rule::tc_priority => {
                let priority = named_number(TOOL, text, &pair, "priority")?;
                let Some(tc) = qos.tcs.last_mut() else {
                    let span = pair.as_span();
                    return Err(ParseError::at(
                        TOOL,
                        text,
                        span.start(),
                        span.end() - span.start(),
                        "a priority before any `tc:` line",
                    ));
                };
                tc.priorities.push(priority);
            }
            _ => {}
        }
    }
    // Without a configuration, a feature the command needed and the device lacks stopped the
    // tool (`--trust` without trust state): that notice is its failure.
    if !configured && qos.error.is_none() {
        qos.error = qos.notices.first().map(|notice| ToolError {
            kind: "unsupported".to_owned(),
            message: notice.text.clone(),
            line: notice.line,
        });
    }
    Ok(qos)
}

/// Adds a `prio:N dscp:...` line's values to its priority (a long list wraps onto more lines
/// of the same priority).
fn dscp_line(
    text: &str,
    line: Pair<'_, Rule>,
    map: &mut Vec<DscpToPriority>,
) -> Result<(), ParseError> {
    let mut cells = line.into_inner();
    let Some(prio) = cells.next() else {
        return Ok(());
    };
    let prio: u8 = named_number(TOOL, text, &prio, "priority")?;
    let mut values = Vec::new();
    for dscp in cells {
        values.push(named_number(TOOL, text, &dscp, "DSCP value")?);
    }
    match map.last_mut() {
        Some(last) if last.prio == prio => last.dscp.extend(values),
        _ => map.push(DscpToPriority { prio, dscp: values }),
    }
    Ok(())
}

/// Sets each priority column's value from a row of eight cells.
fn column_values(
    text: &str,
    row: Pair<'_, Rule>,
    columns: &mut [PfcPriority],
    mut set: impl FnMut(&mut PfcPriority, u8),
) -> Result<(), ParseError> {
    for (column, cell) in columns.iter_mut().zip(row.into_inner()) {
        set(column, number(TOOL, text, &cell)?);
    }
    Ok(())
}

fn tc_line(text: &str, line: Pair<'_, Rule>) -> Result<TrafficClass, ParseError> {
    let mut tc = TrafficClass {
        tc: 0,
        ratelimit_gbps: None,
        tsa: None,
        bw_percent: None,
        priorities: Vec::new(),
    };
    for pair in line.into_inner().flatten() {
        match pair.as_rule() {
            Rule::tc => tc.tc = named_number(TOOL, text, &pair, "traffic class")?,
            Rule::ratelimit_gbps => tc.ratelimit_gbps = Some(number(TOOL, text, &pair)?),
            Rule::tsa_ets => tc.tsa = Some("ets".to_owned()),
            Rule::tsa_name => tc.tsa = Some(pair.as_str().to_owned()),
            Rule::bw => tc.bw_percent = Some(named_number(TOOL, text, &pair, "ETS share")?),
            _ => {}
        }
    }
    Ok(tc)
}

#[cfg(test)]
mod tests {
    use super::parse;

    const NETARBITER: &str =
        include_str!("../../../tests/fixtures/mlnx-qos/netarbiter-cx-trust-dscp-pfc3-vendor.txt");

    fn netarbiter() -> &'static str {
        crate::test_support::output_of(NETARBITER)
    }

    #[test]
    fn line_ends_and_indentation_do_not_change_the_result() {
        let expected = parse(netarbiter());
        assert!(expected.is_ok());
        for text in crate::test_support::variants(NETARBITER) {
            assert_eq!(
                parse(&text).ok(),
                expected.as_ref().ok().cloned(),
                "{text:?}"
            );
        }
    }

    /// A device with buffer commands prints its receive buffers and the `buffer` row
    /// (`pretty_print` when `buffer_error` is false), firmware-controlled DCBX, several
    /// priorities in one ETS class and a rate limit (`%.1f Gbps`).
    #[test]
    fn buffers_shared_classes_and_a_rate_limit() {
        let text = netarbiter()
            .replace("DCBX mode: OS controlled", "DCBX mode: Firmware controlled")
            .replace(
                "Cable len: 7",
                "Receive buffer size (bytes): 130944,130944,0,0,0,0,0,0,max_buffer_size=262016\nCable len: 7",
            )
            .replace(
                "0   0   0   1   0   0   0   0   \n",
                "0   0   0   1   0   0   0   0   \n        buffer      0   0   0   1   0   0   0   0   \n",
            )
            .replace(
                "tc: 0 ratelimit: unlimited, tsa: vendor\n         priority:  1\ntc: 1 ratelimit: unlimited, tsa: vendor\n         priority:  0\n",
                "tc: 0 ratelimit: 12.5 Gbps, tsa: ets, bw: 50%\n         priority:  0\n         priority:  1\n",
            );
        let qos = parse(&text).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(qos.dcbx_mode.as_deref(), Some("Firmware controlled"));
        assert_eq!(
            qos.receive_buffer_size_bytes,
            Some(vec![130_944, 130_944, 0, 0, 0, 0, 0, 0])
        );
        assert_eq!(qos.max_buffer_size_bytes, Some(262_016));
        assert_eq!(qos.pfc[3].buffer, Some(1));
        assert_eq!(qos.pfc[2].buffer, Some(0));
        assert_eq!(qos.tcs[0].ratelimit_gbps, Some(12.5));
        assert_eq!(qos.tcs[0].tsa.as_deref(), Some("ets"));
        assert_eq!(qos.tcs[0].bw_percent, Some(50));
        assert_eq!(qos.tcs[0].priorities, vec![0, 1]);
        assert_eq!(qos.tcs.len(), 7);
    }

    /// Trust `pcp` prints no dscp2prio mapping; a DSCP list of more than eight values wraps onto
    /// another line of the same priority (`print_dscp2prio_sysfs`, 24 characters a line); the
    /// lldpad warning comes first.
    #[test]
    fn pcp_trust_the_lldpad_warning_and_a_wrapped_dscp_list() {
        let pcp = netarbiter()
            .replace("Priority trust state: dscp", "Priority trust state: pcp")
            .lines()
            .filter(|l| !l.contains("dscp"))
            .map(|l| format!("{l}\n"))
            .collect::<String>();
        let text = format!(
            "****** WARNING: lldpad service is running and may overwrite your settings ******\n\n{pcp}"
        );
        let qos = parse(&text).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            qos.warning.as_deref(),
            Some("WARNING: lldpad service is running and may overwrite your settings")
        );
        assert_eq!(qos.trust_state.as_deref(), Some("pcp"));
        assert!(qos.dscp2prio.is_empty());

        let wrapped = netarbiter().replace(
            "prio:3 dscp:31,30,29,28,27,26,25,24,\n",
            "prio:3 dscp:31,30,29,28,27,26,25,24,\n        prio:3 dscp:40,\n",
        );
        let qos = parse(&wrapped).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            qos.dscp2prio[3].dscp,
            vec![31, 30, 29, 28, 27, 26, 25, 24, 40]
        );
        assert_eq!(qos.dscp2prio.len(), 8);
    }

    /// `mlnx_qos` (mlnx-tools' `python/mlnx_qos`) prints a line for each feature the device
    /// lacks and goes on with the configuration without it (`trust` becomes `none`).
    #[test]
    fn lacking_features_are_notices_before_the_configuration() {
        let text = format!(
            "Priority trust state is not supported on your system\n\
             Buffers commands are not supported on your system\n\
             Rate limit is not supported on your system!\n{}",
            netarbiter().replace("Priority trust state: dscp", "Priority trust state: none")
        );
        let qos = parse(&text).unwrap_or_else(|e| panic!("{e}"));
        let notices: Vec<(usize, &str)> = qos
            .notices
            .iter()
            .map(|n| (n.line, n.text.as_str()))
            .collect();
        assert_eq!(
            notices,
            [
                (1, "Priority trust state is not supported on your system"),
                (2, "Buffers commands are not supported on your system"),
                (3, "Rate limit is not supported on your system!"),
            ]
        );
        assert_eq!(qos.trust_state.as_deref(), Some("none"));
        assert_eq!(qos.error, None);
        assert_eq!(qos.pfc.len(), 8);
    }

    /// The tool's own errors (its `print` before `sys.exit(1)`) are data: a device without DCB
    /// ETS, a bad command line with optparse's usage line, a lacking feature the command needed
    /// (`--trust` without trust state), not root.
    #[test]
    fn the_tools_errors_are_data() {
        for (text, kind, line) in [
            (
                "ETS features are not supported on your system\n",
                "unsupported",
                1,
            ),
            (
                "****** WARNING: lldpad service is running and may overwrite your settings ******\n\n\
                 Buffers commands are not supported on your system\n\
                 ETS features are not supported on your system\n",
                "unsupported",
                4,
            ),
            (
                "Bad arguments\nUsage: mlnx_qos -i <interface> [options]\n",
                "usage",
                1,
            ),
            (
                "Priority trust state is not supported on your system\n",
                "unsupported",
                1,
            ),
            ("[Errno 1] Operation not permitted\n", "permission", 1),
            ("mlnx_qos: Error setting pfc: [Errno 22]\n", "failed", 1),
        ] {
            let qos = parse(text).unwrap_or_else(|e| panic!("{text:?}: {e}"));
            let error = qos.error.unwrap_or_else(|| panic!("{text:?}: no error"));
            assert_eq!((error.kind.as_str(), error.line), (kind, line), "{text:?}");
            assert!(qos.pfc.is_empty());
        }
    }

    /// Foreign text is told the line mlnx_qos starts with.
    #[test]
    fn foreign_text_is_told_the_first_line_wanted() {
        let message = parse("mlx5_0 port 1 ==> ens1f0 (Up)\n")
            .err()
            .map(|e| e.message)
            .unwrap_or_default();
        assert!(message.contains("`DCBX mode: ...`"), "{message}");
    }

    #[test]
    fn another_tools_table_or_a_stray_line_is_refused() {
        assert!(parse("").is_err());
        assert!(parse("hello world\n").is_err());
        // The settings without the PFC table are not mlnx_qos's output.
        let head: String = netarbiter()
            .lines()
            .take(12)
            .map(|l| format!("{l}\n"))
            .collect();
        assert!(parse(&head).is_err());
        // A line that is no traffic class inside the table.
        let stray = netarbiter().replace("tc: 4 ratelimit", "hello\ntc: 4 ratelimit");
        assert_eq!(
            parse(&stray).err().map(|e| e.span.offset()),
            netarbiter().find("tc: 4 ratelimit")
        );
    }
}
