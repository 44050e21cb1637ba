//! Slurm's `srun` (issue 36): a private one-node Slurm (munged, slurmctld and slurmd started
//! here, everything in a temp dir, on free ports) runs `srun -O --mpi=pmix -n 3` of the MPI
//! build; the job's document has three ranks and totals equal to the ranks' sums.

use super::{common, mpi_halfpower, totals_are_the_ranks_sums};
use serde_json::Value;
use std::fs;
use std::net::TcpListener;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// How long the daemons may take to come up: munged's socket, the node idle in `sinfo`.
const START_LIMIT: Duration = Duration::from_secs(30);

/// A one-node Slurm of this test's own: its daemons are stopped (SIGTERM, then SIGKILL) and
/// its directory removed on drop, also when the test fails.
struct Slurm {
    /// slurmd, slurmctld and munged, in the order they are stopped.
    daemons: Vec<(&'static str, Child)>,
    conf: PathBuf,
    node: String,
    dir: tempfile::TempDir,
}

impl Slurm {
    /// Starts munged, slurmctld and slurmd and waits until the node is idle; `None` (skipped,
    /// or failed in CI) when Slurm or munge is not installed or the test is not root.
    fn start() -> Option<Slurm> {
        for (program, package) in [
            ("munged", "munge"),
            ("slurmctld", "slurm-wlm"),
            ("slurmd", "slurm-wlm"),
            ("srun", "slurm-wlm"),
            ("sinfo", "slurm-wlm"),
        ] {
            if !common::have(program, "-V") {
                common::unavailable(&format!("{program} (Debian's {package})"));
                return None;
            }
        }
        if !common::is_root() {
            // slurmd starts each task as the submitting user, which needs root.
            common::unavailable("root (slurmd runs as root to start the ranks)");
            return None;
        }
        let dir = tempfile::tempdir().unwrap();
        // munged wants every directory above its socket searchable by all.
        fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o755)).unwrap();
        let mut slurm = Slurm {
            daemons: Vec::new(),
            conf: dir.path().join("slurm.conf"),
            node: String::new(),
            dir,
        };
        slurm.start_munged();
        slurm.node = slurm.write_conf();
        let conf = slurm.conf.to_str().unwrap().to_string();
        // Foreground (-D); slurmctld ignores any saved state (-i). Each daemon is listed as
        // soon as it runs, so a failure from here on stops it.
        let ctld = slurm.spawn("slurmctld", &["-D", "-i", "-f", &conf]);
        slurm.daemons.insert(0, ("slurmctld", ctld));
        let slurmd = slurm.spawn("slurmd", &["-D", "-f", &conf]);
        slurm.daemons.insert(0, ("slurmd", slurmd));
        slurm.wait_idle();
        Some(slurm)
    }

    /// A daemon of this Slurm, its output in `NAME.out` in the directory.
    fn spawn(&self, program: &str, args: &[&str]) -> Child {
        let out = fs::File::create(self.dir.path().join(format!("{program}.out"))).unwrap();
        without_slurm_env(Command::new(program))
            .args(args)
            .stdin(Stdio::null())
            .stdout(out.try_clone().unwrap())
            .stderr(out)
            .spawn()
            .unwrap_or_else(|e| panic!("starting {program}: {e}"))
    }

    /// munged on a socket, key and seed of its own in the directory (nothing in /etc/munge or
    /// /run/munge is read or written), up once its socket exists.
    fn start_munged(&mut self) {
        let d = self.dir.path();
        let mut key = vec![0u8; 1024];
        fs::File::open("/dev/urandom")
            .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut key))
            .unwrap();
        fs::write(d.join("munge.key"), key).unwrap();
        fs::set_permissions(d.join("munge.key"), fs::Permissions::from_mode(0o400)).unwrap();
        let arg = |flag: &str, name: &str| format!("--{flag}={}", d.join(name).display());
        let args = [
            "-F".to_string(),
            arg("socket", "munge.socket"),
            arg("key-file", "munge.key"),
            arg("log-file", "munged.log"),
            arg("pid-file", "munged.pid"),
            arg("seed-file", "munged.seed"),
        ];
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let child = self.spawn("munged", &args);
        self.daemons.push(("munged", child));
        let socket = d.join("munge.socket");
        self.wait_for("munged's socket", |_| socket.exists());
    }

    /// Writes slurm.conf: this host as the controller and the one node (its hardware as
    /// `slurmd -C` reports it), every file in the directory, free ports; returns the node's name.
    fn write_conf(&self) -> String {
        let d = self.dir.path().display();
        let out = Command::new("slurmd").arg("-C").output().unwrap();
        let node_line = String::from_utf8_lossy(&out.stdout);
        let node_line = node_line.lines().next().unwrap_or_default();
        // RealMemory is left out: a node measured later with less memory would be drained.
        let node_line: Vec<&str> = (node_line.split_whitespace())
            .filter(|w| !w.starts_with("RealMemory="))
            .collect();
        let node = (node_line.first())
            .and_then(|w| w.strip_prefix("NodeName="))
            .unwrap_or_else(|| panic!("slurmd -C gave no NodeName: {out:?}"))
            .to_string();
        let [ctld_port, slurmd_port] = free_ports();
        let conf = format!(
            "ClusterName=halfpower\nSlurmctldHost={node}(127.0.0.1)\n\
             SlurmctldPort={ctld_port}\nSlurmdPort={slurmd_port}\n\
             SlurmUser=root\nSlurmdUser=root\n\
             AuthType=auth/munge\nCredType=cred/munge\nAuthInfo=socket={d}/munge.socket\n\
             StateSaveLocation={d}/state\nSlurmdSpoolDir={d}/spool\n\
             SlurmctldPidFile={d}/slurmctld.pid\nSlurmdPidFile={d}/slurmd.pid\n\
             SlurmctldLogFile={d}/slurmctld.log\nSlurmdLogFile={d}/slurmd.log\n\
             ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\n\
             SchedulerType=sched/builtin\nSelectType=select/cons_tres\n\
             SelectTypeParameters=CR_Core\nReturnToService=2\nMpiDefault=none\n\
             {} NodeAddr=127.0.0.1 State=UNKNOWN\n\
             PartitionName=halfpower Nodes={node} Default=YES MaxTime=INFINITE State=UP \
             OverSubscribe=FORCE\n",
            node_line.join(" ")
        );
        fs::create_dir(self.dir.path().join("state")).unwrap();
        fs::create_dir(self.dir.path().join("spool")).unwrap();
        fs::write(&self.conf, conf).unwrap();
        node
    }

    /// Waits (at most [`START_LIMIT`]) until `sinfo` shows the node idle.
    fn wait_idle(&mut self) {
        let node = self.node.clone();
        self.wait_for(&format!("node {node} idle in sinfo"), |slurm| {
            let out = (slurm.command("sinfo"))
                .args(["-h", "-N", "-n", &node, "-o", "%T"])
                .output()
                .unwrap();
            String::from_utf8_lossy(&out.stdout).trim() == "idle"
        });
    }

    /// Polls `ready` until it holds; panics naming `what` (with the daemons' logs) when a
    /// daemon exits first or [`START_LIMIT`] passes.
    fn wait_for(&mut self, what: &str, mut ready: impl FnMut(&Slurm) -> bool) {
        let start = Instant::now();
        while !ready(self) {
            let exited = (self.daemons.iter_mut())
                .find_map(|(name, child)| Some((*name, child.try_wait().unwrap()?)));
            if let Some((name, status)) = exited {
                panic!(
                    "waiting for {what}: {name} exited ({status})\n{}",
                    self.logs()
                );
            }
            if start.elapsed() > START_LIMIT {
                panic!("no {what} within {START_LIMIT:?}\n{}", self.logs());
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    /// The last lines of every log and output file in the directory, for a failure's message.
    fn logs(&self) -> String {
        let mut all = String::new();
        for entry in fs::read_dir(self.dir.path()).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().to_string();
            if name.ends_with(".log") || name.ends_with(".out") {
                let text = fs::read_to_string(&path).unwrap_or_default();
                let lines: Vec<&str> = text.lines().collect();
                let tail = lines[lines.len().saturating_sub(15)..].join("\n");
                all.push_str(&format!("--- {name}\n{tail}\n"));
            }
        }
        all
    }

    /// Whether `squeue` lists a job of this Slurm (or cannot tell).
    fn jobs_left(&self) -> bool {
        let out = self.command("squeue").arg("-h").output().unwrap();
        !out.status.success() || !out.stdout.is_empty()
    }

    /// `program` as a client of this Slurm (SLURM_CONF set, no other Slurm's job inherited).
    fn command(&self, program: &str) -> Command {
        let mut c = without_slurm_env(Command::new(program));
        c.env("SLURM_CONF", &self.conf).stdin(Stdio::null());
        c
    }
}

impl Drop for Slurm {
    fn drop(&mut self) {
        // A job left by a failed test ends first (while slurmctld runs), so no slurmstepd
        // outlives slurmd.
        let ctld_runs = (self.daemons.iter_mut())
            .any(|(name, child)| *name == "slurmctld" && child.try_wait().unwrap().is_none());
        if ctld_runs {
            let _ = self
                .command("scancel")
                .args(["--quiet", "-u", "root"])
                .output();
            let start = Instant::now();
            while start.elapsed() < Duration::from_secs(10) && self.jobs_left() {
                std::thread::sleep(Duration::from_millis(200));
            }
        }
        for (name, mut child) in self.daemons.drain(..) {
            stop(name, &mut child);
        }
    }
}

/// SIGTERM, up to 10 s for the daemon to exit, then SIGKILL; always reaped.
fn stop(name: &str, child: &mut Child) {
    // SAFETY: kill has no memory-safety preconditions; the pid is our own unreaped child's.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) };
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(10) {
            eprintln!("{name} ignored SIGTERM for 10 s: killed");
            let _ = child.kill();
            let _ = child.wait();
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// `c` without the test's own SLURM_* variables: inside a Slurm job they would point srun at
/// that job and controller.
fn without_slurm_env(mut c: Command) -> Command {
    for (key, _) in std::env::vars_os() {
        if key.to_string_lossy().starts_with("SLURM_") {
            c.env_remove(key);
        }
    }
    c
}

/// Two TCP ports free now (both held while the second is chosen, so they differ).
fn free_ports() -> [u16; 2] {
    let a = TcpListener::bind("127.0.0.1:0").unwrap();
    let b = TcpListener::bind("127.0.0.1:0").unwrap();
    [a, b].map(|l| l.local_addr().unwrap().port())
}

/// `srun -O --mpi=pmix -n 3 halfpower run`, each rank on its own file for 1 s: one document,
/// the job's totals the ranks' sums, every rank's file removed. PMIx, since Debian's Open MPI
/// has no client for Slurm's PMI-2 (docs/mpi.md).
#[test]
fn srun_runs_three_ranks_as_one_job() {
    let Some(hp) = mpi_halfpower() else {
        return;
    };
    let Some(slurm) = Slurm::start() else {
        return;
    };
    let work = tempfile::tempdir().unwrap();
    let target = work.path().join("f.{rank}");
    let json = work.path().join("job.json");
    let start = Instant::now();
    let out = srun(&slurm, &hp, &target, &json);
    eprintln!("srun -n 3: {:?}", start.elapsed());
    assert!(
        out.status.success(),
        "srun: {}\n{}",
        String::from_utf8_lossy(&out.stderr),
        slurm.logs()
    );
    let v: Value = serde_json::from_slice(&fs::read(&json).unwrap()).unwrap();
    // A run document holds the ranks' results beside the job's, not inside them.
    let mut results = v["results"].clone();
    results["ranks"] = v["ranks"].clone();
    totals_are_the_ranks_sums(&results, "srun -n 3");
    assert!(v["results"]["total"]["ios"].as_u64().unwrap() > 0);
    for r in 0..3 {
        let file = work.path().join(format!("f.{r}"));
        assert!(!file.exists(), "rank {r}'s file removed");
    }
}

/// The job: bounded by `--immediate` (no waiting for resources) and `--time` (one minute).
fn srun(slurm: &Slurm, hp: &Path, target: &Path, json: &Path) -> std::process::Output {
    slurm
        .command("srun")
        .args(["-O", "--mpi=pmix", "-n", "3", "--immediate=30", "--time=1"])
        // As the mpirun tests: shared memory and TCP only.
        .env("OMPI_MCA_btl", "self,vader,tcp")
        .arg(hp)
        .args([
            "run",
            target.to_str().unwrap(),
            "--size",
            "8m",
            "--rw",
            "randrw",
        ])
        .args(["--time", "1s", "--json", json.to_str().unwrap(), "--quiet"])
        .output()
        .unwrap()
}
