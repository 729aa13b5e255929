//! Topologies of the shapes the papers ran (DESIGN.md §2's table), generated from a few
//! sizes, for `trellis topology gen`.
//!
//! Names follow the structure so a reader can place a process: tree routers are named by
//! their path from the root (`root`, `root.2`, `root.2.1`), mesh routers `r1` … `rN`,
//! distribution nodes `d1` … `dN`, and federates `fed-1` … `fed-N` in the order they are
//! attached. Every router, and every federate that some other process dials, listens on
//! `host` with its own port counted up from `base_port` (the same port number for `udp://`
//! when the pipe is udp), or on `mem://<name>` for the memory pipe.

use super::failover::MAX_FAILOVER_COMBINATIONS;
use super::file::{CliqueEntry, FederateEntry, RouterEntry, TopologyFile};
use super::link::{LinkOverrides, Pipe};
use super::model::Topology;
use super::validate::MAX_NODES;
use super::TopologyError;
use rustc_hash::{FxHashMap, FxHashSet};
use thiserror::Error;

/// A shape and its sizes. `federates` always counts federates per attachment point named
/// in the variant's description.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Shape {
    /// RTI-NG's centralized interconnect, a star: one router (`hub`), every federate its
    /// child. A federate-to-federate message crosses 2 links.
    Centralized {
        /// Federates attached to the hub.
        federates: usize,
    },
    /// RTI-NG's collocated interconnect: every federate in one clique (`all`), no router.
    Collocated {
        /// Federates in the clique.
        federates: usize,
    },
    /// RTI-s tree routers: `levels` levels of routers counting the leaf routers (so 4 means
    /// three levels above the leaves), `fanout` children per router, `federates` children
    /// per leaf router. A message crosses 2 + 2h links, h being the levels between the leaf
    /// routers and the common ancestor.
    Tree {
        /// Children per router above the leaves.
        fanout: usize,
        /// Router levels, leaves included.
        levels: usize,
        /// Federates per leaf router.
        federates: usize,
    },
    /// JESPP mesh routers: `routers` routers in one clique (`mesh`), `federates` children
    /// each. A message crosses 2 links under one router, 3 across the mesh.
    Mesh {
        /// Routers in the mesh.
        routers: usize,
        /// Federates under each router.
        federates: usize,
    },
    /// RTI-NG's hierarchical interconnect: `segments` distribution nodes in a clique (`top`);
    /// each forms a segment (clique `segment-i`) with its `federates` federates.
    Hierarchical {
        /// Distribution nodes, one per segment.
        segments: usize,
        /// Federates per segment.
        federates: usize,
    },
    /// RTI-NG's distributor per federate: each federate the only child of its own
    /// distributor, the distributors in one clique (`distributors`).
    DistributorPerFederate {
        /// Federates, each with its own distributor.
        federates: usize,
    },
    /// `roots` routers in one clique (`roots`), each the root of a tree shaped as in
    /// [`Shape::Tree`] (`r1`, `r1.1`, …).
    MeshOfTrees {
        /// Routers in the top clique, each a tree root.
        roots: usize,
        /// Children per router above the leaves.
        fanout: usize,
        /// Router levels of each tree, leaves included.
        levels: usize,
        /// Federates per leaf router.
        federates: usize,
    },
    /// Meshes of `routers` routers each, nested `levels` deep through shared routers
    /// (DESIGN.md §2: blocks nested through shared routers). The top mesh is clique `mesh`
    /// of routers `r1` …. Above the last level, each of the first `fanout` routers a mesh
    /// adds, say `X`, heads a lower mesh, clique `mesh-X`: `X` itself and `routers` minus
    /// one new routers `X.1` …. Every router that heads no lower mesh has `federates`
    /// children. One level is [`Shape::Mesh`].
    TreeOfMeshes {
        /// Routers per mesh, the shared head included.
        routers: usize,
        /// Routers of a mesh that head a lower mesh.
        fanout: usize,
        /// Mesh levels, nested through shared routers.
        levels: usize,
        /// Federates under each router that heads no lower mesh.
        federates: usize,
    },
}

