//! Walks the `ofed_info` parse tree into [`OfedInfo`].

use pest::Parser as _;
use pest::iterators::Pair;

use super::types::{OfedComponent, OfedFlavour, OfedInfo};
use crate::ParseError;

const TOOL: &str = "ofed-info";

#[derive(pest_derive::Parser)]
#[grammar = "src/ofed/ofed.pest"]
struct OfedParser;

/// Parses `ofed_info` or `ofed_info -s` output.
pub(super) fn parse_info(text: &str) -> Result<OfedInfo, ParseError> {
    let mut pairs = OfedParser::parse(Rule::ofed_info, text)
        .map_err(|error| ParseError::from_pest(TOOL, text, &error))?;
    let mut info = OfedInfo {
        distribution: String::new(),
        flavour: OfedFlavour::Other,
        version: String::new(),
        base_release: None,
        components: Vec::new(),
        installed_packages: Vec::new(),
    };
    let Some(root) = pairs.next() else {
        return Err(ParseError::at(
            TOOL,
            text,
            0,
            0,
            "expected ofed version line",
        ));
    };
    for pair in root.into_inner() {
        match pair.as_rule() {
            Rule::ofed_version_line => {
                for part in pair.into_inner() {
                    match part.as_rule() {
                        Rule::distribution => {
                            info.distribution = part.as_str().to_owned();
                            info.flavour = OfedFlavour::of(&info.distribution);
                        }
                        Rule::version => info.version = part.as_str().to_owned(),
                        Rule::base_release => info.base_release = Some(part.as_str().to_owned()),
                        _ => {}
                    }
                }
            }
            Rule::component => info.components.push(component(pair)),
            Rule::installed_packages => info.installed_packages.extend(
                pair.into_inner()
                    .filter(|p| p.as_rule() == Rule::installed_package)
                    .map(|p| p.as_str().to_owned()),
            ),
            _ => {}
        }
    }
    Ok(info)
}

fn component(pair: Pair<'_, Rule>) -> OfedComponent {
    let mut component = OfedComponent {
        name: String::new(),
        source: String::new(),
        branch: None,
        commit: None,
    };
    for part in pair.into_inner().flat_map(|p| {
        if p.as_rule() == Rule::component_name {
            vec![p]
        } else {
            p.into_inner().collect()
        }
    }) {
        match part.as_rule() {
            Rule::component_name => component.name = part.as_str().to_owned(),
            Rule::source => component.source = part.as_str().to_owned(),
            Rule::branch => component.branch = Some(part.as_str().to_owned()),
            Rule::commit => component.commit = Some(part.as_str().to_owned()),
            _ => {}
        }
    }
    component
}

#[cfg(test)]
mod tests {
    use super::parse_info;

    #[test]
    fn short_form_splits_distribution_and_version() {
        let info = parse_info("MLNX_OFED_LINUX-5.4-3.0.3.0: \n").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(info.distribution, "MLNX_OFED_LINUX");
        assert_eq!(info.version, "5.4-3.0.3.0");
        assert!(info.components.is_empty());
    }

    #[test]
    fn the_full_form_names_its_base_release_and_dpkg_rows_give_their_names() {
        let text = "MLNX_OFED_LINUX-5.0-2.1.8.0 (OFED-5.0-2.1.8):\nInstalled Packages:\n\
            -------------------\nii  ibverbs-providers:amd64   50mlnx1-1.50218   amd64   \
            User space provider drivers\nrc  ibsim-doc   0.9-1   all   docs\n";
        let info = parse_info(text).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(info.version, "5.0-2.1.8.0");
        assert_eq!(info.base_release.as_deref(), Some("OFED-5.0-2.1.8"));
        assert_eq!(
            info.installed_packages,
            ["ibverbs-providers:amd64", "ibsim-doc"]
        );
        let short = parse_info("MLNX_OFED_LINUX-5.0-2.1.8.0:\n").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(short.base_release, None);
    }

    #[test]
    fn dashes_inside_the_distribution_name_stay_in_it() {
        let info = parse_info("OFED-internal-26.01-1.0.0:\r\n").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(info.distribution, "OFED-internal");
        assert_eq!(info.version, "26.01-1.0.0");
    }

    /// Golden lines as published: MLNX_OFED 23.07 (DaoCloud's OFED driver guide) and 5.4,
    /// DOCA-OFED 25.10 after `doca-ofed` (NVIDIA DGX Spark Aerial guide) and 23.07 on a
    /// BlueField-3 host; the community OFED's name is neither.
    #[test]
    fn the_flavour_tells_mlnx_ofed_from_doca() {
        use super::OfedFlavour::{Doca, MlnxOfed, Other};
        for (line, flavour, version) in [
            (
                "MLNX_OFED_LINUX-23.07-0.5.1.2:\n",
                MlnxOfed,
                "23.07-0.5.1.2",
            ),
            ("MLNX_OFED_LINUX-5.4-3.0.3.0: \n", MlnxOfed, "5.4-3.0.3.0"),
            ("OFED-internal-25.10-1.7.1:\n", Doca, "25.10-1.7.1"),
            ("OFED-internal-23.07-0.5.0:\n", Doca, "23.07-0.5.0"),
            ("OFED-4.8-2:\n", Other, "4.8-2"),
        ] {
            let info = parse_info(line).unwrap_or_else(|e| panic!("{line}: {e}"));
            assert_eq!(
                (info.flavour, info.version.as_str()),
                (flavour, version),
                "{line}"
            );
        }
    }

    #[test]
    fn other_text_is_refused() {
        let error = parse_info("ofed_info: command not found\n").err();
        assert!(error.is_some_and(|e| e.message.contains("expected")));
    }
}
