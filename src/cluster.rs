//! The processes of one measurement: with the `mpi` feature and started by mpirun or srun, the
//! ranks of MPI's world communicator; otherwise one process, rank 0 of 1. Barriers between
//! phases, every rank's results shared with every rank, and aborting the whole job. MPI is called from the
//! main thread only (MPI_THREAD_FUNNELED); the worker threads never call it.

use std::sync::OnceLock;

/// This process's place: (rank, size).
static PLACE: OnceLock<(u32, u32)> = OnceLock::new();

/// Keeps MPI initialised while it lives (MPI_Finalize when dropped); a no-op guard for a
/// singleton.
pub struct Guard {
    _universe: Option<Universe>,
}

/// MPI's environment, finalised when dropped (nothing without the `mpi` feature).
#[cfg(feature = "mpi")]
type Universe = mpi::environment::Universe;
#[cfg(not(feature = "mpi"))]
type Universe = std::convert::Infallible;

/// Whether a process manager (mpirun, srun with PMI) started this process.
pub fn launched() -> bool {
    ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"]
        .iter()
        .any(|v| std::env::var_os(v).is_some())
}

/// How many tasks a Slurm step started this process among when no MPI process manager did
/// (`srun -n N` with `--mpi=none`, Slurm's default plugin): N > 1 copies that cannot join one
/// job; None otherwise.
pub fn unjoined_tasks() -> Option<u64> {
    if launched() {
        return None;
    }
    let n: u64 = std::env::var("SLURM_STEP_NUM_TASKS")
        .ok()?
        .trim()
        .parse()
        .ok()?;
    (n > 1).then_some(n)
}

/// Joins the MPI job when launched by one (with the `mpi` feature); else this process is rank
/// 0 of 1. Call once, first thing; keep the guard until the end.
pub fn init() -> Guard {
    #[cfg(feature = "mpi")]
    if launched() {
        use mpi::traits::Communicator;
        if let Some((universe, _)) = mpi::initialize_with_threading(mpi::Threading::Funneled) {
            let world = universe.world();
            let _ = PLACE.set((world.rank() as u32, world.size() as u32));
            return Guard {
                _universe: Some(universe),
            };
        }
    }
    let _ = PLACE.set((0, 1));
    Guard { _universe: None }
}

/// This process's rank (0 for a singleton).
pub fn rank() -> u32 {
    PLACE.get().map_or(0, |p| p.0)
}

/// How many processes take part (1 for a singleton).
pub fn size() -> u32 {
    PLACE.get().map_or(1, |p| p.1)
}

/// Whether several processes take part.
pub fn many() -> bool {
    size() > 1
}

/// This process's rank among the ranks on its host (0 for a singleton): from the launcher's
/// variables (Open MPI, MPICH/Hydra, Slurm).
pub fn local_rank() -> u32 {
    if !many() {
        return 0;
    }
    [
        "OMPI_COMM_WORLD_LOCAL_RANK",
        "MPI_LOCALRANKID",
        "SLURM_LOCALID",
        "PMI_LOCAL_RANK",
    ]
    .iter()
    .find_map(|v| std::env::var(v).ok()?.trim().parse().ok())
    .unwrap_or(0)
}

/// This host's name: `HALFPOWER_HOST` when set (a container whose host name is not its node's;
/// the tests' ranks on one machine standing for several hosts), else gethostname(2)'s.
pub fn host() -> String {
    if let Some(h) = std::env::var("HALFPOWER_HOST")
        .ok()
        .filter(|h| !h.is_empty())
    {
        return h;
    }
    let mut buf = [0u8; 256];
    // SAFETY: gethostname writes at most buf.len() bytes into buf.
    let r = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) };
    if r != 0 {
        return "localhost".into();
    }
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    String::from_utf8_lossy(&buf[..end]).into_owned()
}

/// How long each barrier of this process waited, µs, since the last [`barrier_waits`].
static WAITS: std::sync::Mutex<Vec<f64>> = std::sync::Mutex::new(Vec::new());

/// Waits until every rank gets here (nothing for a singleton).
pub fn barrier() {
    #[cfg(feature = "mpi")]
    if many() {
        use mpi::traits::CommunicatorCollectives;
        mpi::topology::SimpleCommunicator::world().barrier();
    }
}

