//! Which GID a test on one RDMA port must use, read from the port's `show_gids` rows.
//!
//! On RoCE the GID index picks the protocol: RoCE v1 or v2, and a link-local or an IPv4-mapped
//! address; perftest's `-x` and `NCCL_IB_GID_INDEX` take it, and a wrong one runs RoCE v1 or
//! link-local (NVIDIA, "Understanding show_gids Script": the RoCE v2 IPv4 GID is the one to
//! use). An InfiniBand port's GIDs have no network interface (sysfs has no `ndevs` entry for
//! them, so the script prints the cell empty): the test addresses the port by its LID and needs
//! no index.

use super::{GidEntry, ShowGids};

/// What a port's GID table says a test must use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum PortGid {
    /// An InfiniBand port: no GID index to give.
    InfiniBand,
    /// A RoCE port's v2 GID over IPv4.
    RoceV2 { index: u32, ipv4: String },
}

/// Whether `device` port `port` is InfiniBand (its GIDs have no network interface) or RoCE;
/// `None` when the table has no GID of it.
pub(crate) fn is_infiniband(table: &ShowGids, device: &str, port: u32) -> Option<bool> {
    let mut rows = table
        .gids
        .iter()
        .filter(|row| row.device == device && row.port == port)
        .peekable();
    rows.peek()?;
    Some(rows.all(|row| row.netdev.is_none()))
}

/// The GID a test on `device` port `port` must use. `address`, when known, is the port's own
/// IPv4 address the test reaches it by: of several RoCE v2 IPv4 GIDs, the one with that address.
/// `given`, the index the runbook gave, is checked instead of chosen. An error says why no GID
/// fits, with the rows `show_gids` printed for the port.
pub(crate) fn port_gid(
    table: &ShowGids,
    device: &str,
    port: u32,
    address: Option<&str>,
    given: Option<u32>,
) -> Result<PortGid, String> {
    let rows: Vec<&GidEntry> = table
        .gids
        .iter()
        .filter(|row| row.device == device && row.port == port)
        .collect();
    if rows.is_empty() {
        return Err(format!(
            "show_gids printed no GID for {device} port {port} ({})",
            others(table)
        ));
    }
    if rows.iter().all(|row| row.netdev.is_none()) {
        return Ok(PortGid::InfiniBand);
    }
    let v2_ipv4 = |row: &&&GidEntry| {
        row.ver
            .as_deref()
            .is_some_and(|v| v.eq_ignore_ascii_case("v2"))
            && row.ipv4.is_some()
    };
    if let Some(index) = given {
        return match rows.iter().find(|row| row.index == index) {
            Some(row) if v2_ipv4(&row) => Ok(roce_v2(row)),
            Some(row) => Err(format!(
                "GID index {index} of {device} port {port} is not RoCE v2 over IPv4: show_gids \
                 printed {}",
                described(row)
            )),
            None => Err(format!(
                "{device} port {port} has no GID index {index}: show_gids printed {}",
                listed(&rows)
            )),
        };
    }
    let candidates: Vec<&&GidEntry> = rows.iter().filter(v2_ipv4).collect();
    let addressed = address.and_then(|address| {
        candidates
            .iter()
            .find(|row| row.ipv4.as_deref() == Some(address))
    });
    match (addressed, candidates.as_slice()) {
        (Some(row), _) | (None, [row]) => Ok(roce_v2(row)),
        (None, []) => Err(format!(
            "{device} port {port} has no RoCE v2 GID with an IPv4 address (is an address on its \
             interface?): show_gids printed {}",
            listed(&rows)
        )),
        (None, _) => Err(format!(
            "{device} port {port} has {} RoCE v2 IPv4 GIDs and none is {}: give `gid_index`; \
             show_gids printed {}",
            candidates.len(),
            address.map_or_else(|| "the test's address".to_owned(), |a| format!("`{a}`")),
            listed(&rows)
        )),
    }
}

fn roce_v2(row: &GidEntry) -> PortGid {
    PortGid::RoceV2 {
        index: row.index,
        ipv4: row.ipv4.clone().unwrap_or_default(),
    }
}

/// One row as the script prints it, its cells in words: `index 2 0000:...:d3f2 192.168.211.242
/// v1 on rdma0`.
fn described(row: &GidEntry) -> String {
    let mut words = vec![format!("index {}", row.index), row.gid.clone()];
    words.extend(row.ipv4.clone());
    words.push(row.ver.clone().unwrap_or_else(|| "(no version)".into()));
    words.push(row.netdev.as_ref().map_or_else(
        || "(no interface)".to_owned(),
        |netdev| format!("on {netdev}"),
    ));
    words.join(" ")
}

fn listed(rows: &[&GidEntry]) -> String {
    rows.iter()
        .map(|row| described(row))
        .collect::<Vec<_>>()
        .join("; ")
}

