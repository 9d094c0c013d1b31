//! The Chromium fallback: headless Chromium driven over the DevTools protocol on the
//! `--remote-debugging-pipe` file descriptors (fd 3 in, fd 4 out, NUL-separated JSON).
//!
//! The pipe, not a WebSocket, for two reasons: no async runtime or CDP crate to build
//! (chromiumoxide alone takes ~5 minutes of the CI build), and Chromium exits by itself when
//! the pipe closes, so even a `kill -9` of goce-warc leaves no browser behind. Each browser
//! runs in its own process group, killed on drop (normal exit and panic unwinding) and, through
//! [`install_signal_handler`], on SIGINT, SIGTERM and SIGHUP; every process of the group is
//! reaped before goce-warc goes on or exits. Scripts are off and every host
//! resolves to nothing: no page can reach the network.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use base64::Engine;
use command_fds::{CommandFdExt, FdMapping};
use crossbeam_channel::{Receiver, RecvTimeoutError};
use serde_json::{Value, json};

use super::{Picture, RenderOptions};

#[derive(Debug, thiserror::Error)]
pub enum ChromeError {
    #[error("Chromium was not found (looked for {0}); install it (`make setup` does) or set GOCE_CHROME")]
    NotFound(String),
    #[error("cannot start Chromium: {0}")]
    Launch(String),
    #[error("Chromium closed the connection")]
    Closed,
    #[error("Chromium did not answer within {0:?}")]
    Timeout(Duration),
    #[error("Chromium answered with an error: {0}")]
    Protocol(String),
    #[error("Chromium's screenshot could not be read: {0}")]
    Screenshot(String),
}

/// Flags that keep a headless Chromium fast, quiet and offline (measured in ../shared/docs/rendering.md).
pub const CHROMIUM_FLAGS: &[&str] = &[
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--disable-dev-shm-usage",
    "--disable-breakpad",
    "--disable-crash-reporter",
    "--disable-crashpad-for-testing",
    "--mute-audio",
    "--hide-scrollbars",
    "--host-resolver-rules=MAP * ~NOTFOUND",
    "--blink-settings=scriptEnabled=false",
    "--remote-debugging-pipe",
];

const BINARY_NAMES: &[&str] = &["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"];

/// Where Chromium is: `GOCE_CHROME`, else the first of the usual names on `PATH`.
pub fn find_chromium() -> Result<PathBuf, ChromeError> {
    if let Some(path) = std::env::var_os("GOCE_CHROME") {
        return Ok(PathBuf::from(path));
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    for dir in std::env::split_paths(&path) {
        for name in BINARY_NAMES {
            let candidate = dir.join(name);
            if candidate.is_file() {
                return Ok(candidate);
            }
        }
    }
    Err(ChromeError::NotFound(BINARY_NAMES.join(", ")))
}

/// Process groups of the browsers alive now, for the signal handler.
static LIVE_GROUPS: Mutex<Vec<i32>> = Mutex::new(Vec::new());

fn kill_group(pgid: i32) {
    if let Some(pid) = rustix::process::Pid::from_raw(pgid) {
        let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
    }
}

/// How long to wait for a killed browser's processes to be gone.
const REAP_LIMIT: Duration = Duration::from_secs(5);

/// Reaps every process of the group (goce-warc is their subreaper, see
/// [`become_subreaper`]), so that none is left, not even as a zombie for init to collect,
/// when goce-warc returns: a job step that ends right after finds nothing of ours.
fn reap_group(pgid: i32) {
    let Some(pid) = rustix::process::Pid::from_raw(pgid) else { return };
    let started = Instant::now();
    loop {
        match rustix::process::waitpgid(pid, rustix::process::WaitOptions::NOHANG) {
            Ok(Some(_)) => {}
            Ok(None) if started.elapsed() < REAP_LIMIT => std::thread::sleep(Duration::from_millis(2)),
            // No child of ours left in the group (ECHILD), or out of patience.
            Ok(None) | Err(_) => return,
        }
    }
}

/// Makes goce-warc the reaper of its orphaned descendants: a browser's helper processes,
/// whose parent dies first when the group is killed, come to us instead of init, and
/// [`reap_group`] can wait for them.
fn become_subreaper() {
    static DONE: OnceLock<()> = OnceLock::new();
    DONE.get_or_init(|| {
        let _ = rustix::process::set_child_subreaper(Some(rustix::process::getpid()));
    });
}

/// On SIGINT, SIGTERM or SIGHUP: kill every browser, then exit as the signal would have.
pub fn install_signal_handler() {
    static INSTALLED: OnceLock<()> = OnceLock::new();
    INSTALLED.get_or_init(|| {
        use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
        let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) else { return };
        let spawned = std::thread::Builder::new().name("chrome-reaper".into()).spawn(move || {
            if let Some(signal) = signals.forever().next() {
                // Held until exit: a browser being launched now either is in the list
                // already or never starts.
                let groups = LIVE_GROUPS.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                for &pgid in groups.iter() {
                    kill_group(pgid);
                }
                for &pgid in groups.iter() {
                    reap_group(pgid);
                }
                std::process::exit(128 + signal);
            }
        });
        drop(spawned);
    });
}

