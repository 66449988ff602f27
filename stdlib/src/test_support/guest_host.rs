//! Unit-test support: an engine with the stdlib's builtins bound to one instance of a run over
//! simulated `rhel8` guests in a temporary folder, inside a stage.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use cairn_runtime::journal::HostJournal;
use cairn_runtime::sim::{SimModel, SimTransport};
use cairn_runtime::{
    Cancel, EventSink, HostContext, HostInfo, LocalTransport, Mode, Role, RunOptions, RunShared,
    Transport, bind_host, build_engine,
};
use rhai::{Dynamic, Engine};

/// A run's instance for tests.
pub(crate) struct TestHost {
    /// The simulated hosts' state root (`<dir>/sim/<host>`).
    pub(crate) dir: tempfile::TempDir,
    pub(crate) engine: Engine,
    pub(crate) host: Arc<HostContext>,
}

impl TestHost {
    /// Guests named with their `sim:rhel8` options (`clock=virtual` is added), and the instance
    /// of `current` (a guest, or `controller`).
    pub(crate) fn new(guests: &[(&str, &str)], current: &str) -> Self {
        Self::replaying(guests, current, HostJournal::default())
    }

    /// As [`TestHost::new`], the instance replaying `recorded` (a resume).
    pub(crate) fn replaying(guests: &[(&str, &str)], current: &str, recorded: HostJournal) -> Self {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let model: Arc<SimModel> = Arc::new(crate::models::rhel8::rhel8());
        let infos: Vec<HostInfo> = guests
            .iter()
            .map(|(name, _)| HostInfo {
                groups: vec!["all".into()],
                name: (*name).to_owned(),
                vars: BTreeMap::new(),
            })
            .collect();
        let mut shared = RunShared::new(
            1,
            infos.clone(),
            RunOptions::default(),
            BTreeMap::new(),
            Cancel::default(),
            EventSink::none(),
        );
        for (name, options) in guests {
            let mut map = BTreeMap::from([("clock".to_owned(), "virtual".to_owned())]);
            for pair in options.split('&').filter(|p| !p.is_empty()) {
                let (k, v) = pair.split_once('=').unwrap_or((pair, "true"));
                map.insert(k.to_owned(), v.to_owned());
            }
            let transport =
                SimTransport::new(name, dir.path().join("sim").join(name), model.clone(), map)
                    .unwrap_or_else(|e| panic!("{e}"));
            let transport: Box<dyn Transport> = Box::new(transport);
            shared.add_transport((*name).to_owned(), Arc::new(Mutex::new(transport)));
        }
        let (role, info, transport) = match shared.transport(current) {
            Some(t) => (
                Role::Host,
                infos
                    .iter()
                    .find(|i| i.name == current)
                    .cloned()
                    .unwrap_or_else(|| panic!("no {current}")),
                t.clone(),
            ),
            None => {
                let t: Box<dyn Transport> = Box::new(LocalTransport);
                (
                    Role::Controller,
                    HostInfo {
                        groups: vec![],
                        name: current.to_owned(),
                        vars: BTreeMap::new(),
                    },
                    Arc::new(Mutex::new(t)),
                )
            }
        };
        let host = Arc::new(HostContext::new(
            info,
            role,
            Mode::Live,
            Arc::new(shared),
            transport,
            recorded,
            None,
            "test.rhai".into(),
        ));
        host.enter_stage("test", "all")
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

    /// Evaluates a script that must fail; returns the error's text.
    pub(crate) fn error(&self, script: &str) -> String {
        match self.engine.eval::<Dynamic>(script) {
            Ok(value) => panic!("{script} returned {value}"),
            Err(e) => cairn_runtime::error_message(&e),
        }
    }

    /// Lets simulated time pass on a guest's clock.
    pub(crate) fn sleep(&self, guest: &str, seconds: u64) {
        if let Some(t) = self.host.shared.transport(guest)
            && let Ok(t) = t.lock()
        {
            let _ = t
                .clock()
                .sleep(std::time::Duration::from_secs(seconds), &Cancel::default());
        }
    }
}
