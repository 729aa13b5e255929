//! What the monitor's tests share: fake processes serving `/metrics` as the contract says
//! (written by hand here, so the monitor's reader is checked against the contract's text,
//! not against the writer it ships with), and a reader of the page's event stream.

#![allow(dead_code)] // each test file uses a part

use axum::routing::get as route_get;
use serde_json::Value;
use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// One fake process: its name, the links it reports and counters that grow by `rate`
/// messages per scrape on every link, each way.
pub struct FakeProcess {
    pub name: String,
    pub peers: Vec<String>,
    pub rate: u64,
    pub sent: u64,
    pub cpu: f64,
    /// Answer 503 (as a process that stopped would not answer at all).
    pub silent: bool,
}

impl FakeProcess {
    pub fn new(name: &str, peers: &[&str]) -> FakeProcess {
        FakeProcess {
            name: name.to_owned(),
            peers: peers.iter().map(|p| p.to_string()).collect(),
            rate: 0,
            sent: 0,
            cpu: 0.0,
            silent: false,
        }
    }

    /// One scrape's text; counters move on.
    fn exposition(&mut self) -> String {
        self.sent += self.rate;
        self.cpu += 0.25;
        let p = &self.name;
        let mut text = format!(
            "# TYPE trellis_process_info gauge\n\
             trellis_process_info{{process=\"{p}\",kind=\"router\",version=\"0.1.0\"}} 1\n\
             trellis_process_cpu_seconds_total{{process=\"{p}\",mode=\"user\"}} {}\n\
             trellis_process_cpu_seconds_total{{process=\"{p}\",mode=\"system\"}} {}\n\
             trellis_process_resident_memory_bytes{{process=\"{p}\"}} 10485760\n\
             trellis_host_cpu_count{{process=\"{p}\"}} 2\n",
            self.cpu,
            self.cpu / 5.0
        );
        for (i, peer) in self.peers.iter().enumerate() {
            let labels = format!(
                "process=\"{p}\",link=\"{i}\",peer=\"{peer}\",role=\"peer\",federation=\"\""
            );
            text += &format!(
                "trellis_link_messages_total{{{labels},direction=\"in\"}} {}\n\
                 trellis_link_messages_total{{{labels},direction=\"out\"}} {}\n\
                 trellis_link_queue_depth{{{labels},class=\"reliable\"}} 1\n\
                 trellis_link_queue_depth{{{labels},class=\"best_effort\"}} 0\n\
                 trellis_link_up{{{labels}}} 1\n",
                self.sent,
                self.sent * 2
            );
        }
        text
    }
}

/// Fake processes on loopback, each on a port of its own, served by one runtime thread.
pub struct FakeProcesses {
    pub processes: Vec<Arc<Mutex<FakeProcess>>>,
    pub addresses: Vec<SocketAddr>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl FakeProcesses {
    pub fn start(processes: Vec<FakeProcess>) -> FakeProcesses {
        let processes: Vec<_> = processes
            .into_iter()
            .map(|p| Arc::new(Mutex::new(p)))
            .collect();
        let listeners: Vec<std::net::TcpListener> = processes
            .iter()
            .map(|_| {
                let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
                listener.set_nonblocking(true).unwrap();
                listener
            })
            .collect();
        let addresses = listeners.iter().map(|l| l.local_addr().unwrap()).collect();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let served = processes.clone();
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            runtime.block_on(async move {
                for (listener, process) in listeners.into_iter().zip(served) {
                    let app = axum::Router::new().route(
                        "/metrics",
                        route_get(move || {
                            let process = process.clone();
                            async move {
                                let mut process = process.lock().unwrap();
                                if process.silent {
                                    Err(axum::http::StatusCode::SERVICE_UNAVAILABLE)
                                } else {
                                    Ok(process.exposition())
                                }
                            }
                        }),
                    );
                    let listener = tokio::net::TcpListener::from_std(listener).unwrap();
                    tokio::spawn(async move { axum::serve(listener, app).await });
                }
                let _ = stopped.await;
            });
        });
        FakeProcesses {
            processes,
            addresses,
            stop: Some(stop),
            thread: Some(thread),
        }
    }

    pub fn set(&self, index: usize, change: impl FnOnce(&mut FakeProcess)) {
        change(&mut self.processes[index].lock().unwrap());
    }
}

impl Drop for FakeProcesses {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// `GET path` on the monitor, the whole body.
pub fn get(address: SocketAddr, path: &str) -> String {
    let mut stream = TcpStream::connect(address).unwrap();
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut answer = String::new();
    std::io::Read::read_to_string(&mut stream, &mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 200"), "{path}: {answer}");
    answer.split_once("\r\n\r\n").unwrap().1.to_owned()
}

/// The page's event stream, read as a page would.
pub struct Events {
    reader: BufReader<TcpStream>,
    /// Bytes of `data:` received so far.
    pub bytes: usize,
    pub frames: usize,
}

impl Events {
    pub fn open(address: SocketAddr) -> Events {
        let mut stream = TcpStream::connect(address).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        write!(stream, "GET /events HTTP/1.1\r\nHost: {address}\r\n\r\n").unwrap();
        Events {
            reader: BufReader::new(stream),
            bytes: 0,
            frames: 0,
        }
    }

    /// The next frame (headers, chunk sizes and keep-alive comments skipped).
    pub fn next(&mut self) -> Value {
        loop {
            let mut line = String::new();
            assert!(
                self.reader.read_line(&mut line).unwrap() > 0,
                "event stream closed"
            );
            if let Some(data) = line.strip_prefix("data: ").or(line.strip_prefix("data:")) {
                self.bytes += data.len();
                self.frames += 1;
                return serde_json::from_str(data.trim()).unwrap();
            }
        }
    }

    /// Frames until `done` says yes of the rows seen so far (by index), within `limit`.
    pub fn until(
        &mut self,
        limit: Duration,
        what: &str,
        mut done: impl FnMut(&Rows) -> bool,
        rows: &mut Rows,
    ) {
        let deadline = Instant::now() + limit;
        while !done(rows) {
            assert!(Instant::now() < deadline, "not within {limit:?}: {what}");
            let frame = self.next();
            rows.apply(&frame);
        }
    }
}

/// The latest node and link rows, as the page keeps them.
#[derive(Default)]
pub struct Rows {
    pub nodes: std::collections::BTreeMap<usize, Vec<Value>>,
    pub links: std::collections::BTreeMap<usize, Vec<Value>>,
}

impl Rows {
    pub fn apply(&mut self, frame: &Value) {
        for (key, into) in [("n", &mut self.nodes), ("l", &mut self.links)] {
            for row in frame[key].as_array().unwrap() {
                let row = row.as_array().unwrap().clone();
                into.insert(row[0].as_u64().unwrap() as usize, row);
            }
        }
    }

    pub fn node(&self, index: usize, column: usize) -> Option<f64> {
        self.nodes.get(&index).and_then(|r| r[column].as_f64())
    }

    pub fn link(&self, index: usize, column: usize) -> Option<f64> {
        self.links.get(&index).and_then(|r| r[column].as_f64())
    }
}
