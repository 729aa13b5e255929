//! `trellis router ARGS` as a child process, for the tests that run the real binary: the
//! endpoints it printed ("listening on …", one line per `--listen`), killed when dropped.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use trellis_net::Endpoint;

pub struct RouterProcess {
    pub child: Child,
    pub endpoints: Vec<Endpoint>,
}

/// `trellis router ARGS` with its stdout piped and errors-only logging.
pub fn spawn(args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_trellis"))
        .arg("router")
        .args(args)
        .env("TRELLIS_LOG", "error")
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("trellis runs")
}

impl RouterProcess {
    pub fn start(args: &[&str]) -> RouterProcess {
        let mut child = spawn(args);
        let stdout = child.stdout.take().expect("stdout is piped");
        let mut lines = BufReader::new(stdout).lines();
        let listens = args.iter().filter(|a| **a == "--listen").count();
        let endpoints = (0..listens)
            .map(|_| {
                let line = (lines.next())
                    .expect("router prints where it listens")
                    .expect("utf-8");
                let at = line
                    .strip_prefix("listening on ")
                    .expect("a listening line");
                at.parse().expect("an endpoint")
            })
            .collect();
        RouterProcess { child, endpoints }
    }

    /// Where it listens first.
    pub fn endpoint(&self) -> Endpoint {
        self.endpoints[0].clone()
    }
}

impl Drop for RouterProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