/// The ports the table has instead, or that it has none.
fn others(table: &ShowGids) -> String {
    let mut ports: Vec<String> = table
        .gids
        .iter()
        .map(|row| format!("{} port {}", row.device, row.port))
        .collect();
    ports.dedup();
    if ports.is_empty() {
        format!(
            "it printed none: n_gids_found={}",
            table
                .n_gids_found
                .map_or_else(|| "(not printed)".to_owned(), |n| n.to_string())
        )
    } else {
        format!("it printed {}", ports.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::{PortGid, is_infiniband, port_gid};
    use crate::grammar::show_gids::parse;

    fn table(fixture: &str) -> super::ShowGids {
        parse(crate::test_support::output_of(fixture)).unwrap_or_else(|e| panic!("{e}"))
    }

    const HUSKY: &str =
        include_str!("../../../../tests/fixtures/show-gids/husky-readme-cx-roce-v1-v2-ipv4.txt");
    const SCALE: &str = include_str!(
        "../../../../tests/fixtures/show-gids/spectrum-scale-cx6-one-device-spaces.txt"
    );
    const NONE: &str =
        include_str!("../../../../tests/fixtures/show-gids/k8s-pod-calico-no-gids.txt");

    #[test]
    fn the_roce_v2_ipv4_gid_is_chosen_over_v1_and_link_local() {
        let husky = port_gid(&table(HUSKY), "mlx5_0", 1, None, None);
        assert_eq!(
            husky,
            Ok(PortGid::RoceV2 {
                index: 3,
                ipv4: "192.168.211.242".into()
            })
        );
        // Two link-local pairs before the IPv4 pair: the index is 5, not the usual 3.
        let scale = port_gid(&table(SCALE), "mlx5_0", 1, None, None);
        assert_eq!(
            scale,
            Ok(PortGid::RoceV2 {
                index: 5,
                ipv4: "172.19.0.60".into()
            })
        );
    }

    #[test]
    fn a_port_without_a_v2_ipv4_gid_or_any_gid_is_refused_with_what_was_printed() {
        let link_local_only = "DEV\tPORT\tINDEX\tGID\t\t\t\t\tIPv4  \t\tVER\tDEV\n\
             ---\t----\t-----\t---\t\t\t\t\t------------  \t---\t---\n\
             mlx5_1\t1\t0\tfe80:0000:0000:0000:0ac0:ebff:fe21:03da\t\t\tv1\tens1f1\n\
             mlx5_1\t1\t1\tfe80:0000:0000:0000:0ac0:ebff:fe21:03da\t\t\tv2\tens1f1\n\
             n_gids_found=2\n";
        let table_of = parse(link_local_only).unwrap_or_else(|e| panic!("{e}"));
        let error = port_gid(&table_of, "mlx5_1", 1, None, None).err();
        let error = error.unwrap_or_default();
        assert!(
            error.contains("no RoCE v2 GID with an IPv4 address"),
            "{error}"
        );
        assert!(error.contains("index 1 fe80:0000:0000:0000:0ac0:ebff:fe21:03da v2 on ens1f1"));
        let missing = port_gid(&table(HUSKY), "mlx5_7", 1, None, None).err();
        assert_eq!(
            missing.as_deref(),
            Some("show_gids printed no GID for mlx5_7 port 1 (it printed mlx5_0 port 1)")
        );
        let none = port_gid(&table(NONE), "mlx5_0", 1, None, None).err();
        assert_eq!(
            none.as_deref(),
            Some("show_gids printed no GID for mlx5_0 port 1 (it printed none: n_gids_found=0)")
        );
    }

    #[test]
    fn a_given_index_is_checked_not_trusted() {
        let husky = table(HUSKY);
        assert!(matches!(
            port_gid(&husky, "mlx5_0", 1, None, Some(3)),
            Ok(PortGid::RoceV2 { index: 3, .. })
        ));
        let v1 = port_gid(&husky, "mlx5_0", 1, None, Some(2)).err();
        assert_eq!(
            v1.as_deref(),
            Some(
                "GID index 2 of mlx5_0 port 1 is not RoCE v2 over IPv4: show_gids printed index 2 \
                 0000:0000:0000:0000:0000:ffff:c0a8:d3f2 192.168.211.242 v1 on rdma0"
            )
        );
        let absent = port_gid(&husky, "mlx5_0", 1, None, Some(9)).err();
        assert!(absent.is_some_and(|e| e.starts_with("mlx5_0 port 1 has no GID index 9")));
    }

    #[test]
    fn an_infiniband_port_needs_no_index_and_two_addresses_take_the_tests() {
        let ib = "DEV     PORT    INDEX   GID                                     IPv4            VER     DEV\n\
                  ---     ----    -----   ---                                     ------------    ---     ---\n\
                  mlx5_0  1       0       fe80:0000:0000:0000:ec0d:9a03:00ca:2f4c                 v1\n\
                  n_gids_found=1\n";
        let ib = parse(ib).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(is_infiniband(&ib, "mlx5_0", 1), Some(true));
        assert_eq!(is_infiniband(&table(HUSKY), "mlx5_0", 1), Some(false));
        assert_eq!(is_infiniband(&table(HUSKY), "mlx5_0", 2), None);
        assert_eq!(
            port_gid(&ib, "mlx5_0", 1, None, None),
            Ok(PortGid::InfiniBand)
        );
        let two = "DEV\tPORT\tINDEX\tGID\t\t\t\t\tIPv4  \t\tVER\tDEV\n\
             ---\t----\t-----\t---\t\t\t\t\t------------  \t---\t---\n\
             mlx5_0\t1\t3\t0000:0000:0000:0000:0000:ffff:c0a8:0001\t192.168.0.1  \tv2\tens1f0\n\
             mlx5_0\t1\t5\t0000:0000:0000:0000:0000:ffff:0a00:0001\t10.0.0.1  \tv2\tens1f0\n\
             n_gids_found=2\n";
        let two = parse(two).unwrap_or_else(|e| panic!("{e}"));
        assert!(matches!(
            port_gid(&two, "mlx5_0", 1, Some("10.0.0.1"), None),
            Ok(PortGid::RoceV2 { index: 5, .. })
        ));
        let unsure = port_gid(&two, "mlx5_0", 1, None, None).err();
        assert!(unsure.is_some_and(|e| e.contains("2 RoCE v2 IPv4 GIDs and none is the test's")));
    }
}
