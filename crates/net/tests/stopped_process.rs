//! A subscriber process frozen with SIGSTOP (alive, its socket open, reading nothing) while
//! a publisher and three other subscribers run: the router cuts it as a slow consumer
//! within its bound, the others get every update once, and the stopped one, continued,
//! hears why it was cut. The rates the others saw before, during and outside the stall are
//! printed (the figures the issue asks for; a benchmark's job to judge, not a test's).

mod common;

use common::*;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use trellis_core::federate::{Callback, ObjectId};
use trellis_core::fom::AttributeHandle;
use trellis_core::wire::TransportClass;
use trellis_net::rti::{Driver, RtiAmbassador, SendOptions};

const FEDERATION: &str = "Stopped";
/// Set in the child's environment: the router it joins through.
const CHILD_ROUTER: &str = "TRELLIS_STOPPED_CHILD_ROUTER";
const RATE_PER_S: u64 = 2000;
const VALUE_BYTES: usize = 1000;
/// Buckets of the delivery histogram.
const BUCKET: Duration = Duration::from_millis(100);

/// The subscriber that gets stopped, run as a child process of the test binary.
#[test]
#[ignore = "run by the SIGSTOP test as its child process"]
fn stopped_subscriber_child() {
    let Ok(at) = std::env::var(CHILD_ROUTER) else {
        return;
    };
    let model = model();
    let mut rti = connect(&at.parse().unwrap(), FEDERATION, "stopped", Driver::Thread);
    rti.join_federation_execution("stopped", "viewer", model)
        .unwrap();
    let vehicle = rti.object_class_handle("Vehicle").unwrap();
    let position = rti.attribute_handle(vehicle, "Position").unwrap();
    rti.subscribe_object_class_attributes(vehicle, &[position])
        .unwrap();
    println!("subscribed");
    loop {
        if let Some(Callback::ConnectionLost { fault }) =
            rti.evoke_callback(Duration::from_millis(100)).unwrap()
        {
            println!("lost: {fault}");
            return;
        }
    }
}

struct ChildProcess {
    child: Child,
    lines: std::io::Lines<BufReader<std::process::ChildStdout>>,
}

impl ChildProcess {
    fn start(at: &trellis_net::Endpoint) -> ChildProcess {
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args([
                "stopped_subscriber_child",
                "--ignored",
                "--exact",
                "--nocapture",
            ])
            .env(CHILD_ROUTER, at.to_string())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let lines = BufReader::new(child.stdout.take().unwrap()).lines();
        ChildProcess { child, lines }
    }

    /// The child's next line starting with `prefix` (test harness lines are skipped).
    fn line(&mut self, prefix: &str) -> String {
        for line in self.lines.by_ref() {
            let line = line.unwrap();
            if line.starts_with(prefix) {
                return line;
            }
        }
        panic!("the child process ended without a line starting {prefix:?}");
    }

