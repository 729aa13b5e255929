//! The demo watching itself: its router and federates drawn as a topology (one router, each
//! federate its child) on the monitor's page, beside the plan view. The figures are
//! rendered in this process for each of them, in the same Prometheus text a `/metrics`
//! endpoint serves, and handed to the monitor without a socket: the router's from its
//! host's stats (and the demo process's CPU and memory, since it runs everything), each
//! federate's from the figures it publishes to a [`FederateBoard`].

use super::plan_view::{self, PlanView};
use super::DemoError;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use trellis_core::topology::Topology;
use trellis_monitor::federation::WatchSetup;
use trellis_monitor::metrics::{router, Exposition, FederateBoard, ProcessKind, ProcessProbe};
use trellis_monitor::monitor::{
    self, MonitorError, MonitorSetup, Running, SidePage, Source, Target,
};
use trellis_net::rti::LocalSettings;
use trellis_net::{Endpoint, Host};

/// The demo's processes as a topology file: `router` listening at `at`, the federates below.
fn topology(router: &str, at: &Endpoint, federates: &[&str]) -> Result<Topology, DemoError> {
    let mut text = format!("[[router]]\nname = \"{router}\"\nlisten = [\"{at}\"]\n\n");
    for name in federates {
        text += &format!("[[federate]]\nname = \"{name}\"\nparent = \"{router}\"\n\n");
    }
    Topology::from_toml(&text).map_err(|e| DemoError::Failed(format!("the demo's topology: {e}")))
}

fn router_source(name: &str, host: Host) -> Source {
    let (name, probe) = (name.to_owned(), Mutex::new(ProcessProbe::new()));
    Source::Local(Arc::new(move || {
        let mut out = Exposition::new(&name);
        probe
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .write(&mut out, ProcessKind::Router);
        if let Ok(stats) = host.stats() {
            router::write_host(&mut out, &stats);
        }
        out.render()
    }))
}

fn federate_source(name: &str, board: FederateBoard) -> Source {
    let name = name.to_owned();
    Source::Local(Arc::new(move || {
        let mut out = Exposition::new(&name);
        for figures in board.snapshot().iter().filter(|f| f.federate == name) {
            figures.write(&mut out);
        }
        out.render()
    }))
}

/// What the demo's page shows and where its figures come from.
pub(super) struct Watched<'a> {
    pub router: &'a str,
    pub host: &'a Host,
    pub at: &'a Endpoint,
    pub federates: &'a [&'a str],
    pub board: &'a FederateBoard,
    pub plan: &'a Arc<PlanView>,
    pub federation: &'a str,
}

impl Watched<'_> {
    fn setup(&self) -> Result<MonitorSetup, DemoError> {
        let topology = topology(self.router, self.at, self.federates)?;
        let mut setup = MonitorSetup::from_topology(&topology, "trellis demo");
        let index = |name: &str| setup.graph.node_index(name).expect("a node of the demo");
        let mut targets = vec![Target {
            node: index(self.router),
            source: router_source(self.router, self.host.clone()),
        }];
        for name in self.federates {
            targets.push(Target {
                node: index(name),
                source: federate_source(name, self.board.clone()),
            });
        }
        setup.targets = targets;
        let plan = self.plan.clone();
        setup.side = Some(SidePage {
            html: plan_view::PAGE,
            script: plan_view::SCRIPT,
            feed: Arc::new(move || plan.json()),
        });
        // The federation panel reads the demo's own federation from its MOM, as any tool.
        let settings = LocalSettings::parse(Some(&self.at.to_string()))
            .map_err(|e| DemoError::Failed(format!("the demo router's address: {e}")))?;
        setup.federation = Some(WatchSetup {
            settings,
            federation: self.federation.to_owned(),
            fom_path: Vec::new(),
            built_in: vec![("trellis-demo.xml", super::DEMO_FOM)],
        });
        Ok(setup)
    }

    /// Serve the page on `listen`; if that port is taken, on any free port of its address.
    pub(super) fn serve(&self, listen: SocketAddr) -> Result<Running, DemoError> {
        match monitor::start(self.setup()?, listen) {
            Err(MonitorError::Listen { source, .. })
                if source.kind() == std::io::ErrorKind::AddrInUse && listen.port() != 0 =>
            {
                let any = SocketAddr::new(listen.ip(), 0);
                Ok(monitor::start(self.setup()?, any)?)
            }
            started => Ok(started?),
        }
    }
}