impl Shape {
    /// The name `trellis topology gen` knows the shape by.
    pub fn name(&self) -> &'static str {
        match self {
            Shape::Centralized { .. } => "centralized",
            Shape::Collocated { .. } => "collocated",
            Shape::Tree { .. } => "tree",
            Shape::Mesh { .. } => "mesh",
            Shape::Hierarchical { .. } => "hierarchical",
            Shape::DistributorPerFederate { .. } => "distributor-per-federate",
            Shape::MeshOfTrees { .. } => "mesh-of-trees",
            Shape::TreeOfMeshes { .. } => "tree-of-meshes",
        }
    }
}

/// How `trellis topology gen` fills in what a [`Shape`] leaves open: addresses, ports and link
/// options.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GenerateOptions {
    /// Host every listen and metrics address uses.
    pub host: String,
    /// First port; each listening process takes the next one up.
    pub base_port: u16,
    /// Written as the file's default pipe.
    pub pipe: Pipe,
    /// Written as the file's default bundling delay; `None` leaves the built-in default.
    pub bundling_delay_ms: Option<u64>,
    /// Written as the file's default per-link queue limit; `None` leaves the built-in default.
    pub queue_limit_bytes: Option<u64>,
    /// Give nodes an alternate parent (N+1 failover): see `add_alternates`.
    pub alternates: bool,
    /// Give every router a `metrics` address on `host`, ports counted up from this one, so
    /// `trellis monitor` and Prometheus find them without editing the file.
    pub metrics_base_port: Option<u16>,
}

impl Default for GenerateOptions {
    fn default() -> Self {
        GenerateOptions {
            host: "127.0.0.1".to_owned(),
            base_port: 7000,
            pipe: Pipe::Tcp,
            bundling_delay_ms: None,
            queue_limit_bytes: None,
            alternates: false,
            metrics_base_port: None,
        }
    }
}

/// Why a shape's sizes give no valid topology.
#[derive(Debug, Error)]
pub enum GenerateError {
    /// A size below what the shape needs.
    #[error("{shape}: {parameter} must be at least {min}, got {got}")]
    TooFew {
        /// The shape's name, as `trellis topology gen` knows it.
        shape: &'static str,
        /// Named as the shape's field is.
        parameter: &'static str,
        /// The smallest size allowed.
        min: usize,
        /// The size given.
        got: usize,
    },
    /// tree-of-meshes: more lower meshes per mesh than a mesh has new routers to head them.
    #[error(
        "tree-of-meshes: a fanout of {fanout} needs meshes of at least {} routers, got {routers}",
        fanout + 1
    )]
    FanoutAboveMesh {
        /// Lower meshes each mesh heads.
        fanout: usize,
        /// Routers per mesh.
        routers: usize,
    },
    /// The shape would declare more than [`MAX_NODES`] routers and federates.
    #[error("{shape} would have more than {limit} routers and federates")]
    TooLarge {
        /// The shape's name.
        shape: &'static str,
        /// The limit it would exceed.
        limit: usize,
    },
    /// Counting ports up from `base_port` would pass 65535.
    #[error("{processes} listening processes need ports {base_port} to {}, past 65535",
        *base_port as usize + processes - 1)]
    PortsExhausted {
        /// The first port.
        base_port: u16,
        /// Listening processes that each need a port.
        processes: usize,
    },
    /// The generated file failed validation: a bug in the generator, reported rather than hidden.
    #[error(transparent)]
    Invalid(#[from] TopologyError),
}

/// The topology of `shape`, built as a file and checked like any other.
pub fn generate(shape: &Shape, options: &GenerateOptions) -> Result<Topology, GenerateError> {
    let mut build = Builder {
        shape: shape.name(),
        file: TopologyFile::default(),
        nodes: 0,
    };
    build.shape(shape)?;
    let mut file = build.file;
    file.defaults = LinkOverrides {
        pipe: Some(options.pipe),
        bundling_delay_ms: options.bundling_delay_ms,
        queue_limit_bytes: options.queue_limit_bytes,
    };
    if options.alternates {
        add_alternates(&mut file);
    }
    assign_addresses(&mut file, options)?;
    Ok(Topology::from_file(&file)?)
}

