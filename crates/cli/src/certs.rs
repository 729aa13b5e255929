//! `trellis certs`: development certificates for every node of a topology.

use anyhow::Result;
use clap::Args;
use std::path::PathBuf;
use trellis_tools::certs::{write_for_topology, MAX_DAYS};

#[derive(Args)]
#[command(after_help = "Example:\n  trellis certs tree.toml --out certs\n  \
    trellis router --listen tls://0.0.0.0:7000 --tls-cert certs/root.pem \\\n    \
    --tls-key certs/root.key --tls-ca certs/ca.pem --mtls")]
pub(crate) struct CertsArgs {
    /// The topology file whose routers and federates get certificates.
    topology: PathBuf,
    /// Folder to write into: ca.pem and ca.key (kept if there already), NAME.pem and
    /// NAME.key per node.
    #[arg(long, default_value = "certs")]
    out: PathBuf,
    /// Days the certificates are valid for.
    #[arg(long, default_value_t = 365, value_parser = clap::value_parser!(u32).range(1..=i64::from(MAX_DAYS)))]
    days: u32,
}

pub(crate) fn run(args: CertsArgs) -> Result<()> {
    let topology = crate::topology::load(&args.topology)?;
    let written = write_for_topology(&topology, &args.out, args.days)?;
    let made = if written.ca_reused { "kept" } else { "made" };
    println!("CA {made}: {}", written.ca.display());
    for (name, cert, key) in &written.nodes {
        println!("{name}: {} {}", cert.display(), key.display());
    }
    println!(
        "Development certificates, keys unencrypted: for production use your own CA (the \
         organizational unit says the role: trellis-router or trellis-federate)."
    );
    Ok(())
}
