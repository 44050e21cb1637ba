//! How a point (of `sweep` and `profile`) runs and stops, and `--steady[=PCT|pts]`, which
//! `run` takes too.

use clap::Args;

/// `--steady[=PCT|pts]`: which steady-state rule ends a point.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SteadyArg {
    /// The 95 % interval of the mean throughput within ±PCT %.
    Pct(f64),
    /// SNIA PTS's window of five one-second rounds (docs/pts.md).
    Pts,
}

impl SteadyArg {
    /// The percentage of the interval rule (None for PTS's).
    pub fn pct(self) -> Option<f64> {
        match self {
            SteadyArg::Pct(p) => Some(p),
            SteadyArg::Pts => None,
        }
    }
}

/// Reads `--steady`'s value: a percentage or `pts`.
pub(super) fn parse_steady(s: &str) -> Result<SteadyArg, String> {
    if s == "pts" {
        return Ok(SteadyArg::Pts);
    }
    s.parse()
        .map(SteadyArg::Pct)
        .map_err(|_| "a spread in percent (e.g. --steady=2) or pts (PTS's steady state)".into())
}

/// `--steady[=PCT|pts]`: one declaration for `run`, `sweep` and `profile`.
#[derive(Args, Debug, Clone, Copy, Default, PartialEq)]
pub struct SteadyArgs {
    /// Steady state: warm up (each point: at least 0.5 s) until the transient is over (MSER on
    /// 100-ms windows) instead of for --warmup, and end the run or point once the 95 % interval
    /// of its mean throughput is within +-PCT % (default 2), after at least 1 s, or at --time.
    /// =pts: once its last five 1-s rounds meet SNIA PTS's steady state (max - min <= 20 % of
    /// their mean, fitted line moving <= 10 %).
    #[arg(long = "steady", id = "steady", value_name = "PCT|pts", num_args = 0..=1,
          default_missing_value = "2", require_equals = true, value_parser = parse_steady)]
    pub rule: Option<SteadyArg>,
}

/// Options shared by `sweep` and `profile`: how each point is run and stopped.
#[derive(Args, Debug, Clone)]
pub struct PointArgs {
    /// `--steady`.
    #[command(flatten)]
    pub steady: SteadyArgs,
    /// Timing, region, engine, open flags and write permissions of every point.
    #[command(flatten)]
    pub setup: super::SetupArgs,
}
