//! Unit-test support: an engine with the stdlib's builtins bound to one instance of a run over
//! simulated hosts in a temporary folder, inside a stage. A [`TestHostBuilder`] says the model,
//! the hosts (their `sim:` options, groups and vars), whose instance it is (a host's, or the
//! controller's), check mode and a replayed journal; [`TestHost::esxi`] and
//! [`TestHost::guests`] start it with the two labs the tests use.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use cairn_runtime::journal::HostJournal;
use cairn_runtime::sim::{SimHost, SimModel, SimTransport};
use cairn_runtime::{
    Cancel, EventSink, HostContext, HostInfo, LocalTransport, Mode, Role, RunOptions, RunShared,
    Transport, bind_host, build_engine,
};
use rhai::{Dynamic, Engine};

/// One instance of a test run over simulated hosts.
pub(crate) struct TestHost {
    /// The simulated hosts' state root (`<dir>/sim/<host>`); keeps the folder alive.
    pub(crate) dir: tempfile::TempDir,
    pub(crate) engine: Engine,
    pub(crate) host: Arc<HostContext>,
    /// What it was built from, for [`TestHost::again`].
    lab: Lab,
}

/// What a [`TestHost`] is built from.
#[must_use]
pub(crate) struct TestHostBuilder {
    lab: Lab,
    recorded: HostJournal,
}

/// The simulated hosts of a test run and whose instance the engine is bound to.
#[derive(Clone)]
struct Lab {
    check: bool,
    /// A host's name, or any other name: the controller's instance.
    current: String,
    hosts: Vec<LabHost>,
    model: fn() -> SimModel,
    /// The group the test stage runs on.
    stage_group: &'static str,
}

/// One simulated host: its inventory entry and its `sim:` options.
#[derive(Clone)]
struct LabHost {
    info: HostInfo,
    /// `key=value&flag`, as in a `sim:` address; `clock=virtual` is added.
    options: String,
}

/// `sim:` options as a map, `clock=virtual` first so an option may override it.
fn options(text: &str) -> BTreeMap<String, String> {
    let mut map = BTreeMap::from([("clock".to_owned(), "virtual".to_owned())]);
    for pair in text.split('&').filter(|p| !p.is_empty()) {
        let (k, v) = pair.split_once('=').unwrap_or((pair, "true"));
        map.insert(k.to_owned(), v.to_owned());
    }
    map
}

impl TestHost {
    /// A lab of `model`'s hosts, none yet; the stage runs on `all`.
    pub(crate) fn builder(model: fn() -> SimModel) -> TestHostBuilder {
        TestHostBuilder {
            lab: Lab {
                check: false,
                current: String::new(),
                hosts: Vec::new(),
                model,
                stage_group: "all",
            },
            recorded: HostJournal::default(),
        }
    }

    /// The instance of `esx01` (`sim:esxi7` with `esx_options`, in `esxi`, its VM `hpc-vm01`
    /// managed by `vcenter`) beside its management host `vcenter` (`sim:esxi7?role=vcenter`).
    pub(crate) fn esxi(esx_options: &str) -> TestHostBuilder {
        Self::builder(crate::models::esxi7::esxi7)
            .host_in(
                "esx01",
                esx_options,
                &["all", "esxi"],
                &[("vhpc_host", "vcenter"), ("vm", "hpc-vm01")],
            )
            .host("vcenter", "role=vcenter")
            .current("esx01")
            .stage_group("esxi")
    }

    /// `rhel8` guests named with their `sim:` options, and the instance of `current` (a guest,
    /// or `controller`).
    pub(crate) fn guests(guests: &[(&str, &str)], current: &str) -> TestHostBuilder {
        guests
            .iter()
            .fold(
                Self::builder(crate::models::rhel8::rhel8),
                |b, (name, opts)| b.host(name, opts),
            )
            .current(current)
    }

    /// A new instance over the same simulated hosts (a new `cairn run`), live or in check mode.
    pub(crate) fn again(self, check: bool) -> Self {
        let lab = Lab { check, ..self.lab };
        lab.open(self.dir, HostJournal::default())
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

    /// Lets simulated time pass on a host's clock.
    pub(crate) fn sleep(&self, host: &str, seconds: u64) {
        if let Some(t) = self.host.shared.transport(host)
            && let Ok(t) = t.lock()
        {
            let _ = t
                .clock()
                .sleep(std::time::Duration::from_secs(seconds), &Cancel::default());
        }
    }
}

impl TestHostBuilder {
    /// Adds a host in `all` with no vars.
    pub(crate) fn host(self, name: &str, options: &str) -> Self {
        self.host_in(name, options, &["all"], &[])
    }

