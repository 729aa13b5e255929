//! Real namespaces (needs root): the delay a site link is given is the delay packets get,
//! losses follow the seeded probability, and the lab leaves nothing behind.

use std::path::PathBuf;
use std::time::Duration;
use trellis_lab::{probe, Lab, LabSpec};

fn labs_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../labs")
}

fn require_root() {
    assert!(
        trellis_lab::is_root(),
        "this test builds network namespaces and must run as root"
    );
}

fn namespaces() -> String {
    let out = std::process::Command::new("ip")
        .args(["netns", "list"])
        .output()
        .expect("ip netns list");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn a_20_ms_site_link_gives_a_40_ms_tcp_round_trip() {
    require_root();
    let spec = LabSpec::load(&labs_dir().join("two-sites-20ms.toml")).unwrap();
    let (east, west) = (spec.site("east").unwrap(), spec.site("west").unwrap());
    let lab = Lab::build(spec).unwrap();
    let run = lab.run_name().to_owned();
    assert_eq!(
        namespaces().matches(&run).count(),
        3,
        "two sites and the wan: {}",
        namespaces()
    );

    let times = probe::round_trips(&lab, west, east, 20).unwrap();
    let median = probe::median(&times).unwrap();
    let stats = lab.stop().unwrap();
    eprintln!(
        "round trips {times:?}\nmedian {median:?}; relay: {stats:?}, mean lateness {:?}",
        stats.late_mean()
    );
    assert_eq!(times.len(), 20);
    assert!(
        (Duration::from_millis(36)..=Duration::from_millis(44)).contains(&median),
        "median round trip {median:?}, asked 2 × 20 ms ± 10 %"
    );
    // Every packet of the exchange crossed the relay, none was lost or dropped.
    assert!(stats.forwarded >= 2 * 21, "{stats:?}");
    assert_eq!(
        (stats.lost, stats.dropped_queue_full, stats.write_errors),
        (0, 0, 0)
    );
    assert!(
        !namespaces().contains(&run),
        "namespaces left behind: {}",
        namespaces()
    );
}

#[test]
fn loss_follows_the_link_and_unlinked_sites_cannot_talk() {
    require_root();
    let text = r#"
        seed = 3
        [[site]]
        name = "a"
        [[site]]
        name = "b"
        [[site]]
        name = "c"
        [[link]]
        sites = ["a", "b"]
        loss_percent = 30
    "#;
    let spec = LabSpec::parse(text, "inline.toml".as_ref()).unwrap();
    let lab = Lab::build(spec).unwrap();
    let (a, b, c) = (0, 1, 2);
    // 300 datagrams a → b through a 30 % loss link; c, with no link, hears nothing from a.
    let b_address = lab.site_address(b);
    let c_address = lab.site_address(c);
    let (tx, rx) = std::sync::mpsc::sync_channel(2);
    let receiver = |site: usize, address: std::net::Ipv4Addr| {
        let tx = tx.clone();
        lab.spawn_in_site(site, move || {
            let socket = std::net::UdpSocket::bind((address, 9000)).unwrap();
            tx.send(()).unwrap();
            socket
                .set_read_timeout(Some(Duration::from_millis(500)))
                .unwrap();
            let mut heard = 0;
            let mut buffer = [0u8; 64];
            // Ends 0.5 s after the last datagram (or at once when none come).
            while socket.recv(&mut buffer).is_ok() {
                heard += 1;
            }
            Ok(heard)
        })
        .unwrap()
    };
    let at_b = receiver(b, b_address);
    let at_c = receiver(c, c_address);
    rx.recv_timeout(Duration::from_secs(5)).unwrap();
    rx.recv_timeout(Duration::from_secs(5)).unwrap();
    lab.spawn_in_site(a, move || {
        let socket = std::net::UdpSocket::bind("0.0.0.0:0").unwrap();
        for i in 0..300u32 {
            socket.send_to(&i.to_be_bytes(), (b_address, 9000)).unwrap();
            socket.send_to(&i.to_be_bytes(), (c_address, 9000)).unwrap();
        }
        Ok(())
    })
    .unwrap()
    .join()
    .unwrap()
    .unwrap();
    let heard_b = at_b.join().unwrap().unwrap();
    let heard_c = at_c.join().unwrap().unwrap();
    let stats = lab.stop().unwrap();
    eprintln!("b heard {heard_b} of 300, c {heard_c}; relay {stats:?}");
    assert_eq!(heard_c, 0);
    assert!(stats.dropped_unroutable >= 1, "{stats:?}");
    // Of the datagrams to b that reached the relay, 30 % are lost: a binomial's 4 sigma
    // around 0.3 × n is ±4·sqrt(0.21 n). (The first few may wait on ARP and miss the relay.)
    let reached = stats.forwarded + stats.lost;
    assert!((250..=300).contains(&reached), "{stats:?}");
    let expected = 0.3 * reached as f64;
    let sigma = (0.21 * reached as f64).sqrt();
    assert!(
        (stats.lost as f64 - expected).abs() <= 4.0 * sigma,
        "lost {} of {reached}",
        stats.lost
    );
    assert!(
        heard_b > 0 && heard_b <= stats.forwarded,
        "b heard {heard_b}"
    );
}

#[test]
fn a_rate_limited_link_carries_its_bandwidth() {
    require_root();
    let text = r#"
        [[site]]
        name = "a"
        [[site]]
        name = "b"
        [[link]]
        sites = ["a", "b"]
        delay_ms = 1
        bandwidth_mbit = 8
    "#;
    let lab = Lab::build(LabSpec::parse(text, "inline.toml".as_ref()).unwrap()).unwrap();
    const BYTES: usize = 1_000_000; // one second at 8 Mbit/s
    let bind = std::net::SocketAddr::from((lab.site_address(1), 9100));
    let (ready_tx, ready_rx) = std::sync::mpsc::sync_channel(1);
    let sink = lab
        .spawn_in_site(1, move || {
            let listener = std::net::TcpListener::bind(bind).unwrap();
            ready_tx.send(()).unwrap();
            let (mut stream, _) = listener.accept().unwrap();
            stream
                .set_read_timeout(Some(Duration::from_secs(10)))
                .unwrap();
            let mut buffer = vec![0u8; 65536];
            let (mut received, mut first) = (0, None);
            while received < BYTES {
                let n = std::io::Read::read(&mut stream, &mut buffer).unwrap();
                assert!(n > 0, "the sender closed early");
                first.get_or_insert_with(std::time::Instant::now);
                received += n;
            }
            Ok(first.unwrap().elapsed())
        })
        .unwrap();
    ready_rx.recv_timeout(Duration::from_secs(5)).unwrap();
    let source = lab
        .spawn_in_site(0, move || {
            let mut stream = std::net::TcpStream::connect(bind).unwrap();
            std::io::Write::write_all(&mut stream, &vec![7u8; BYTES]).unwrap();
            Ok(())
        })
        .unwrap();
    let elapsed = sink.join().unwrap().unwrap();
    source.join().unwrap().unwrap();
    lab.stop().unwrap();
    // From the first byte received: the tbf's initial burst arrives at once, the rest at rate.
    let mbit = BYTES as f64 * 8.0 / elapsed.as_secs_f64() / 1e6;
    eprintln!("{BYTES} bytes in {elapsed:?}: {mbit:.2} Mbit/s");
    assert!((6.8..=9.2).contains(&mbit), "{mbit:.2} Mbit/s, asked 8");
}