/// One headless Chromium with one window, kept alive across pages.
pub struct Browser {
    child: Child,
    pgid: i32,
    to_chrome: std::io::PipeWriter,
    from_chrome: Receiver<Value>,
    session: String,
    frame: String,
    next_id: u64,
    profile: tempfile::TempDir,
}

impl Browser {
    pub fn launch(binary: &Path, viewport_width: f32, timeout: Duration) -> Result<Self, ChromeError> {
        install_signal_handler();
        become_subreaper();
        let launch_err = |e: std::io::Error| ChromeError::Launch(e.to_string());
        let profile = tempfile::Builder::new().prefix("goce-warc-chromium-").tempdir().map_err(launch_err)?;
        let (chrome_in, to_chrome) = std::io::pipe().map_err(launch_err)?;
        let (from_chrome, chrome_out) = std::io::pipe().map_err(launch_err)?;
        let mut command = Command::new(binary);
        command
            .args(CHROMIUM_FLAGS)
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .arg(format!("--window-size={},{}", viewport_width as u32, viewport_width as u32))
            .arg("about:blank")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        command
            .fd_mappings(vec![FdMapping { parent_fd: chrome_in.into(), child_fd: 3 }, FdMapping { parent_fd: chrome_out.into(), child_fd: 4 }])
            .map_err(|e| ChromeError::Launch(e.to_string()))?;
        // Started and listed under the lock, so the signal handler never misses a browser.
        let mut groups = LIVE_GROUPS.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let child = command.spawn().map_err(launch_err)?;
        let pgid = child.id() as i32;
        groups.push(pgid);
        drop(groups);
        // The child's ends live in `command`: drop them so a dead browser reads as EOF.
        drop(command);
        let (tx, rx) = crossbeam_channel::unbounded();
        let reader = std::thread::Builder::new().name("chrome-pipe".into()).spawn(move || {
            let mut reader = BufReader::new(from_chrome);
            let mut message = Vec::new();
            loop {
                message.clear();
                match reader.read_until(0, &mut message) {
                    Ok(0) | Err(_) => return,
                    Ok(_) => {
                        let body = message.strip_suffix(&[0]).unwrap_or(&message);
                        if let Ok(value) = serde_json::from_slice::<Value>(body)
                            && tx.send(value).is_err()
                        {
                            return;
                        }
                    }
                }
            }
        });
        reader.map_err(launch_err)?;
        let mut browser = Self { child, pgid, to_chrome, from_chrome: rx, session: String::new(), frame: String::new(), next_id: 0, profile };
        browser.open_window(viewport_width, timeout)?;
        Ok(browser)
    }

    /// A window of our own (a background tab's screenshots hang), attached in flat mode.
    fn open_window(&mut self, viewport_width: f32, timeout: Duration) -> Result<(), ChromeError> {
        let deadline = Instant::now() + timeout;
        let target = self.call(None, "Target.createTarget", json!({"url": "about:blank", "newWindow": true}), deadline)?;
        let target_id = target["targetId"].as_str().ok_or_else(|| ChromeError::Protocol("no targetId".into()))?.to_owned();
        let attached = self.call(None, "Target.attachToTarget", json!({"targetId": target_id, "flatten": true}), deadline)?;
        self.session = attached["sessionId"].as_str().ok_or_else(|| ChromeError::Protocol("no sessionId".into()))?.to_owned();
        let session = Some(self.session.clone());
        self.call(session.as_deref(), "Emulation.setScriptExecutionDisabled", json!({"value": true}), deadline)?;
        let side = viewport_width as u32;
        self.call(
            session.as_deref(),
            "Emulation.setDeviceMetricsOverride",
            json!({"width": side, "height": side, "deviceScaleFactor": 1, "mobile": false}),
            deadline,
        )?;
        let tree = self.call(session.as_deref(), "Page.getFrameTree", json!({}), deadline)?;
        self.frame = tree["frameTree"]["frame"]["id"].as_str().ok_or_else(|| ChromeError::Protocol("no frame id".into()))?.to_owned();
        Ok(())
    }