    /// Adds a host in `groups` with `vars`.
    pub(crate) fn host_in(
        mut self,
        name: &str,
        options: &str,
        groups: &[&str],
        vars: &[(&str, &str)],
    ) -> Self {
        self.lab.hosts.push(LabHost {
            info: HostInfo {
                groups: groups.iter().map(|g| (*g).to_owned()).collect(),
                name: name.to_owned(),
                vars: vars
                    .iter()
                    .map(|(k, v)| ((*k).to_owned(), (*v).into()))
                    .collect(),
            },
            options: options.to_owned(),
        });
        self
    }

    /// The instance is `name`'s: a host's, or (any other name) the controller's.
    pub(crate) fn current(mut self, name: &str) -> Self {
        name.clone_into(&mut self.lab.current);
        self
    }

    /// The group the test stage runs on.
    pub(crate) fn stage_group(mut self, group: &'static str) -> Self {
        self.lab.stage_group = group;
        self
    }

    /// Builtins run in check mode.
    pub(crate) fn check(mut self, check: bool) -> Self {
        self.lab.check = check;
        self
    }

    /// The instance replays `recorded` (a resume).
    pub(crate) fn replaying(mut self, recorded: HostJournal) -> Self {
        self.recorded = recorded;
        self
    }

    /// Opens the simulated hosts in a new temporary folder and binds an engine to the instance.
    pub(crate) fn build(self) -> TestHost {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        self.lab.open(dir, self.recorded)
    }
}

impl Lab {
    /// The run's shared state over the hosts, each opened in `dir`, and the instance in a stage.
    fn open(self, dir: tempfile::TempDir, recorded: HostJournal) -> TestHost {
        let model: Arc<SimModel> = Arc::new((self.model)());
        let infos: Vec<HostInfo> = self.hosts.iter().map(|h| h.info.clone()).collect();
        let run_options = RunOptions {
            check: self.check,
            ..RunOptions::default()
        };
        let mut shared = RunShared::new(
            1,
            infos.clone(),
            run_options,
            cairn_runtime::RunParams::default(),
            Cancel::default(),
            EventSink::none(),
        );
        for h in &self.hosts {
            let name = &h.info.name;
            let transport = SimTransport::new(
                name,
                dir.path().join("sim").join(name),
                model.clone(),
                options(&h.options),
            )
            .unwrap_or_else(|e| panic!("{e}"));
            let transport: Box<dyn Transport> = Box::new(transport);
            shared.add_transport(name.clone(), Arc::new(Mutex::new(transport)));
        }
        let (role, info, transport) = match infos.into_iter().find(|i| i.name == self.current) {
            Some(info) => {
                let transport = shared
                    .transport(&info.name)
                    .cloned()
                    .unwrap_or_else(|| panic!("no {}", info.name));
                (Role::Host, info, transport)
            }
            None => {
                let local: Box<dyn Transport> = Box::new(LocalTransport);
                let info = HostInfo {
                    groups: vec![],
                    name: self.current.clone(),
                    vars: BTreeMap::new(),
                };
                (Role::Controller, info, Arc::new(Mutex::new(local)))
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
        host.enter_stage("test", self.stage_group)
            .unwrap_or_else(|e| panic!("{e}"));
        let mut engine = build_engine(
            &cairn_runtime::ImportPath::at(dir.path()),
            &crate::libraries(),
            1_000_000,
        );
        bind_host(&mut engine, &host);
        TestHost {
            dir,
            engine,
            host,
            lab: self,
        }
    }
}

/// Installs MFT and NMST and reboots: the tools work afterwards.
pub(crate) const INSTALL_TOOLS: &str = r#"
    esxcli::vib_install("/vmfs/volumes/nfs/mft-4.22.1.11-10EM-703.0.0.18644231.x86_64.vib", #{ force: true });
    esxcli::vib_install("/vmfs/volumes/nfs/nmst-4.22.1.11-1OEM.703.0.0.18644231.x86_64.vib", #{ force: true });
    reboot_if_pending();
    mst::start();
"#;
