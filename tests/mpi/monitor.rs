//! `monitor` under MPI (issue 36): one log of every host's devices, which `diagnose` reads as
//! one cluster. Three ranks on this machine stand for two hosts (`HALFPOWER_HOST`: rank 0 on
//! `h0`, ranks 1 and 2 on `h1`), so the log's arithmetic is known: every interval holds each
//! host's devices once (the first rank of a host samples for it), named `h0:DISK` and
//! `h1:DISK`, and each host's system record (`h0:_system`, `h1:_system`); with `--listen`, the
//! same first rank of each host serves its metrics.

use super::{common, mpi_halfpower, ompi_env};
use std::collections::BTreeMap;
use std::process::Command;

#[test]
fn monitor_writes_one_log_of_every_host_and_diagnose_reads_it() {
    let Some(hp) = mpi_halfpower() else {
        return;
    };
    // Two disks named on the command line: monitor reports them whether busy or not.
    let (Some(a), Some(b)) = (
        common::LoopDev::new("mon-a", 8 << 20),
        common::LoopDev::new("mon-b", 8 << 20),
    ) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("cluster.jsonl");
    let count = 3;
    // Rank 0 on host h0, the others on h1 (a script: mpirun would take `sh -c` for its own -c).
    let script = dir.path().join("host.sh");
    std::fs::write(
        &script,
        "#!/bin/sh\nHALFPOWER_HOST=h$(( OMPI_COMM_WORLD_RANK > 0 )) exec \"$@\"\n",
    )
    .unwrap();
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let mut c = Command::new("mpirun");
    ompi_env(&mut c);
    let out = c
        .args(["--oversubscribe", "-np", "3"])
        .arg(&script)
        .arg(&hp)
        .args(["monitor", &a.name(), &b.name()])
        .args(["--interval", "300ms", "--count", &count.to_string()])
        .arg("--log")
        .arg(&log)
        .args(["--listen", "0"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    // Each host's first rank serves its host's metrics: two addresses for three ranks.
    let served: Vec<&str> = err
        .lines()
        .filter(|l| l.contains("serving metrics at"))
        .collect();
    assert_eq!(served.len(), 2, "{err}");
    let text = std::fs::read_to_string(&log).unwrap();
    let mut records: BTreeMap<String, usize> = BTreeMap::new();
    for line in text.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        *records
            .entry(v["device"].as_str().unwrap().into())
            .or_default() += 1;
    }
    assert_eq!(records.get("h0:_system"), Some(&count), "{records:?}");
    assert_eq!(records.get("h1:_system"), Some(&count), "{records:?}");
    // The disks named, and the system, once an interval from one rank of each host; any other
    // disk (one beneath them, while busy) at most once an interval.
    let mut want = vec![a.name(), b.name(), "_system".to_string()];
    want.sort();
    for (name, n) in &records {
        let (host, disk) = name
            .split_once(':')
            .unwrap_or_else(|| panic!("{name} names no host"));
        assert!(host == "h0" || host == "h1", "{name}");
        match want.contains(&disk.to_string()) {
            true => assert_eq!(
                *n, count,
                "{name}: once an interval, from one rank of its host"
            ),
            false => assert!(*n <= count, "{name}: {n} records in {count} intervals"),
        }
    }
    for h in ["h0", "h1"] {
        for w in &want {
            assert!(
                records.contains_key(&format!("{h}:{w}")),
                "{h}:{w}: {records:?}"
            );
        }
    }
    // diagnose reads the log as one cluster: every disk of every host, every system interval.
    let v = common::stdout_json(&[
        "diagnose".as_ref(),
        log.as_os_str(),
        "--json".as_ref(),
        "-".as_ref(),
    ]);
    let diagnosed: Vec<&str> = (v["devices"].as_array().unwrap().iter())
        .map(|d| d["device"].as_str().unwrap())
        .collect();
    let disks: Vec<&String> = records
        .keys()
        .filter(|k| !k.ends_with(":_system"))
        .collect();
    assert_eq!(diagnosed.len(), disks.len(), "{diagnosed:?}");
    for d in disks {
        assert!(
            diagnosed.contains(&d.as_str()),
            "{d} not diagnosed: {diagnosed:?}"
        );
    }
    assert_eq!(
        v["system"]["intervals"],
        2 * count as u64,
        "{}",
        v["system"]
    );
}
