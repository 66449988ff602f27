//! Unit-test support: an engine with the stdlib's builtins bound to one simulated `esxi7` host
//! (and a management host `vcenter`, `sim:esxi7?role=vcenter`), inside a stage.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use cairn_runtime::journal::HostJournal;
use cairn_runtime::sim::{SimHost, SimModel, SimTransport};
use cairn_runtime::{
    Cancel, EventSink, HostContext, HostInfo, Mode, Role, RunOptions, RunShared, Transport,
    bind_host, build_engine,
};
use rhai::{Dynamic, Engine};

/// One ESXi host's instance for tests.
pub(crate) struct TestHost {
    /// Keeps the state folder alive.
    pub(crate) dir: tempfile::TempDir,
    pub(crate) engine: Engine,
    pub(crate) host: Arc<HostContext>,
}

fn options(text: &str) -> BTreeMap<String, String> {
    let mut map = BTreeMap::from([("clock".to_owned(), "virtual".to_owned())]);
    for pair in text.split('&').filter(|p| !p.is_empty()) {
        let (k, v) = pair.split_once('=').unwrap_or((pair, "true"));
        map.insert(k.to_owned(), v.to_owned());
    }
    map
}

impl TestHost {
    /// `esx01` with `sim:esxi7` options, and `vcenter`; `check` runs builtins in check mode.
    pub(crate) fn new(esx_options: &str, check: bool) -> Self {
        Self::in_dir(
            tempfile::tempdir().unwrap_or_else(|e| panic!("{e}")),
            esx_options,
            check,
            HostJournal::default(),
        )
    }

    /// `esx01` live, replaying `recorded` (a resume).
    pub(crate) fn replaying(esx_options: &str, recorded: HostJournal) -> Self {
        Self::in_dir(
            tempfile::tempdir().unwrap_or_else(|e| panic!("{e}")),
            esx_options,
            false,
            recorded,
        )
    }

    /// A new instance over the same simulated hosts (a new `cairn run`).
    pub(crate) fn again(self, check: bool) -> Self {
        Self::in_dir(self.dir, "", check, HostJournal::default())
    }

    fn in_dir(
        dir: tempfile::TempDir,
        esx_options: &str,
        check: bool,
        recorded: HostJournal,
    ) -> Self {
        let model: Arc<SimModel> = Arc::new(crate::models::esxi7::esxi7());
        let esx = HostInfo {
            groups: vec!["all".into(), "esxi".into()],
            name: "esx01".into(),
            vars: BTreeMap::from([
                ("vhpc_host".to_owned(), "vcenter".into()),
                ("vm".to_owned(), "hpc-vm01".into()),
            ]),
        };
        let vcenter = HostInfo {
            groups: vec!["all".into()],
            name: "vcenter".into(),
            vars: BTreeMap::new(),
        };
        let run_options = RunOptions {
            check,
            ..RunOptions::default()
        };
        let mut shared = RunShared::new(
            1,
            vec![esx.clone(), vcenter],
            run_options,
            BTreeMap::new(),
            Cancel::default(),
            EventSink::none(),
        );
        for (name, opts) in [("esx01", esx_options), ("vcenter", "role=vcenter")] {
            let transport = SimTransport::new(
                name,
                dir.path().join("sim").join(name),
                model.clone(),
                options(opts),
            )
            .unwrap_or_else(|e| panic!("{e}"));
            let transport: Box<dyn Transport> = Box::new(transport);
            shared.add_transport(name.to_owned(), Arc::new(Mutex::new(transport)));
        }
        let transport = shared
            .transport("esx01")
            .cloned()
            .unwrap_or_else(|| panic!("no esx01"));
        let host = Arc::new(HostContext::new(
            esx,
            Role::Host,
            Mode::Live,
            Arc::new(shared),
            transport,
            recorded,
            None,
            "test.rhai".into(),
        ));
        host.enter_stage("test", "esxi")
            .unwrap_or_else(|e| panic!("{e}"));
        let mut engine = build_engine(
            &cairn_runtime::ImportPath::at(dir.path()),
            &crate::libraries(),
            1_000_000,
        );
        bind_host(&mut engine, &host);
        Self { dir, engine, host }
    }

    /// Evaluates a script; panics with rhai's error.
    pub(crate) fn eval(&self, script: &str) -> Dynamic {
        self.engine
            .eval::<Dynamic>(script)
            .unwrap_or_else(|e| panic!("{script}: {e}"))
    }

    /// Evaluates a script for its effects.
    pub(crate) fn run(&self, script: &str) {
        let _ = self.eval(script);
    }

    /// Evaluates a script that must fail; returns the error's text.
    pub(crate) fn error(&self, script: &str) -> String {
        match self.engine.eval::<Dynamic>(script) {
            Ok(value) => panic!("{script} returned {value}"),
            Err(e) => cairn_runtime::error_message(&e),
        }
    }

    /// A simulated host's folder.
    pub(crate) fn sim_dir(&self, name: &str) -> PathBuf {
        self.dir.path().join("sim").join(name)
    }

    /// The commands a simulated host ran.
    pub(crate) fn commands(&self, name: &str) -> Vec<Vec<String>> {
        SimHost::command_log(&self.sim_dir(name))
    }

    /// Whether the instance owes a reboot.
    pub(crate) fn reboot_pending(&self) -> bool {
        self.host.reboot_pending().is_some()
    }

    /// The changes this instance made.
    pub(crate) fn changes(&self) -> Vec<String> {
        self.host.changes()
    }
}

/// Installs MFT and NMST and reboots: the tools work afterwards.
pub(crate) const INSTALL_TOOLS: &str = r#"
    esxcli::vib_install("/vmfs/volumes/nfs/mft-4.22.1.11-10EM-703.0.0.18644231.x86_64.vib", #{ force: true });
    esxcli::vib_install("/vmfs/volumes/nfs/nmst-4.22.1.11-1OEM.703.0.0.18644231.x86_64.vib", #{ force: true });
    reboot_if_pending();
    mst::start();
"#;