/// N+1 failover: a node whose parent is P gets one alternate, the next of P's siblings
/// (the routers with P's parent; for a P without parent, the routers of P's first clique),
/// so it fails over to a router on P's level. Every parent a node can take is then nearer
/// the top than the node itself, so no combination of attachments closes a cycle.
/// Federates always get one; routers do in file order (top levels first) while the
/// combinations of their attachments stay within what validation checks
/// ([`MAX_FAILOVER_COMBINATIONS`]).
fn add_alternates(file: &mut TopologyFile) {
    let mut siblings: FxHashMap<Option<String>, Vec<String>> = FxHashMap::default();
    for router in &file.routers {
        siblings
            .entry(router.parent.clone())
            .or_default()
            .push(router.name.clone());
    }
    let routers: FxHashSet<&str> = file.routers.iter().map(|r| r.name.as_str()).collect();
    let parent_of: FxHashMap<&str, Option<&str>> = file
        .routers
        .iter()
        .map(|r| (r.name.as_str(), r.parent.as_deref()))
        .collect();
    let next_sibling = |parent: &str| -> Option<String> {
        let group: Vec<String> = match parent_of.get(parent)? {
            Some(grand) => siblings.get(&Some((*grand).to_owned()))?.clone(),
            None => file
                .cliques
                .iter()
                .find(|c| c.members.iter().any(|m| m == parent))?
                .members
                .iter()
                .filter(|m| routers.contains(m.as_str()))
                .cloned()
                .collect(),
        };
        let at = group.iter().position(|n| n == parent)?;
        (group.len() > 1).then(|| group[(at + 1) % group.len()].clone())
    };
    let router_alternates: Vec<Option<String>> = file
        .routers
        .iter()
        .map(|r| r.parent.as_deref().and_then(next_sibling))
        .collect();
    let federate_alternates: Vec<Option<String>> = file
        .federates
        .iter()
        .map(|f| f.parent.as_deref().and_then(next_sibling))
        .collect();
    let mut combinations = 1u64;
    for (router, alternate) in file.routers.iter_mut().zip(router_alternates) {
        if let Some(alternate) = alternate {
            if combinations * 2 > MAX_FAILOVER_COMBINATIONS {
                break;
            }
            combinations *= 2;
            router.alternates = vec![alternate];
        }
    }
    for (federate, alternate) in file.federates.iter_mut().zip(federate_alternates) {
        federate.alternates = alternate.into_iter().collect();
    }
}

struct Builder {
    shape: &'static str,
    file: TopologyFile,
    nodes: usize,
}

impl Builder {
    /// The routers, federates and cliques of `shape`.
    fn shape(&mut self, shape: &Shape) -> Result<(), GenerateError> {
        match *shape {
            Shape::Centralized { federates } => {
                self.router("hub".to_owned(), None)?;
                self.federates("hub", federates)?;
            }
            Shape::Collocated { federates } => {
                self.at_least("federates", 2, federates)?;
                let all = self.federates_in_clique(federates)?;
                self.clique("all".to_owned(), all);
            }
            Shape::Tree {
                fanout,
                levels,
                federates,
            } => self.tree("root".to_owned(), fanout, levels, federates)?,
            Shape::Mesh { routers, federates } => {
                self.at_least("routers", 2, routers)?;
                self.mesh("mesh".to_owned(), Vec::new(), "r", routers, federates)?;
            }
            Shape::Hierarchical {
                segments,
                federates,
            } => self.hierarchical(segments, federates)?,
            Shape::DistributorPerFederate { federates } => {
                self.distributor_per_federate(federates)?;
            }
            Shape::MeshOfTrees {
                roots,
                fanout,
                levels,
                federates,
            } => self.mesh_of_trees(roots, fanout, levels, federates)?,
            Shape::TreeOfMeshes {
                routers,
                fanout,
                levels,
                federates,
            } => self.tree_of_meshes(routers, fanout, levels, federates)?,
        }
        Ok(())
    }