/// A non-blocking barrier (MPI_Ibarrier) tested until every rank has come, `pause` between
/// tests; its wait kept for [`barrier_waits`]. Every phase barrier is one, so that a rank that
/// waits asleep ([`idle_barrier`]) matches the ranks that wait awake (MPI matches blocking
/// and non-blocking collectives with their own kind only).
#[cfg_attr(not(feature = "mpi"), allow(unused_variables))]
fn tested_barrier(pause: Option<std::time::Duration>) {
    if !many() {
        return;
    }
    let t = std::time::Instant::now();
    #[cfg(feature = "mpi")]
    {
        use mpi::traits::CommunicatorCollectives;
        let mut req = mpi::topology::SimpleCommunicator::world().immediate_barrier();
        loop {
            match req.test() {
                Ok(_) => break,
                Err(r) => req = r,
            }
            match pause {
                Some(p) => std::thread::sleep(p),
                // Awake for a moment (a barrier the others have nearly reached), then in
                // short sleeps: ranks that outnumber a host's CPUs must not starve the ranks
                // still measuring or draining.
                None if t.elapsed() < std::time::Duration::from_micros(200) => {
                    std::thread::yield_now()
                }
                None => std::thread::sleep(std::time::Duration::from_micros(50)),
            }
        }
    }
    let us = t.elapsed().as_secs_f64() * 1e6;
    WAITS.lock().unwrap_or_else(|p| p.into_inner()).push(us);
}

/// A [`barrier`] between a run's phases: a rank leaves it within about 0.1 ms of the last
/// rank's coming (it tests awake for 0.2 ms, then every 50 µs asleep, where MPI's blocking
/// barrier would poll flat out and take a CPU from a rank that still measures); its wait is kept for [`barrier_waits`]
/// (the job's `barrier_us`), which other barriers (e.g. `--shared`'s setup) do not touch.
pub fn phase_barrier() {
    tested_barrier(None);
}

/// A [`phase_barrier`] that sleeps a millisecond between tests: a rank that sits a point out
/// (`scale --ranks`) waits through the whole measured phase, and leaves the CPUs to the ranks
/// that measure.
pub fn idle_barrier() {
    tested_barrier(Some(std::time::Duration::from_millis(1)));
}

/// The waits of the phase barriers since the last call, µs, in order.
pub fn barrier_waits() -> Vec<f64> {
    std::mem::take(&mut *WAITS.lock().unwrap_or_else(|p| p.into_inner()))
}

/// `path` with `{rank}` and `{host}` replaced by this process's rank and host name.
pub fn place(path: &std::path::Path) -> std::path::PathBuf {
    let s = path.to_string_lossy();
    if !s.contains('{') {
        return path.to_path_buf();
    }
    s.replace("{rank}", &rank().to_string())
        .replace("{host}", &host())
        .into()
}

/// Every rank's `bytes` on every rank, in rank order (one rank: its own). A measuring session
/// joins each point's results so (`measure::job`), so that every rank holds the job's figures
/// and decides the next point as every other does.
pub fn all_gather(bytes: &[u8]) -> Vec<Vec<u8>> {
    #[cfg(feature = "mpi")]
    if many() {
        use mpi::traits::CommunicatorCollectives;
        let world = mpi::topology::SimpleCommunicator::world();
        let len = bytes.len() as mpi::Count;
        let mut lens = vec![0 as mpi::Count; size() as usize];
        world.all_gather_into(&len, &mut lens[..]);
        return receive(&lens, |part| world.all_gather_varcount_into(bytes, part));
    }
    vec![bytes.to_vec()]
}

/// Receives every rank's bytes, `lens[r]` of them from rank `r`, through `collect` (a gather
/// into one buffer partitioned by rank), and splits them by rank.
#[cfg(feature = "mpi")]
fn receive(
    lens: &[mpi::Count],
    collect: impl FnOnce(&mut mpi::datatype::PartitionMut<[u8], &[mpi::Count], Vec<mpi::Count>>),
) -> Vec<Vec<u8>> {
    let displs: Vec<mpi::Count> = lens
        .iter()
        .scan(0, |acc, &l| {
            let at = *acc;
            *acc += l;
            Some(at)
        })
        .collect();
    let mut all = vec![0u8; lens.iter().map(|&l| l as usize).sum()];
    {
        let mut part = mpi::datatype::PartitionMut::new(&mut all[..], lens, displs.clone());
        collect(&mut part);
    }
    lens.iter()
        .zip(&displs)
        .map(|(&l, &d)| all[d as usize..(d + l) as usize].to_vec())
        .collect()
}

/// Ends the whole job with `code` (MPI_Abort): no rank is left waiting in a barrier. A
/// singleton just exits.
pub fn abort(code: i32) -> ! {
    #[cfg(feature = "mpi")]
    if many() {
        use mpi::traits::Communicator;
        mpi::topology::SimpleCommunicator::world().abort(code);
    }
    std::process::exit(code)
}
