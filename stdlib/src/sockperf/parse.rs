//! Walks the sockperf parse tree into [`SockperfOutput`].

use pest::Parser as _;
use pest::iterators::Pair;

use super::types::{
    Percentile, RunCounters, SockperfAddress, SockperfOutput, VmaBanner, VmaParameter,
};
use crate::ParseError;

const TOOL: &str = "sockperf";

#[derive(pest_derive::Parser)]
#[grammar = "src/sockperf/sockperf.pest"]
struct SockperfParser;

/// Parses sockperf output.
pub(super) fn parse(text: &str) -> Result<SockperfOutput, ParseError> {
    let pairs = SockperfParser::parse(Rule::sockperf, text)
        .map_err(|error| ParseError::from_pest(TOOL, text, &error))?;
    let mut out = SockperfOutput {
        version: None,
        role: None,
        vma: None,
        addresses: Vec::new(),
        thread_id: None,
        io_mode: None,
        total_run: None,
        valid_duration: None,
        server_no: None,
        mode: None,
        message_rate_per_sec: None,
        avg_lat_usec: None,
        std_dev_usec: None,
        dropped_messages: None,
        duplicated_messages: None,
        out_of_order_messages: None,
        summary_latency_usec: None,
        observations: None,
        observations_per_percentile: None,
        max_usec: None,
        percentiles: Vec::new(),
        min_usec: None,
        messages: Vec::new(),
    };
    for item in pairs {
        match item.as_rule() {
            Rule::vma_line => vma_line(text, out.vma.get_or_insert_with(empty_banner), item)?,
            Rule::role_marker => {
                out.role = item.into_inner().next().map(|p| p.as_str().to_lowercase());
            }
            Rule::address_record => out.addresses.push(address(text, item)?),
            Rule::sockperf_message => {
                if let Some(body) = item.into_inner().next() {
                    message(text, &mut out, body)?;
                }
            }
            _ => {}
        }
    }
    out.mode = mode(&out).map(str::to_owned);
    Ok(out)
}

/// The mode the output states (sockperf prints no line naming it), else none: the server's
/// role; the throughput summary; counters showing that most messages got no answer, which only
/// under-load prints (one in `--reply-every`, 100 by default, is answered: `client.cpp`), from
/// the valid duration or, when sockperf found no valid observation, the total run; counters
/// with every message answered, ping-pong's, only in a capture that shows the client's run
/// (`sockperf[CLIENT] send on:`): a pasted summary alone states no mode.
fn mode(out: &SockperfOutput) -> Option<&'static str> {
    if out.role.as_deref() == Some("server") {
        return Some("server");
    }
    if out.message_rate_per_sec.is_some() {
        return Some("throughput");
    }
    let counters = out.valid_duration.as_ref().or(out.total_run.as_ref())?;
    // Counters as large as a u64 holds (a mangled paste) must not overflow the doubling.
    if counters.received_messages.saturating_mul(2) < counters.sent_messages {
        Some("under-load")
    } else {
        (out.role.as_deref() == Some("client")).then_some("ping-pong")
    }
}

fn empty_banner() -> VmaBanner {
    VmaBanner {
        version: None,
        build: None,
        cmd_line: None,
        ofed_version: None,
        current_time: None,
        pid: None,
        architecture: None,
        node: None,
        parameters: Vec::new(),
        messages: Vec::new(),
    }
}

