//! The reports in a real browser: headless Chromium renders each kind (light and dark),
//! takes a screenshot, and the test checks that the picture is not blank and that the page
//! logged no console message (a blocked resource, a CSP violation or a script error would).
//! Two control pages prove the checks can fail: one logs an error, one is blank.
//!
//! Chromium is Debian's `chromium` package, which .ci/run installs and marks required with
//! HALFPOWER_BROWSER_TEST=require; elsewhere the test says it skipped when there is none.

use crate::common;

use common::halfpower;
use std::path::{Path, PathBuf};
use std::process::Command;

fn chromium() -> Option<PathBuf> {
    let found = ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .find_map(|name| {
            std::env::var_os("PATH").and_then(|paths| {
                std::env::split_paths(&paths)
                    .map(|d| d.join(name))
                    .find(|p| p.is_file())
            })
        });
    if found.is_none() && std::env::var("HALFPOWER_BROWSER_TEST").as_deref() == Ok("require") {
        panic!("HALFPOWER_BROWSER_TEST=require but no chromium in PATH");
    }
    if found.is_none() {
        common::unavailable("chromium (set HALFPOWER_BROWSER_TEST=require to fail instead)");
    }
    found
}

/// What Chromium made of a page: the screenshot's pixels and its console lines.
struct Rendered {
    width: u32,
    height: u32,
    rgba: Vec<u8>,
    console: Vec<String>,
}

fn render(browser: &Path, page: &Path, dir: &Path, dark: bool) -> Rendered {
    let shot = dir.join(format!(
        "{}-{}.png",
        page.file_stem().unwrap().to_string_lossy(),
        if dark { "dark" } else { "light" }
    ));
    let profile = tempfile::tempdir().unwrap();
    let mut cmd = Command::new("timeout");
    cmd.arg("120")
        .arg(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--hide-scrollbars",
            "--enable-logging=stderr",
            "--v=0",
            "--window-size=1280,2000",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg(format!("--screenshot={}", shot.display()));
    if dark {
        cmd.args([
            "--force-dark-mode",
            "--blink-settings=preferredColorScheme=0",
        ]);
    }
    let out = cmd
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("chromium runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        shot.exists(),
        "no screenshot of {}: {stderr}",
        page.display()
    );
    let console = stderr
        .lines()
        .filter(|l| l.contains(":CONSOLE"))
        .map(str::to_string)
        .collect();
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&shot).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    let channels = info.color_type.samples();
    let rgba = buf[..info.buffer_size()]
        .chunks(channels)
        .flat_map(|px| [px[0], px[1 % channels], px[2 % channels], 255])
        .collect();
    Rendered {
        width: info.width,
        height: info.height,
        rgba,
        console,
    }
}

/// Share of pixels that differ from the most common colour (the background), and the number
/// of distinct colours.
fn ink(r: &Rendered) -> (f64, usize) {
    let mut counts: std::collections::HashMap<[u8; 3], usize> = std::collections::HashMap::new();
    for px in r.rgba.chunks(4) {
        *counts.entry([px[0], px[1], px[2]]).or_default() += 1;
    }
    let background = counts.values().copied().max().unwrap_or(0);
    let total = (r.width * r.height) as usize;
    (1.0 - background as f64 / total as f64, counts.len())
}

#[test]
fn every_report_renders_in_chromium_without_console_messages() {
    let _turn = crate::common::exclusive();
    let Some(browser) = chromium() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    // Controls first: the checks below must be able to fail.
    let noisy = dir.path().join("noisy.html");
    std::fs::write(
        &noisy,
        "<!DOCTYPE html><p>x</p><script>console.error('control')</script>",
    )
    .unwrap();
    assert!(
        !render(&browser, &noisy, dir.path(), false)
            .console
            .is_empty(),
        "console messages are seen"
    );
    let blank = dir.path().join("blank.html");
    std::fs::write(&blank, "<!DOCTYPE html><title>blank</title>").unwrap();
    assert!(
        ink(&render(&browser, &blank, dir.path(), false)).0 < 0.001,
        "a blank page reads as blank"
    );

    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/report");
    for kind in [
        "run-loop.json",
        "quick.json",
        "sweep.json",
        "profile.json",
        "monitor.jsonl",
        "diagnose.json",
        "scale.json",
        "experiment.json",
    ] {
        let page = dir.path().join(format!("{kind}.html"));
        halfpower()
            .arg("report")
            .arg(fixtures.join(kind))
            .arg("-o")
            .arg(&page)
            .assert()
            .success();
        // One stylesheet (src/render/html/report.css) sets both schemes for every page: each
        // page in the light one, and in the dark one those that draw the three kinds of chart
        // (bars and tables, curves, time series), at about 2.5 s a launch.
        let schemes: &[bool] = if ["run-loop.json", "sweep.json", "monitor.jsonl"].contains(&kind) {
            &[false, true]
        } else {
            &[false]
        };
        for &dark in schemes {
            let r = render(&browser, &page, dir.path(), dark);
            assert!(r.console.is_empty(), "{kind}: console says {:?}", r.console);
            assert!(
                r.width >= 1000 && r.height >= 1000,
                "{kind}: {}x{}",
                r.width,
                r.height
            );
            let (share, colours) = ink(&r);
            assert!(
                share > 0.03,
                "{kind} dark={dark}: only {:.1} % of the screenshot is drawn",
                share * 100.0
            );
            assert!(colours > 50, "{kind} dark={dark}: only {colours} colours");
            let corner = &r.rgba[..3];
            let luminance =
                0.299 * corner[0] as f64 + 0.587 * corner[1] as f64 + 0.114 * corner[2] as f64;
            if dark {
                assert!(
                    luminance < 80.0,
                    "{kind}: dark scheme has a light background ({corner:?})"
                );
            } else {
                assert!(
                    luminance > 200.0,
                    "{kind}: light scheme has a dark background ({corner:?})"
                );
            }
        }
    }
    if let Ok(keep) = std::env::var("HALFPOWER_SCREENSHOTS") {
        for e in std::fs::read_dir(dir.path()).unwrap().flatten() {
            if e.path().extension().is_some_and(|x| x == "png") {
                let _ = std::fs::copy(e.path(), Path::new(&keep).join(e.file_name()));
            }
        }
    }
}
