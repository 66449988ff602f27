//! `ibdiagnet`: NVIDIA's fabric diagnostic, run on a host with a subnet manager's view; its
//! `ibdiagnet2.db_csv` read for what a fabric acceptance checks (issue 18): nodes, ports with
//! their width, speed and state, cables, subnet managers, port counters.
//!
//! Sources (no db_csv file is published in full; the reader takes the columns by header name):
//! - the section layout (`START_<NAME>`, a header row, rows, `END_<NAME>`) and the NODES
//!   (`NodeDesc,NumPorts,NodeType,ClassVersion,BaseVersion,SystemImageGUID,NodeGUID,PortGUID,
//!   DeviceID,PartitionCap,revision,VendorID,LocalPortNum`), PORTS (`NodeGuid,PortGuid,PortNum,
//!   MKey,GIDPrfx,MSMLID,LID,CapMsk,M_KeyLeasePeriod,DiagCode,LinkWidthActv,LinkWidthSup,
//!   LinkWidthEn,LocalPortNum,LinkSpeedEn,LinkSpeedActv,LMC,MKeyProtBits,LinkDownDefState,
//!   PortPhyState,PortState,...`) and LINKS (`NodeGuid1,PortNum1,NodeGuid2,PortNum2`) header
//!   rows as published db_csv readers declare them (a Rust loader of ibdiagnet2 CSV dumps; a Go
//!   `ParseDBCSV` test with real rows; a Python `ibdiagnet2.db_csv` reader);
//! - SM_INFO's `NodeGUID`, `PortNumber`, `SmState`, `Priority` and PM_INFO's `NodeGUID`,
//!   `PortGUID`, `PortNumber`, `SymbolErrorCounter`, `LinkDownedCounter`, `PortRcvErrors`, ...
//!   as those readers (and a shell collector of PM_INFO) name them;
//! - LinkSpeedActv as `(extended << 8) | base` and LinkWidthActv as the PortInfo bit (1 1X, 2 4X,
//!   4 8X, 8 12X, 16 2X), as the Python reader decodes them and the Go test's rows show
//!   (`LinkSpeedActv` 2048: NDR); SmState 0 to 3 as `sminfo(8)` lists them;
//! - the options `-o <out-dir>`, `-i <dev>`, `--lw <1x|4x|...>`, `--ls <2.5|...>` from the
//!   ibdiagnet manual page (ibdiagnet(1), ibutils), in ibdiagnet2's long spelling.
//!
//! The design topology is a file in ibnetdiscover's format (infiniband-diags' topology file
//! format, what `ibnetdiscover` writes and `ibnetdiscover --diff` compares against), compared by
//! node description and port so a replaced adapter (a new GUID) keeps its place.

pub(crate) mod check;
pub(crate) mod options;
pub mod parse;
pub(crate) mod run;
pub(crate) mod sim;
pub mod types;

pub use check::{Checked, Finding, Manager, Verdict};
pub use parse::parse;
pub use types::DbCsv;

#[cfg(test)]
mod tests;