fn vma_line(text: &str, banner: &mut VmaBanner, line: Pair<'_, Rule>) -> Result<(), ParseError> {
    let mut level = "";
    for part in line.into_inner() {
        match part.as_rule() {
            Rule::vma_level => level = part.as_str(),
            Rule::vma_field => {
                let mut inner = part.into_inner();
                let (Some(key), Some(value)) = (inner.next(), inner.next()) else {
                    continue;
                };
                let owned = Some(value.as_str().to_owned());
                match key.as_str() {
                    "VMA_VERSION" => {
                        let raw = value.as_str();
                        let (version, build) = raw.split_once(' ').unwrap_or((raw, ""));
                        banner.version = Some(version.to_owned());
                        banner.build = (!build.trim().is_empty()).then(|| build.trim().to_owned());
                    }
                    "Cmd Line" => banner.cmd_line = owned,
                    "OFED Version" => banner.ofed_version = owned,
                    "Current Time" => banner.current_time = owned,
                    "Pid" => banner.pid = Some(crate::grammar::number(TOOL, text, &value)?),
                    "Architecture" => banner.architecture = owned,
                    "Node" => banner.node = owned,
                    _ => {}
                }
            }
            Rule::vma_parameter => {
                let mut inner = part.into_inner();
                let (Some(setting), Some(env)) = (inner.next(), inner.next()) else {
                    continue;
                };
                banner
                    .parameters
                    .push(parameter(setting.as_str(), env.as_str()));
            }
            Rule::vma_text => {
                let message = part.as_str();
                if !message.is_empty() && level != "INFO" {
                    banner.messages.push(format!("{level}: {message}"));
                } else if !message.is_empty() {
                    banner.messages.push(message.to_owned());
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// `Tx QP WRE                      256` → name and value where two or more blanks part them.
fn parameter(setting: &str, env: &str) -> VmaParameter {
    let setting = setting.trim();
    let text = setting.split_whitespace().collect::<Vec<_>>().join(" ");
    let (name, value) = match setting.split_once("  ") {
        Some((name, value)) => (Some(name.trim().to_owned()), Some(value.trim().to_owned())),
        None => (None, None),
    };
    VmaParameter {
        env: env.to_owned(),
        name,
        value,
        text,
    }
}

fn address(text: &str, record: Pair<'_, Rule>) -> Result<SockperfAddress, ParseError> {
    let mut address = SockperfAddress {
        index: 0,
        ip: String::new(),
        port: 0,
        protocol: None,
    };
    let mut integers = 0;
    for part in record.into_inner() {
        match part.as_rule() {
            Rule::integer if integers == 0 => {
                address.index = crate::grammar::number(TOOL, text, &part)?;
                integers += 1;
            }
            Rule::integer => address.port = crate::grammar::number(TOOL, text, &part)?,
            Rule::ip => address.ip = part.as_str().to_owned(),
            Rule::protocol => address.protocol = Some(part.as_str().to_owned()),
            _ => {}
        }
    }
    Ok(address)
}

fn message(text: &str, out: &mut SockperfOutput, body: Pair<'_, Rule>) -> Result<(), ParseError> {
    // Why long: one table from the grammar's message rules to the output's fields.
    match body.as_rule() {
        Rule::version => out.version = body.into_inner().next().map(|p| p.as_str().to_owned()),
        Rule::listen_on => out.role = Some("server".to_owned()),
        Rule::tid_io => {
            for part in body.into_inner() {
                match part.as_rule() {
                    Rule::integer => {
                        out.thread_id = Some(crate::grammar::number(TOOL, text, &part)?)
                    }
                    Rule::io_mode => out.io_mode = io_call(&part),
                    _ => {}
                }
            }
        }
        Rule::io_mode => out.io_mode = io_call(&body),
        Rule::total_run => out.total_run = Some(counters(text, body)?),
        Rule::valid_duration => out.valid_duration = Some(counters(text, body)?),
        Rule::server_stats => {
            if let Some(n) = body.into_inner().next() {
                out.server_no = Some(crate::grammar::number(TOOL, text, &n)?);
            }
        }
        Rule::average => {
            for part in body.into_inner() {
                match part.as_rule() {
                    Rule::avg_usec => {
                        out.avg_lat_usec = Some(crate::grammar::number(TOOL, text, &part)?)
                    }
                    Rule::std_dev_usec => {
                        out.std_dev_usec = Some(crate::grammar::number(TOOL, text, &part)?)
                    }
                    _ => {}
                }
            }
        }
        Rule::counters => {
            for part in body.into_inner() {
                match part.as_rule() {
                    Rule::dropped => {
                        out.dropped_messages = Some(crate::grammar::number(TOOL, text, &part)?)
                    }
                    Rule::duplicated => {
                        out.duplicated_messages = Some(crate::grammar::number(TOOL, text, &part)?)
                    }
                    Rule::out_of_order => {
                        out.out_of_order_messages = Some(crate::grammar::number(TOOL, text, &part)?)
                    }
                    _ => {}
                }
            }
        }
        Rule::rate_summary => {
            if let Some(rate) = body.into_inner().next() {
                out.message_rate_per_sec = Some(crate::grammar::number(TOOL, text, &rate)?);
            }
        }
        Rule::summary => {
            for part in body.into_inner() {
                if part.as_rule() == Rule::summary_usec {
                    out.summary_latency_usec = Some(crate::grammar::number(TOOL, text, &part)?);
                }
            }
        }
        Rule::observations => {
            for part in body.into_inner() {
                match part.as_rule() {
                    Rule::observation_count => {
                        out.observations = Some(crate::grammar::number(TOOL, text, &part)?)
                    }
                    Rule::per_percentile => {
                        out.observations_per_percentile =
                            Some(crate::grammar::number(TOOL, text, &part)?)
                    }
                    _ => {}
                }
            }
        }
        Rule::percentile => {
            let (mut rank, mut usec) = (None, None);
            for part in body.into_inner() {
                match part.as_rule() {
                    Rule::percentile_rank => {
                        rank = Some(crate::grammar::number(TOOL, text, &part)?)
                    }
                    Rule::percentile_usec => {
                        usec = Some(crate::grammar::number(TOOL, text, &part)?)
                    }
                    _ => {}
                }
            }
            if let (Some(percentile), Some(usec)) = (rank, usec) {
                out.percentiles.push(Percentile { percentile, usec });
            }
        }
        Rule::max_observation => out.max_usec = observation(text, body)?,
        Rule::min_observation => out.min_usec = observation(text, body)?,
        Rule::text if !body.as_str().is_empty() => out.messages.push(body.as_str().to_owned()),
        _ => {}
    }
    Ok(())
}

fn io_call(pair: &Pair<'_, Rule>) -> Option<String> {
    pair.clone()
        .into_inner()
        .find(|p| p.as_rule() == Rule::io_call)
        .map(|p| p.as_str().to_owned())
}

fn counters(text: &str, body: Pair<'_, Rule>) -> Result<RunCounters, ParseError> {
    let mut counters = RunCounters {
        run_time_sec: 0.0,
        warm_up_time_msec: None,
        sent_messages: 0,
        received_messages: 0,
    };
    for part in body.into_inner() {
        match part.as_rule() {
            Rule::run_time_sec => {
                counters.run_time_sec = crate::grammar::number(TOOL, text, &part)?
            }
            Rule::warm_up_msec => {
                counters.warm_up_time_msec = Some(crate::grammar::number(TOOL, text, &part)?)
            }
            Rule::sent_messages => {
                counters.sent_messages = crate::grammar::number(TOOL, text, &part)?
            }
            Rule::received_messages => {
                counters.received_messages = crate::grammar::number(TOOL, text, &part)?
            }
            _ => {}
        }
    }
    Ok(counters)
}

fn observation(text: &str, body: Pair<'_, Rule>) -> Result<Option<f64>, ParseError> {
    match body
        .into_inner()
        .find(|p| p.as_rule() == Rule::observation_usec)
    {
        Some(value) => Ok(Some(crate::grammar::number(TOOL, text, &value)?)),
        None => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::{parameter, parse};

    #[test]
    fn interleaved_client_marker_and_message() {
        let out = "sockperf: == version #3.5-no.git ==\nsockperf[CLIENT] send on:sockperf: using recvfrom() to block on socket(s)\n\n[ 0] IP = 22.0.0.3        PORT =  5001 # TCP\n";
        let run = parse(out).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(run.role.as_deref(), Some("client"));
        assert_eq!(run.io_mode.as_deref(), Some("recvfrom"));
        assert_eq!(run.addresses[0].port, 5001);
    }

    #[test]
    fn crlf_reads_the_same() {
        let lf = "sockperf: == version #3.5-no.git ==\nsockperf: ====> avg-lat=  9.017 (std-dev=4.171)\nsockperf: ---> percentile 99.999 =   72.628\n";
        let a = parse(lf).unwrap_or_else(|e| panic!("{e}"));
        let b = parse(&lf.replace('\n', "\r\n")).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(a, b);
        assert_eq!(a.percentiles[0].usec, 72.628);
    }

    #[test]
    fn vma_parameter_columns() {
        let p = parameter(
            "Mem Allocate type              2 (Huge Pages)             ",
            "VMA_MEM_ALLOC_TYPE",
        );
        assert_eq!(p.name.as_deref(), Some("Mem Allocate type"));
        assert_eq!(p.value.as_deref(), Some("2 (Huge Pages)"));
        let flat = parameter("Mem Allocate type 2 (Huge Pages)", "VMA_MEM_ALLOC_TYPE");
        assert_eq!(flat.name, None);
        assert_eq!(flat.text, "Mem Allocate type 2 (Huge Pages)");
    }

    #[test]
    fn vma_banner_alone_is_not_sockperf_output() {
        assert!(parse(" VMA INFO: ---------\n VMA INFO: VMA_VERSION: 8.6.10-0\n").is_err());
        assert!(parse("").is_err());
        assert!(parse("hello\n").is_err());
    }

    /// The published ping-pong run, changed only as an under-load run differs (sockperf
    /// `client.cpp`: one message in `--reply-every`, 100 by default, is answered), and the
    /// throughput summary `stream_statistics` prints instead of latencies.
    #[test]
    fn the_mode_comes_from_what_was_answered() {
        let fixture = include_str!(
            "../../../tests/fixtures/sockperf/i40e-patch-ping-pong-tcp-avg-latency-v3.10.txt"
        )
        .split_once('\n')
        .map_or("", |(_, output)| output);
        let pong = super::parse(fixture).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(pong.mode.as_deref(), Some("ping-pong"));
        assert_eq!(pong.avg_lat_usec, Some(24.965));
        assert!(!pong.messages.iter().any(|m| m.contains("avg-latency")));
        let loaded = fixture.replace(
            "SentMessages=2391186; ReceivedMessages=2391186",
            "SentMessages=2391186; ReceivedMessages=23912",
        );
        let under = super::parse(&loaded).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(under.mode.as_deref(), Some("under-load"));
        // A partial capture, from its counters on: nothing in it says ping-pong.
        let at = fixture.find("sockperf: [Total Run]").unwrap_or_default();
        let partial = super::parse(&fixture[at..]).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(partial.mode, None);
        assert_eq!(partial.avg_lat_usec, Some(24.965));
        // ... but the same cut of the under-load run says under-load.
        let at = loaded.find("sockperf: [Total Run]").unwrap_or_default();
        let partial = super::parse(&loaded[at..]).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(partial.mode.as_deref(), Some("under-load"));
        // An under-load run whose valid duration held no observation (`client.cpp`: `No valid
        // observations found`): its total run states the mode.
        let total = loaded.replace(
            "SentMessages=2400055; ReceivedMessages=2400054",
            "SentMessages=2400055; ReceivedMessages=24000",
        );
        let valid = total.find("sockperf: [Valid Duration]").unwrap_or_default();
        let unobserved = format!(
            "{}sockperf: No valid observations found. Try tune parameters: --time/--number-of-packets/--mps/--reply-every\n",
            &total[..valid]
        );
        let unobserved = super::parse(&unobserved).unwrap_or_else(|e| panic!("{e}"));
        assert!(unobserved.valid_duration.is_none());
        assert_eq!(unobserved.mode.as_deref(), Some("under-load"));
        // Found by the parser fuzzing (seed 1796624863): counters past half of u64's range.
        let huge = fixture.replace(
            "SentMessages=2391186; ReceivedMessages=2391186",
            "SentMessages=18446744073709551615; ReceivedMessages=18446744073709551615",
        );
        let huge = super::parse(&huge).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(huge.mode.as_deref(), Some("ping-pong"));
        let stream = "sockperf: == version #3.10-no.git ==\nsockperf: Total of 2976400 messages sent in 10.000 sec\n\nsockperf: Summary: Message Rate is 297640 [msg/sec]\nsockperf: Summary: BandWidth is 4.087 MBps (32.697 Mbps)\n";
        let throughput = super::parse(stream).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(throughput.mode.as_deref(), Some("throughput"));
        assert_eq!(throughput.message_rate_per_sec, Some(297_640));
    }
}