    fn hierarchical(&mut self, segments: usize, federates: usize) -> Result<(), GenerateError> {
        self.at_least("segments", 1, segments)?;
        self.at_least("federates", 1, federates)?;
        let mut top = Vec::new();
        for segment in 1..=segments {
            let distributor = format!("d{segment}");
            self.router(distributor.clone(), None)?;
            let mut members = vec![distributor.clone()];
            members.extend(self.federates_in_clique(federates)?);
            self.clique(format!("segment-{segment}"), members);
            top.push(distributor);
        }
        if top.len() > 1 {
            self.clique("top".to_owned(), top);
        }
        Ok(())
    }

    fn distributor_per_federate(&mut self, federates: usize) -> Result<(), GenerateError> {
        self.at_least("federates", 2, federates)?;
        let mut distributors = Vec::new();
        for index in 1..=federates {
            let distributor = format!("d{index}");
            self.router(distributor.clone(), None)?;
            self.federates(&distributor, 1)?;
            distributors.push(distributor);
        }
        self.clique("distributors".to_owned(), distributors);
        Ok(())
    }

    fn mesh_of_trees(
        &mut self,
        roots: usize,
        fanout: usize,
        levels: usize,
        federates: usize,
    ) -> Result<(), GenerateError> {
        self.at_least("roots", 2, roots)?;
        let mut top = Vec::new();
        for root in 1..=roots {
            let root = format!("r{root}");
            self.tree(root.clone(), fanout, levels, federates)?;
            top.push(root);
        }
        self.clique("roots".to_owned(), top);
        Ok(())
    }

    fn at_least(
        &self,
        parameter: &'static str,
        min: usize,
        got: usize,
    ) -> Result<(), GenerateError> {
        if got < min {
            return Err(GenerateError::TooFew {
                shape: self.shape,
                parameter,
                min,
                got,
            });
        }
        Ok(())
    }

    /// Counts one more process; stops a shape whose sizes multiply past the limit before
    /// it takes the memory to build.
    fn one_more(&mut self) -> Result<(), GenerateError> {
        self.nodes += 1;
        if self.nodes > MAX_NODES {
            return Err(GenerateError::TooLarge {
                shape: self.shape,
                limit: MAX_NODES,
            });
        }
        Ok(())
    }

    fn router(&mut self, name: String, parent: Option<&str>) -> Result<(), GenerateError> {
        self.one_more()?;
        self.file.routers.push(RouterEntry {
            name,
            parent: parent.map(str::to_owned),
            ..RouterEntry::default()
        });
        Ok(())
    }

    fn federate(&mut self, parent: Option<&str>) -> Result<String, GenerateError> {
        self.one_more()?;
        let name = format!("fed-{}", self.file.federates.len() + 1);
        self.file.federates.push(FederateEntry {
            name: name.clone(),
            parent: parent.map(str::to_owned),
            ..FederateEntry::default()
        });
        Ok(name)
    }

    fn federates(&mut self, parent: &str, count: usize) -> Result<(), GenerateError> {
        for _ in 0..count {
            self.federate(Some(parent))?;
        }
        Ok(())
    }

    fn federates_in_clique(&mut self, count: usize) -> Result<Vec<String>, GenerateError> {
        (0..count).map(|_| self.federate(None)).collect()
    }

    fn clique(&mut self, name: String, members: Vec<String>) {
        self.file.cliques.push(CliqueEntry {
            name,
            members,
            link: LinkOverrides::default(),
        });
    }

    /// A tree grown level by level (not recursively: `levels` comes from the user).
    fn tree(
        &mut self,
        root: String,
        fanout: usize,
        levels: usize,
        federates: usize,
    ) -> Result<(), GenerateError> {
        self.at_least("fanout", 1, fanout)?;
        self.at_least("levels", 1, levels)?;
        self.router(root.clone(), None)?;
        let mut level = vec![root];
        for _ in 1..levels {
            let mut below = Vec::new();
            for parent in &level {
                for child in 1..=fanout {
                    let name = format!("{parent}.{child}");
                    self.router(name.clone(), Some(parent))?;
                    below.push(name);
                }
            }
            level = below;
        }
        for leaf in &level {
            self.federates(leaf, federates)?;
        }
        Ok(())
    }

