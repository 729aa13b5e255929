//! Headless Chromium driven over the DevTools protocol through a pipe
//! (`--remote-debugging-pipe`: JSON messages separated by NUL on file descriptors 3 and 4),
//! so driving the browser opens no port at all. Enough for the browser tests: open a page,
//! evaluate JavaScript, wait for a condition on the page, take screenshots, and list every
//! URL the page requested.

// Each test file uses a part.
#![allow(dead_code)]
// Handing Chromium its two pipes takes raw descriptors and a pre-exec hook.
#![allow(unsafe_code)]

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::os::fd::FromRawFd;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// How long one protocol command may take (generous: the machine may be loaded).
const COMMAND_LIMIT: Duration = Duration::from_secs(60);

pub struct Browser {
    child: Child,
    commands: std::fs::File,
    messages: Receiver<Value>,
    next_id: u64,
    session: String,
    /// URLs of every request the page made (Network.requestWillBeSent).
    pub requested: Vec<String>,
    profile: PathBuf,
}

fn pipe() -> (i32, i32) {
    let mut fds = [0; 2];
    // SAFETY: `fds` has room for the two descriptors pipe(2) writes.
    assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0, "pipe");
    (fds[0], fds[1])
}

impl Browser {
    /// Start Chromium headless, its profile in `profile`, every host name but 127.0.0.1
    /// unresolvable, and open a blank page.
    pub fn launch(profile: &Path) -> Browser {
        let chromium = Path::new("/usr/bin/chromium");
        assert!(
            chromium.exists(),
            "/usr/bin/chromium is missing: scripts/test installs it (apt-get install -y chromium)"
        );
        std::fs::create_dir_all(profile).unwrap();
        // Ours: write to `to_browser_w`, read `from_browser_r`. The browser's: 3 and 4.
        let (to_browser_r, to_browser_w) = pipe();
        let (from_browser_r, from_browser_w) = pipe();
        let mut command = Command::new(chromium);
        command
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--remote-debugging-pipe",
                "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--disable-extensions",
                "--no-first-run",
                "--window-size=1500,950",
            ])
            .arg(format!("--user-data-dir={}", profile.display()))
            .arg("about:blank")
            .env("HOME", profile)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        // SAFETY: the hook runs in the forked child before exec and calls only dup2, which
        // is async-signal-safe, on descriptors this process owns.
        unsafe {
            command.pre_exec(move || {
                if libc::dup2(to_browser_r, 3) < 0 || libc::dup2(from_browser_w, 4) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let child = command.spawn().expect("cannot start chromium");
        // SAFETY: the browser's ends, ours to close once it holds its copies; nothing else
        // uses them.
        unsafe {
            libc::close(to_browser_r);
            libc::close(from_browser_w);
        }
        // SAFETY: our ends, fresh from pipe(2) and owned by nothing else.
        let commands = unsafe { std::fs::File::from_raw_fd(to_browser_w) };
        // SAFETY: as above.
        let replies = unsafe { std::fs::File::from_raw_fd(from_browser_r) };
        let (sender, messages) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(replies);
            let mut message = Vec::new();
            while reader.read_until(0, &mut message).is_ok_and(|n| n > 0) {
                if message.last() == Some(&0) {
                    message.pop();
                }
                if let Ok(value) = serde_json::from_slice::<Value>(&message) {
                    if sender.send(value).is_err() {
                        break;
                    }
                }
                message.clear();
            }
        });
        let mut browser = Browser {
            child,
            commands,
            messages,
            next_id: 0,
            session: String::new(),
            requested: Vec::new(),
            profile: profile.to_owned(),
        };
        let target = browser.call("Target.createTarget", json!({"url": "about:blank"}), false);
        let target = target["targetId"].as_str().unwrap().to_owned();
        let attached = browser.call(
            "Target.attachToTarget",
            json!({"targetId": target, "flatten": true}),
            false,
        );
        browser.session = attached["sessionId"].as_str().unwrap().to_owned();
        browser.command("Network.enable", json!({}));
        browser.command("Page.enable", json!({}));
        browser.command("Runtime.enable", json!({}));
        browser
    }

    fn record(&mut self, message: &Value) {
        if message["method"] == "Network.requestWillBeSent" {
            if let Some(url) = message["params"]["request"]["url"].as_str() {
                self.requested.push(url.to_owned());
            }
        }
    }

    /// Send a command (to the page's session when `in_page`) and wait for its result.
    fn call(&mut self, method: &str, params: Value, in_page: bool) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        let mut message = json!({"id": id, "method": method, "params": params});
        if in_page {
            message["sessionId"] = json!(self.session);
        }
        let mut bytes = serde_json::to_vec(&message).unwrap();
        bytes.push(0);
        self.commands.write_all(&bytes).unwrap();
        let deadline = Instant::now() + COMMAND_LIMIT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let reply = match self.messages.recv_timeout(left) {
                Ok(reply) => reply,
                Err(RecvTimeoutError::Timeout) => {
                    panic!("chromium did not answer {method} in time")
                }
                Err(RecvTimeoutError::Disconnected) => panic!("chromium exited during {method}"),
            };
            self.record(&reply);
            if reply["id"] == id {
                assert!(reply.get("error").is_none(), "{method}: {reply}");
                return reply["result"].clone();
            }
        }
    }

    pub fn command(&mut self, method: &str, params: Value) -> Value {
        self.call(method, params, true)
    }

    /// Navigate and wait until the page's load event fired.
    pub fn open(&mut self, url: &str) {
        self.command("Page.navigate", json!({"url": url}));
        self.wait_for(
            "document.readyState === 'complete'",
            Duration::from_secs(60),
        );
    }

    /// The value of a JavaScript expression (awaited if a promise), as JSON.
    pub fn eval(&mut self, expression: &str) -> Value {
        let result = self.command(
            "Runtime.evaluate",
            json!({"expression": expression, "returnByValue": true, "awaitPromise": true}),
        );
        assert!(
            result.get("exceptionDetails").is_none(),
            "{expression}: {}",
            result["exceptionDetails"]
        );
        result["result"]["value"].clone()
    }

    /// Wait in the page, up to `limit`, until `expression` is truthy; its value, or a
    /// panic naming the condition.
    pub fn wait_for(&mut self, expression: &str, limit: Duration) -> Value {
        let wrapped = format!(
            "new Promise((done) => {{ const until = Date.now() + {ms}; \
             const check = () => {{ let value = null; try {{ value = ({expression}); }} catch (e) {{}} \
             if (value) done(value); else if (Date.now() > until) done(null); else setTimeout(check, 50); }}; \
             check(); }})",
            ms = limit.as_millis()
        );
        let value = self.eval(&wrapped);
        assert!(
            !value.is_null(),
            "not within {limit:?} on the page: {expression}"
        );
        value
    }

    /// A PNG of the page as it is now.
    pub fn screenshot(&mut self, path: &Path) {
        let shot = self.command("Page.captureScreenshot", json!({"format": "png"}));
        let png = decode_base64(shot["data"].as_str().unwrap());
        std::fs::write(path, png).unwrap();
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.profile);
    }
}

fn decode_base64(text: &str) -> Vec<u8> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => panic!("not base64: {c}"),
    };
    let bytes: Vec<u8> = text.bytes().filter(|&c| c != b'=').map(value).collect();
    let mut out = Vec::with_capacity(bytes.len() * 3 / 4);
    for chunk in bytes.chunks(4) {
        let mut word = 0u32;
        for (i, &b) in chunk.iter().enumerate() {
            word |= u32::from(b) << (18 - 6 * i);
        }
        out.extend_from_slice(&word.to_be_bytes()[1..chunk.len()]);
    }
    out
}

/// Where a browser test keeps its screenshots: `test-artefacts/NAME/` in the target dir.
pub fn artefacts(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .unwrap()
        .join("test-artefacts")
        .join(name);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn base64_decodes() {
    assert_eq!(decode_base64("aGVsbG8="), b"hello");
    assert_eq!(decode_base64("aGk="), b"hi");
    assert_eq!(decode_base64("YWJj"), b"abc");
}
