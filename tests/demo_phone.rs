//! The README's picture of the phone: `arbiter demo --html` draws the demo's conversation from the messages the
//! daemon sent (their text, formatting and buttons) and the owner's taps. The committed `docs/phone.html` must be
//! what the demo draws today, so the picture can't drift from the views; `ARBITER_SCREENSHOTS=1` writes it again
//! and renders `docs/screenshots/phone.png` with headless Chromium.

use std::path::Path;
use std::process::Command;

#[test]
fn the_committed_phone_page_is_what_the_demo_draws() {
    let dir = tempfile::tempdir().unwrap();
    let html = dir.path().join("phone.html");
    let out = Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .arg("demo")
        .arg("--html")
        .arg(&html)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let drawn = std::fs::read_to_string(&html).unwrap();
    for shown in ["Decision Queue", "Auth Strategy", "👆 A<", "Submit"] {
        assert!(drawn.contains(shown), "{shown} is not on the page");
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let committed = root.join("docs/phone.html");
    if std::env::var_os("ARBITER_SCREENSHOTS").is_some() {
        std::fs::write(&committed, &drawn).unwrap();
        let png = root.join("docs/screenshots/phone.png");
        let status = Command::new("chromium")
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
            ])
            .args([
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
                "--hide-scrollbars",
            ])
            .arg(format!(
                "--user-data-dir={}",
                dir.path().join("profile").display()
            ))
            .arg("--window-size=440,2000")
            .arg(format!("--screenshot={}", png.display()))
            .arg(format!("file://{}", committed.display()))
            .status()
            .expect("chromium");
        assert!(status.success());
        return;
    }
    let kept = std::fs::read_to_string(&committed).unwrap_or_default();
    assert!(
        kept == drawn,
        "docs/phone.html is not what `arbiter demo --html` draws today: run \
         `ARBITER_SCREENSHOTS=1 cargo test --test lib demo_phone` and commit docs/phone.html and docs/screenshots/phone.png"
    );
}
