//! Walks the `nvidia-smi topo -m` parse tree into [`NvidiaSmiTopo`].

use pest::Parser as _;
use pest::iterators::Pair;

use super::types::{LegendEntry, NvidiaSmiTopo, TopoDevice};
use crate::ParseError;

const TOOL: &str = "nvidia-smi-topo";

#[derive(pest_derive::Parser)]
#[grammar = "src/gpu/topo.pest"]
struct TopoParser;

/// Parses `nvidia-smi topo -m` output.
pub(super) fn parse(text: &str) -> Result<NvidiaSmiTopo, ParseError> {
    let root = TopoParser::parse(Rule::topo, text)
        .map_err(|error| ParseError::from_pest(TOOL, text, &error))?;
    let mut topo = NvidiaSmiTopo {
        columns: Vec::new(),
        affinity_columns: Vec::new(),
        devices: Vec::new(),
        legend: Vec::new(),
    };
    let mut nics = Vec::new();
    let mut table_end = 0;
    for pair in root.flatten() {
        match pair.as_rule() {
            Rule::column => topo.columns.push(pair.as_str().to_owned()),
            Rule::affinity_title => topo.affinity_columns.push(pair.as_str().to_owned()),
            Rule::title_row => table_end = pair.as_span().end(),
            Rule::device_row => {
                table_end = pair.as_span().end();
                let device = device_row(text, pair, &topo)?;
                topo.devices.push(device);
            }
            Rule::legend_line => {
                let mut cells = pair.into_inner();
                let code = cells.next().map(|p| p.as_str().to_owned());
                let meaning = cells.next().map(|p| p.as_str().to_owned());
                if let (Some(code), Some(meaning)) = (code, meaning) {
                    topo.legend.push(LegendEntry { code, meaning });
                }
            }
            Rule::nic_line => {
                let mut cells = pair.into_inner();
                if let (Some(nic), Some(device)) = (cells.next(), cells.next()) {
                    nics.push((nic.as_str().to_owned(), device.as_str().to_owned()));
                }
            }
            _ => {}
        }
    }
    if topo.devices.len() != topo.columns.len() {
        return Err(ParseError::at(
            TOOL,
            text,
            table_end,
            0,
            format!(
                "{} device rows for {} columns",
                topo.devices.len(),
                topo.columns.len()
            ),
        ));
    }
    for device in &mut topo.devices {
        device.rdma_device = nics
            .iter()
            .find(|(nic, _)| *nic == device.name)
            .map(|(_, rdma)| rdma.clone());
    }
    Ok(topo)
}

/// A device's row: it is the next column's, holds one link per column with `X` on its own,
/// and at most one affinity cell per affinity title.
fn device_row(
    text: &str,
    row: Pair<'_, Rule>,
    topo: &NvidiaSmiTopo,
) -> Result<TopoDevice, ParseError> {
    let at = |pair: &Pair<'_, Rule>, message: String| {
        let span = pair.as_span();
        ParseError::at(TOOL, text, span.start(), span.end() - span.start(), message)
    };
    let index = topo.devices.len();
    let mut cells = row.clone().into_inner();
    let Some(name) = cells.next() else {
        return Err(at(&row, "a row without its device".to_owned()));
    };
    let expected = topo.columns.get(index);
    if expected.map(String::as_str) != Some(name.as_str()) {
        return Err(at(
            &name,
            match expected {
                Some(column) => format!("the row of `{column}` was expected here"),
                None => format!("{} columns but a row more", topo.columns.len()),
            },
        ));
    }
    let mut device = TopoDevice {
        name: name.as_str().to_owned(),
        rdma_device: None,
        links: Vec::new(),
        cpu_affinity: None,
        numa_affinity: None,
        gpu_numa_id: None,
    };
    let mut affinities = Vec::new();
    for cell in cells {
        match cell.as_rule() {
            Rule::link => {
                if cell.as_str() == "X" && device.links.len() != index {
                    return Err(at(
                        &cell,
                        "`X` (itself) off the row's own column".to_owned(),
                    ));
                }
                device.links.push(cell.as_str().to_owned());
            }
            _ => affinities.push(cell),
        }
    }
    if device.links.len() != topo.columns.len() {
        return Err(at(
            &row,
            format!(
                "{} link cells for {} columns",
                device.links.len(),
                topo.columns.len()
            ),
        ));
    }
    if let Some(extra) = affinities.get(topo.affinity_columns.len()) {
        return Err(at(extra, "a cell past the last column".to_owned()));
    }
    for (title, cell) in topo.affinity_columns.iter().zip(&affinities) {
        let value = Some(cell.as_str().to_owned()).filter(|v| v != "N/A");
        match title.as_str() {
            "CPU Affinity" => device.cpu_affinity = value,
            "NUMA Affinity" => device.numa_affinity = value,
            _ => device.gpu_numa_id = value,
        }
    }
    Ok(device)
}