    /// Adds `new` routers named `{prefix}1` … to a clique with `shared`; returns the new
    /// ones. Federates are left to the caller, who knows which routers head lower meshes.
    fn mesh_routers(
        &mut self,
        clique: String,
        shared: Vec<String>,
        prefix: &str,
        new: usize,
    ) -> Result<Vec<String>, GenerateError> {
        let mut added = Vec::with_capacity(new.min(MAX_NODES));
        for index in 1..=new {
            let name = format!("{prefix}{index}");
            self.router(name.clone(), None)?;
            added.push(name);
        }
        let mut members = shared;
        members.extend(added.iter().cloned());
        self.clique(clique, members);
        Ok(added)
    }

    fn mesh(
        &mut self,
        clique: String,
        shared: Vec<String>,
        prefix: &str,
        routers: usize,
        federates: usize,
    ) -> Result<(), GenerateError> {
        for router in self.mesh_routers(clique, shared, prefix, routers)? {
            self.federates(&router, federates)?;
        }
        Ok(())
    }

    fn tree_of_meshes(
        &mut self,
        routers: usize,
        fanout: usize,
        levels: usize,
        federates: usize,
    ) -> Result<(), GenerateError> {
        self.at_least("routers", 2, routers)?;
        self.at_least("levels", 1, levels)?;
        if levels > 1 {
            self.at_least("fanout", 1, fanout)?;
            if fanout >= routers {
                return Err(GenerateError::FanoutAboveMesh { fanout, routers });
            }
        }
        let top = self.mesh_routers("mesh".to_owned(), Vec::new(), "r", routers)?;
        // Meshes whose routers are still to place, as (the routers the mesh added, its
        // level); a work list, not recursion, since `levels` comes from the user.
        let mut pending = vec![(top, 1)];
        while let Some((own, level)) = pending.pop() {
            for (index, head) in own.into_iter().enumerate() {
                if level < levels && index < fanout {
                    let prefix = format!("{head}.");
                    let clique = format!("mesh-{head}");
                    let below = self.mesh_routers(clique, vec![head], &prefix, routers - 1)?;
                    pending.push((below, level + 1));
                } else {
                    self.federates(&head, federates)?;
                }
            }
        }
        Ok(())
    }
}

/// One port (or `mem://` name) for every router and every federate somebody dials: a
/// parent, or a clique member whose name does not sort first in its clique.
fn assign_addresses(
    file: &mut TopologyFile,
    options: &GenerateOptions,
) -> Result<(), GenerateError> {
    let mut dialed: FxHashSet<String> = FxHashSet::default();
    let parents = file.routers.iter().filter_map(|r| r.parent.clone());
    dialed.extend(parents.chain(file.federates.iter().filter_map(|f| f.parent.clone())));
    for clique in &file.cliques {
        let first = clique.members.iter().min();
        dialed.extend(
            clique
                .members
                .iter()
                .filter(|&member| Some(member) != first)
                .cloned(),
        );
    }
    let listeners = file.routers.len()
        + file
            .federates
            .iter()
            .filter(|federate| dialed.contains(&federate.name))
            .count();
    if options.pipe != Pipe::Memory && options.base_port as usize + listeners > 65536 {
        return Err(GenerateError::PortsExhausted {
            base_port: options.base_port,
            processes: listeners,
        });
    }
    let mut next_port = options.base_port as usize;
    let mut addresses = |name: &str| {
        let port = next_port;
        next_port += 1;
        let tcp = format!("tcp://{}:{port}", options.host);
        match options.pipe {
            Pipe::Tcp => vec![tcp],
            Pipe::Udp => vec![tcp, format!("udp://{}:{port}", options.host)],
            Pipe::Memory => vec![format!("mem://{name}")],
        }
    };
    for router in &mut file.routers {
        router.listen = addresses(&router.name);
    }
    if let Some(base_port) = options.metrics_base_port {
        if base_port as usize + file.routers.len() > 65536 {
            return Err(GenerateError::PortsExhausted {
                base_port,
                processes: file.routers.len(),
            });
        }
        for (router, port) in file.routers.iter_mut().zip(base_port..) {
            router.metrics = Some(format!("{}:{port}", options.host));
        }
    }
    for federate in &mut file.federates {
        if dialed.contains(&federate.name) {
            federate.listen = addresses(&federate.name);
        }
    }
    Ok(())
}
