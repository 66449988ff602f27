//! `esxcli`'s output grammar (layer 1): tables split at the columns of their dashes line and
//! `Label: value` records (`esxcli.pest`, `grammar.rs`), which every `esxcli` parser is written
//! in, and the one parser two namespaces read, `network nic list` (`nic_list.rs`). The other
//! parsers stay in `esxcli/`. See `docs/parsers.md`.

pub(crate) mod grammar;
pub(crate) mod nic_list;
