//! A small Chrome DevTools Protocol client for the HTML trace test: headless
//! Chromium started with `--remote-debugging-pipe`, its fds 3 (commands in) and
//! 4 (replies and events out) wired to two named FIFOs by a `sh -c` wrapper.
//! Messages on the pipe are JSON texts, each ended by a NUL byte.
//!
//! [`Chromium`] kills the browser and removes its folder when dropped, also
//! when the test fails.

use serde_json::{Value, json};
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

/// How long a command may take before the test fails.
const TIMEOUT: Duration = Duration::from_secs(60);

/// A headless Chromium and one page attached to it (flat session mode).
pub(super) struct Chromium {
    /// The `sh` that became Chromium (`exec`).
    child: Child,
    /// The write end of Chromium's fd 3.
    commands: File,
    /// Messages read from Chromium's fd 4 by a reader thread.
    replies: Receiver<Value>,
    /// The id of the next command.
    next_id: u64,
    /// The session of the page, once attached.
    session: Option<String>,
    /// The folder of the profile, the FIFOs and Chromium's log.
    dir: PathBuf,
}

impl Chromium {
    /// Starts `chromium --headless --no-sandbox --disable-gpu` with a fresh
    /// profile in `dir` and a window of 1280 × 900.
    pub(super) fn start(dir: &Path) -> Chromium {
        std::fs::create_dir_all(dir).expect("the browser's folder");
        let (fifo_in, fifo_out) = (dir.join("cdp-in"), dir.join("cdp-out"));
        for f in [&fifo_in, &fifo_out] {
            let _ = std::fs::remove_file(f);
            let ok = Command::new("mkfifo")
                .arg(f)
                .status()
                .is_ok_and(|s| s.success());
            assert!(ok, "mkfifo {}", f.display());
        }
        // Opened read-write, a FIFO's open does not wait for the other end.
        let rw = |p: &Path| {
            OpenOptions::new()
                .read(true)
                .write(true)
                .open(p)
                .expect("open a FIFO")
        };
        let commands = rw(&fifo_in);
        let output = rw(&fifo_out);
        let log = File::create(dir.join("chromium.log")).expect("the log");
        let child = Command::new("sh")
            .arg("-c")
            .arg(r#"exec chromium --headless --no-sandbox --disable-gpu --user-data-dir="$1/profile" --window-size=1280,900 --remote-debugging-pipe about:blank 3<"$2" 4>"$3""#)
            .arg("sh")
            .arg(dir)
            .arg(&fifo_in)
            .arg(&fifo_out)
            .stdin(Stdio::null())
            .stdout(log.try_clone().expect("the log"))
            .stderr(log)
            .spawn()
            .expect("start chromium");
        let (tx, replies) = channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(output);
            loop {
                let mut message = Vec::new();
                match reader.read_until(0, &mut message) {
                    Ok(0) | Err(_) => return,
                    Ok(_) => {}
                }
                message.pop();
                let Ok(value) = serde_json::from_slice::<Value>(&message) else {
                    continue;
                };
                if tx.send(value).is_err() {
                    return;
                }
            }
        });
        Chromium {
            child,
            commands,
            replies,
            next_id: 1,
            session: None,
            dir: dir.to_path_buf(),
        }
    }

    /// What Chromium wrote on its standard error, for failure messages.
    fn log(&self) -> String {
        std::fs::read_to_string(self.dir.join("chromium.log")).unwrap_or_default()
    }

    /// Sends `method` with `params` (to the page's session once attached) and
    /// waits for its reply's `result`; an error reply or a timeout fails the test.
    pub(super) fn call(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        let mut message = json!({ "id": id, "method": method, "params": params });
        if let Some(s) = &self.session {
            message["sessionId"] = json!(s);
        }
        let mut bytes = message.to_string().into_bytes();
        bytes.push(0);
        self.commands.write_all(&bytes).expect("write to Chromium");
        let deadline = Instant::now() + TIMEOUT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let reply = self.replies.recv_timeout(left).unwrap_or_else(|_| {
                panic!(
                    "Chromium did not answer {method} within {TIMEOUT:?}; its log:\n{}",
                    self.log()
                )
            });
            if reply["id"] == json!(id) {
                assert!(
                    reply.get("error").is_none(),
                    "{method} failed: {}",
                    reply["error"]
                );
                return reply["result"].clone();
            }
        }
    }

    /// Opens `url` in a new page and attaches to it: later calls go to the page.
    pub(super) fn open(&mut self, url: &str) {
        let target = self.call("Target.createTarget", json!({ "url": url }));
        let id = target["targetId"]
            .as_str()
            .expect("a target id")
            .to_string();
        let attached = self.call(
            "Target.attachToTarget",
            json!({ "targetId": id, "flatten": true }),
        );
        self.session = Some(
            attached["sessionId"]
                .as_str()
                .expect("a session id")
                .to_string(),
        );
        self.call("Page.bringToFront", json!({}));
        self.call(
            "Emulation.setFocusEmulationEnabled",
            json!({ "enabled": true }),
        );
    }

    /// The value of the JavaScript `expression` in the page (`returnByValue`).
    pub(super) fn eval(&mut self, expression: &str) -> Value {
        let r = self.call(
            "Runtime.evaluate",
            json!({ "expression": expression, "returnByValue": true }),
        );
        assert!(
            r.get("exceptionDetails").is_none(),
            "{expression} threw: {}",
            r["exceptionDetails"]
        );
        r["result"]["value"].clone()
    }

    /// Waits until `expression` is true in the page.
    pub(super) fn wait_for(&mut self, expression: &str) {
        let deadline = Instant::now() + TIMEOUT;
        while self.eval(expression) != json!(true) {
            assert!(
                Instant::now() < deadline,
                "{expression} never became true; Chromium's log:\n{}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Presses and releases a key, as a keyboard would: `key` and `code` as
    /// the DOM names them, `vk` the Windows virtual key code.
    pub(super) fn press(&mut self, key: &str, code: &str, vk: u32) {
        let text = if key.chars().count() == 1 { key } else { "" };
        for kind in ["keyDown", "keyUp"] {
            self.call(
                "Input.dispatchKeyEvent",
                json!({
                    "type": kind,
                    "key": key,
                    "code": code,
                    "text": if kind == "keyDown" { text } else { "" },
                    "windowsVirtualKeyCode": vk,
                    "nativeVirtualKeyCode": vk,
                }),
            );
        }
    }

    /// A PNG screenshot of the page.
    pub(super) fn screenshot(&mut self) -> Vec<u8> {
        let r = self.call("Page.captureScreenshot", json!({ "format": "png" }));
        base64_decode(r["data"].as_str().expect("base64 data"))
    }
}

impl Drop for Chromium {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        // The profile, the FIFOs and the log (printed by a failing call).
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Decodes standard base64 (RFC 4648 §4, with `=` padding), as CDP sends binary data.
fn base64_decode(text: &str) -> Vec<u8> {
    let digit = |c: u8| -> u32 {
        match c {
            b'A'..=b'Z' => u32::from(c - b'A'),
            b'a'..=b'z' => u32::from(c - b'a') + 26,
            b'0'..=b'9' => u32::from(c - b'0') + 52,
            b'+' => 62,
            b'/' => 63,
            _ => panic!("not base64: {:?}", c as char),
        }
    };
    let mut out = Vec::with_capacity(text.len() / 4 * 3);
    for chunk in text.as_bytes().chunks(4) {
        let data: Vec<u8> = chunk.iter().copied().filter(|&c| c != b'=').collect();
        let n = data.iter().fold(0u32, |acc, &c| (acc << 6) | digit(c)) << (6 * (4 - data.len()));
        let bytes = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        out.extend_from_slice(&bytes[..data.len().saturating_sub(1)]);
    }
    out
}

#[test]
fn base64_decodes_padded_and_unpadded_ends() {
    assert_eq!(base64_decode("TWFu"), b"Man");
    assert_eq!(base64_decode("TWE="), b"Ma");
    assert_eq!(base64_decode("TQ=="), b"M");
    assert_eq!(base64_decode("iVBORw0KGgo="), b"\x89PNG\r\n\x1a\n");
}
