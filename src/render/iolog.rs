//! `run --io-log`: the per-I/O record as CSV, one line per I/O of the measured phase in
//! completion order, under a header naming the columns: completion time (ns since the
//! measured phase began), latency (ns), direction (`read`/`write`), bytes, byte offset in the
//! target, and the target's index among the run's (the JSON's `targets`, from 0).

use crate::stats::iolog::{IoLog, merged};
use std::io::Write;

/// The header line's columns.
pub const HEADER: &str = "t_ns,lat_ns,dir,bytes,offset,target";

/// Writes the workers' records `logs`, merged into completion order, with the header.
pub fn write(w: &mut dyn Write, logs: &[IoLog]) -> std::io::Result<()> {
    writeln!(w, "{HEADER}")?;
    for r in merged(logs) {
        writeln!(
            w,
            "{},{},{},{},{},{}",
            r.t_ns,
            r.lat_ns,
            r.dir().name(),
            r.bytes,
            r.offset,
            r.target()
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::IoDir;

    #[test]
    fn a_line_per_io_under_the_header() {
        let mut a = IoLog::new(0);
        a.push(2_000, 150, IoDir::Write, 4096, (0, 8192));
        let mut b = IoLog::new(1);
        b.push(1_000, 90, IoDir::Read, 512, (0, 0));
        let mut out = Vec::new();
        write(&mut out, &[a, b]).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "t_ns,lat_ns,dir,bytes,offset,target\n1000,90,read,512,0,1\n2000,150,write,4096,8192,0\n"
        );
    }
}