    fn call(&mut self, session: Option<&str>, method: &str, params: Value, deadline: Instant) -> Result<Value, ChromeError> {
        self.next_id += 1;
        let id = self.next_id;
        let mut message = json!({"id": id, "method": method, "params": params});
        if let Some(s) = session {
            message["sessionId"] = Value::String(s.to_owned());
        }
        let mut bytes = serde_json::to_vec(&message).map_err(|e| ChromeError::Protocol(e.to_string()))?;
        bytes.push(0);
        self.to_chrome.write_all(&bytes).map_err(|_| ChromeError::Closed)?;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.from_chrome.recv_timeout(left) {
                Ok(reply) if reply["id"].as_u64() == Some(id) => {
                    if let Some(error) = reply.get("error") {
                        return Err(ChromeError::Protocol(format!("{method}: {}", error["message"].as_str().unwrap_or("unknown"))));
                    }
                    return Ok(reply.get("result").cloned().unwrap_or(Value::Null));
                }
                Ok(_) => {} // an event or another call's late reply
                Err(RecvTimeoutError::Timeout) => return Err(ChromeError::Timeout(left)),
                Err(RecvTimeoutError::Disconnected) => return Err(ChromeError::Closed),
            }
        }
    }

    /// Loads `html` into the window (no network, no scripts) and takes the picture.
    pub fn screenshot(&mut self, html: &str, options: &RenderOptions, timeout: Duration) -> Result<Picture, ChromeError> {
        let deadline = Instant::now() + timeout;
        let session = Some(self.session.clone());
        let frame = self.frame.clone();
        self.call(session.as_deref(), "Page.setDocumentContent", json!({"frameId": frame, "html": html}), deadline)?;
        let mut height = options.viewport_width;
        if options.full {
            let metrics = self.call(session.as_deref(), "Page.getLayoutMetrics", json!({}), deadline)?;
            height = metrics["cssContentSize"]["height"].as_f64().map_or(height, |h| h as f32).clamp(1.0, options.max_page_height);
        }
        let scale = options.size as f32 / options.viewport_width;
        let shot = self.call(
            session.as_deref(),
            "Page.captureScreenshot",
            json!({"format": "png", "captureBeyondViewport": options.full, "clip": {"x": 0, "y": 0, "width": options.viewport_width, "height": height, "scale": scale}}),
            deadline,
        )?;
        let data = shot["data"].as_str().ok_or_else(|| ChromeError::Screenshot("no data".into()))?;
        let png = base64::engine::general_purpose::STANDARD.decode(data).map_err(|e| ChromeError::Screenshot(e.to_string()))?;
        Picture::from_png(&png).map_err(|e| ChromeError::Screenshot(e.to_string()))
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub fn profile_dir(&self) -> &Path {
        self.profile.path()
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        kill_group(self.pgid);
        let _ = self.child.wait();
        reap_group(self.pgid);
        if let Ok(mut groups) = LIVE_GROUPS.lock() {
            groups.retain(|&g| g != self.pgid);
        }
    }
}

/// A cold first start of Chromium on a fresh machine takes seconds.
pub const LAUNCH_TIMEOUT: Duration = Duration::from_secs(30);

/// Browsers kept alive for reuse, one per worker at most.
pub struct ChromePool {
    binary: PathBuf,
    viewport_width: f32,
    timeout: Duration,
    idle: Mutex<Vec<Browser>>,
}

impl ChromePool {
    pub fn new(timeout: Duration, viewport_width: f32) -> Result<Self, ChromeError> {
        Ok(Self { binary: find_chromium()?, viewport_width, timeout, idle: Mutex::new(Vec::new()) })
    }

    /// Renders with an idle browser (or a new one). A browser that fails or times out is
    /// killed, not reused.
    pub fn screenshot(&self, html: &str, options: &RenderOptions) -> Result<Picture, ChromeError> {
        let idle = self.idle.lock().ok().and_then(|mut idle| idle.pop());
        let mut browser = match idle {
            Some(b) => b,
            None => Browser::launch(&self.binary, self.viewport_width, self.timeout.max(LAUNCH_TIMEOUT))?,
        };
        let picture = browser.screenshot(html, options, self.timeout)?;
        if let Ok(mut idle) = self.idle.lock() {
            idle.push(browser);
        }
        Ok(picture)
    }
}