    fn signal(&self, signal: &str) {
        let status = Command::new("kill")
            .args([signal, &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
    }
}

impl Drop for ChildProcess {
    fn drop(&mut self) {
        self.signal("-CONT");
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Reflections of the measured value (first byte 7) each subscriber got, by bucket since
/// `start`.
struct Deliveries {
    start: Instant,
    buckets: Vec<Vec<u64>>,
}

impl Deliveries {
    fn take(&mut self, subscribers: &mut [RtiAmbassador]) {
        let bucket = (self.start.elapsed().as_millis() / BUCKET.as_millis()) as usize;
        for (i, rti) in subscribers.iter_mut().enumerate() {
            let got = rti
                .evoke_multiple_callbacks(Duration::ZERO, usize::MAX)
                .unwrap()
                .iter()
                .filter(|c| matches!(c, Callback::ReflectAttributeValues { values, .. } if values[0].1[0] == 7))
                .count() as u64;
            let row = &mut self.buckets[i];
            if row.len() <= bucket {
                row.resize(bucket + 1, 0);
            }
            row[bucket] += got;
        }
    }

    fn total(&self, subscriber: usize) -> u64 {
        self.buckets[subscriber].iter().sum()
    }

    /// Deliveries per second in buckets `from..to`, and without the `bound` window with the
    /// fewest deliveries (the stall the router's policy allows).
    fn rates(&self, subscriber: usize, from: usize, to: usize, bound: usize) -> (f64, f64) {
        let row = &self.buckets[subscriber];
        let slice = &row[from.min(row.len())..to.min(row.len())];
        let seconds = |buckets: usize| buckets as f64 * BUCKET.as_secs_f64();
        let all: u64 = slice.iter().sum();
        let worst = slice
            .windows(bound.min(slice.len()).max(1))
            .map(|w| w.iter().sum::<u64>())
            .min()
            .unwrap_or(0);
        let outside = slice.len().saturating_sub(bound);
        (
            all as f64 / seconds(slice.len()),
            (all - worst) as f64 / seconds(outside).max(f64::MIN_POSITIVE),
        )
    }
}

/// Update `object` at `RATE_PER_S` for `span`, keeping to the schedule (a publisher held
/// back catches up), taking deliveries as it goes.
fn publish_for(
    span: Duration,
    publisher: &mut RtiAmbassador,
    object: ObjectId,
    position: AttributeHandle,
    subscribers: &mut [RtiAmbassador],
    deliveries: &mut Deliveries,
) -> u64 {
    let value = vec![7u8; VALUE_BYTES];
    let options = SendOptions {
        transport: Some(TransportClass::Reliable),
        ..Default::default()
    };
    let start = Instant::now();
    let mut sent = 0;
    while start.elapsed() < span {
        let due = (start.elapsed().as_secs_f64() * RATE_PER_S as f64) as u64;
        while sent < due {
            publisher
                .update_attribute_values_with(object, &[(position, &value)], b"", &options)
                .unwrap();
            sent += 1;
        }
        publisher.evoke_callback(Duration::ZERO).unwrap();
        deliveries.take(subscribers);
    }
    sent
}

#[test]
fn a_stopped_subscriber_process_is_cut_within_its_bound_and_the_others_carry_on() {
    let (_router, at) = registry_router();
    let model = model();
    let mut publisher = connect(&at, FEDERATION, "pub", Driver::Thread);
    publisher.create_federation_execution(&model).unwrap();
    publisher
        .join_federation_execution("pub", "sim", model.clone())
        .unwrap();
    let mut child = ChildProcess::start(&at);
    child.line("subscribed");
    let mut subscribers: Vec<RtiAmbassador> = (0..3)
        .map(|i| {
            let name = format!("healthy-{i}");
            let mut rti = connect(&at, FEDERATION, &name, Driver::Thread);
            rti.join_federation_execution(&name, "viewer", model.clone())
                .unwrap();
            rti
        })
        .collect();
    let vehicle = publisher.object_class_handle("Vehicle").unwrap();
    let position = publisher.attribute_handle(vehicle, "Position").unwrap();
    publisher
        .publish_object_class_attributes(vehicle, &[position])
        .unwrap();
    for rti in &mut subscribers {
        rti.subscribe_object_class_attributes(vehicle, &[position])
            .unwrap();
    }
    let object = publisher.register_object_instance(vehicle).unwrap();
    // Warm up until every healthy subscriber reflects (value 0: not counted).
    let deadline = Instant::now() + WAIT;
    let mut warm = [false; 3];
    while !warm.iter().all(|&w| w) {
        assert!(
            Instant::now() < deadline,
            "warm-up reflections did not arrive"
        );
        publisher
            .update_attribute_values(object, &[(position, [0u8].as_slice())], b"")
            .unwrap();
        for (i, rti) in subscribers.iter_mut().enumerate() {
            warm[i] |= rti
                .evoke_multiple_callbacks(Duration::from_millis(5), 100)
                .unwrap()
                .iter()
                .any(|c| matches!(c, Callback::ReflectAttributeValues { .. }));
        }
    }
    let mut deliveries = Deliveries {
        start: Instant::now(),
        buckets: vec![Vec::new(); 3],
    };
    let baseline = Duration::from_secs(2);
    let mut sent = publish_for(
        baseline,
        &mut publisher,
        object,
        position,
        &mut subscribers,
        &mut deliveries,
    );
    let stopped_at = deliveries.start.elapsed();
    child.signal("-STOP");
    sent += publish_for(
        Duration::from_secs(6),
        &mut publisher,
        object,
        position,
        &mut subscribers,
        &mut deliveries,
    );
    // Every update reaches every healthy subscriber, once.
    let deadline = Instant::now() + Duration::from_secs(60);
    while (0..3).any(|i| deliveries.total(i) < sent) && Instant::now() < deadline {
        publisher.evoke_callback(Duration::ZERO).unwrap();
        deliveries.take(&mut subscribers);
    }
    for i in 0..3 {
        assert_eq!(
            deliveries.total(i),
            sent,
            "healthy-{i} got every update once"
        );
    }
    // The stopped one, continued, reads what its socket held, then why it was cut.
    child.signal("-CONT");
    let lost = child.line("lost: ");
    assert!(lost.contains("slow consumer"), "{lost}");
    assert!(
        lost.contains("bytes queued"),
        "the figures are given: {lost}"
    );
    let split = (stopped_at.as_millis() / BUCKET.as_millis()) as usize;
    let bound = (Duration::from_secs(1).as_millis() / BUCKET.as_millis()) as usize;
    for i in 0..3 {
        let (before, _) = deliveries.rates(i, 0, split, 0);
        let (during, outside) = deliveries.rates(i, split, split + 60, bound);
        println!(
            "healthy-{i}: {before:.0}/s before the SIGSTOP; {during:.0}/s over the 6 s after \
             it ({:.2} of before), {outside:.0}/s outside the worst 1 s ({:.2} of before)",
            during / before,
            outside / before
        );
    }
    println!("the stopped subscriber was told: {lost}");
}

/// What the healthy subscriber saw at full publisher speed: reflections of the measured
/// value, and the longest time between two of them after `from`.
struct Gaps {
    reflected: u64,
    longest: Duration,
}

/// Evoke `rti` until `stop` is set and nothing more arrives for a while, timing the gaps
/// between reflections of the measured value (first byte 7) once `from` has passed.
fn time_reflections(
    mut rti: RtiAmbassador,
    from: std::sync::Arc<std::sync::OnceLock<Instant>>,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
) -> Gaps {
    use std::sync::atomic::Ordering;
    let mut gaps = Gaps {
        reflected: 0,
        longest: Duration::ZERO,
    };
    let mut last = Instant::now();
    let mut quiet_since = None;
    loop {
        // Small batches: one batch's arrival time stands for all of it, and an unbounded
        // one drains a backlog the publisher keeps filling for as long as it runs.
        let batch = rti
            .evoke_multiple_callbacks(Duration::from_millis(1), 64)
            .unwrap();
        let now = Instant::now();
        let got = batch
            .iter()
            .filter(|c| matches!(c, Callback::ReflectAttributeValues { values, .. } if values[0].1[0] == 7))
            .count() as u64;
        if got > 0 {
            if from.get().is_some_and(|&from| last >= from) {
                gaps.longest = gaps.longest.max(now - last);
            }
            gaps.reflected += got;
            last = now;
            quiet_since = None;
        } else if stop.load(Ordering::Relaxed) {
            let since = *quiet_since.get_or_insert(now);
            if now - since > Duration::from_secs(2) {
                return gaps;
            }
        }
    }
}

/// The probe of issue 32: one publisher sending reliable 64-byte updates as fast as it can,
/// a healthy subscriber, and a subscriber process frozen with SIGSTOP. The frozen one's
/// queue may park anywhere under its limit (its socket takes more as the kernel grows the
/// buffers); it pauses the publisher all the same, so it must be cut within its bound, and
/// the healthy one's longest wait between two reflections stays near that bound (1 s),
/// far from the heartbeat timeout (10 s) that ended the stall before. The longest gap is
/// printed: a benchmark's figure, checked here only against that coarse line.
#[test]
fn at_full_publisher_speed_a_stopped_subscriber_holds_up_a_healthy_one_at_most_its_bound() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::{Arc, OnceLock};
    let (_router, at) = registry_router();
    let model = model();
    let mut publisher = connect(&at, FEDERATION, "pub", Driver::Thread);
    publisher.create_federation_execution(&model).unwrap();
    publisher
        .join_federation_execution("pub", "sim", model.clone())
        .unwrap();
    let mut child = ChildProcess::start(&at);
    child.line("subscribed");
    let mut healthy = connect(&at, FEDERATION, "healthy", Driver::Thread);
    healthy
        .join_federation_execution("healthy", "viewer", model.clone())
        .unwrap();
    let vehicle = publisher.object_class_handle("Vehicle").unwrap();
    let position = publisher.attribute_handle(vehicle, "Position").unwrap();
    publisher
        .publish_object_class_attributes(vehicle, &[position])
        .unwrap();
    healthy
        .subscribe_object_class_attributes(vehicle, &[position])
        .unwrap();
    let object = publisher.register_object_instance(vehicle).unwrap();
    let deadline = Instant::now() + WAIT;
    loop {
        assert!(
            Instant::now() < deadline,
            "warm-up reflection did not arrive"
        );
        publisher
            .update_attribute_values(object, &[(position, [0u8].as_slice())], b"")
            .unwrap();
        let batch = healthy
            .evoke_multiple_callbacks(Duration::from_millis(5), 100)
            .unwrap();
        if batch
            .iter()
            .any(|c| matches!(c, Callback::ReflectAttributeValues { .. }))
        {
            break;
        }
    }
    let stopped = Arc::new(OnceLock::new());
    let stop = Arc::new(AtomicBool::new(false));
    let watcher = {
        let (stopped, stop) = (stopped.clone(), stop.clone());
        std::thread::spawn(move || time_reflections(healthy, stopped, stop))
    };
    let value = [7u8; 64];
    let options = SendOptions {
        transport: Some(TransportClass::Reliable),
        ..Default::default()
    };
    let mut sent = 0u64;
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(6) {
        if stopped.get().is_none() && start.elapsed() >= Duration::from_secs(1) {
            child.signal("-STOP");
            let _ = stopped.set(Instant::now());
        }
        publisher
            .update_attribute_values_with(object, &[(position, &value)], b"", &options)
            .unwrap();
        sent += 1;
        if sent % 1024 == 0 {
            publisher.evoke_callback(Duration::ZERO).unwrap();
        }
    }
    stop.store(true, Ordering::Relaxed);
    let gaps = watcher.join().unwrap();
    assert_eq!(
        gaps.reflected, sent,
        "the healthy subscriber got every update once"
    );
    child.signal("-CONT");
    let lost = child.line("lost: ");
    assert!(lost.contains("slow consumer"), "{lost}");
    println!(
        "full speed: {sent} updates of 64 bytes in 6 s; the healthy subscriber's longest gap \
         after the SIGSTOP: {:.3} s",
        gaps.longest.as_secs_f64()
    );
    assert!(
        gaps.longest < Duration::from_secs(5),
        "the stall ended with the cut, not the heartbeat timeout: {:?}",
        gaps.longest
    );
}