#[cfg(test)]
mod tests {
    use super::parse;

    const A10: &str =
        include_str!("../../../tests/fixtures/nvidia-smi-topo/xuesongtap-4xa10-sys-2-nics.txt");

    fn a10() -> &'static str {
        crate::test_support::output_of(A10)
    }

    #[test]
    fn line_ends_and_indentation_do_not_change_the_result() {
        let expected = parse(a10());
        assert!(expected.is_ok());
        for text in crate::test_support::variants(A10) {
            assert_eq!(
                parse(&text).ok(),
                expected.as_ref().ok().cloned(),
                "{text:?}"
            );
        }
    }

    /// Older drivers name the RDMA devices as columns and print `CPU Affinity` only, padded with
    /// trailing blanks (the shape of the matrix kubernetes/kubernetes#53497 quotes, eight GPUs
    /// and `mlx4_0` in 2017, reduced here to two GPUs).
    #[test]
    fn rdma_device_columns_and_cpu_affinity_only() {
        let out = "        GPU0    GPU1    mlx4_0  CPU Affinity        \n\
                   GPU0     X      PIX     PHB     0-9,20-29           \n\
                   GPU1    PIX      X      PHB     0-9,20-29           \n\
                   mlx4_0  PHB     PHB      X                          \n";
        let topo = parse(out).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(topo.columns, ["GPU0", "GPU1", "mlx4_0"]);
        assert_eq!(topo.affinity_columns, ["CPU Affinity"]);
        assert_eq!(topo.devices[1].links, ["PIX", "X", "PHB"]);
        assert_eq!(topo.devices[1].cpu_affinity.as_deref(), Some("0-9,20-29"));
        assert_eq!(topo.devices[2].cpu_affinity, None);
        assert!(topo.legend.is_empty());
    }

    #[test]
    fn the_nic_legend_names_the_nic_rows() {
        let topo = parse(a10()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(topo.devices[4].rdma_device.as_deref(), Some("mlx5_0"));
        assert_eq!(topo.devices[5].links[4], "PIX");
        assert_eq!(topo.devices[0].rdma_device, None);
        assert_eq!(topo.devices[0].numa_affinity.as_deref(), Some("0"));
        assert_eq!(topo.devices[0].gpu_numa_id, None);
    }

    #[test]
    fn a_row_missing_a_cell_or_out_of_place_is_refused_at_it() {
        let short = a10().replace(
            "NIC0    SYS     SYS     SYS     SYS      X      PIX\n",
            "NIC0    SYS     SYS     SYS     SYS      X\n",
        );
        let error = parse(&short).err();
        assert_eq!(
            error.as_ref().map(|e| e.message.as_str()),
            Some("5 link cells for 6 columns")
        );
        let swapped = a10().replace("\nGPU1 ", "\nGPU9 ");
        assert_eq!(
            parse(&swapped).err().map(|e| e.message),
            Some("the row of `GPU1` was expected here".to_owned())
        );
        let cut: String = a10().lines().take(4).map(|l| format!("{l}\n")).collect();
        assert_eq!(
            parse(&cut).err().map(|e| e.message),
            Some("3 device rows for 6 columns".to_owned())
        );
        assert!(parse("hello world\n").is_err());
        assert!(parse("").is_err());
    }
}
