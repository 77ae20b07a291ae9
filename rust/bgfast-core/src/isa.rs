//! Which instruction-set build of the hot loops runs, chosen once per process.
//!
//! The move generator is compiled twice (the x86-64 baseline, and x86-64-v3: AVX2, BMI1/2,
//! LZCNT, POPCNT...) and the row writer has an AVX-512 VBMI body beside its SSE2 one; the
//! CPU decides at run time. The engine's neural-net forward pass (bgfast-engine) has
//! AVX-512 and AVX2+FMA builds beside its portable one and takes its choice from
//! [`net_level`]. Setting `BGFAST_ISA=baseline` before the first call runs the baseline
//! builds on any CPU, so that a machine with the faster instructions tests the code every
//! other machine runs. [`report`] says which builds run.

use core::sync::atomic::{AtomicU8, Ordering::Relaxed};

/// The variable that forces the baseline builds when set to `baseline`.
pub const ISA_VAR: &str = "BGFAST_ISA";

/// One build choice: [`UNDECIDED`], [`BASELINE`], [`FAST`] or [`FORCED_BASELINE`].
struct Choice(AtomicU8);

const UNDECIDED: u8 = 0;
/// The CPU lacks the faster build's instructions.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
const BASELINE: u8 = 1;
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
const FAST: u8 = 2;
/// [`ISA_VAR`] or [`force_baseline`] asked for the baseline.
const FORCED_BASELINE: u8 = 3;

impl Choice {
    const fn new() -> Choice {
        Choice(AtomicU8::new(0))
    }

    /// Whether the faster build runs: decided on first use from [`ISA_VAR`] and `cpu_has`,
    /// then one relaxed load (this is asked once per generation). Only x86-64 has faster
    /// builds to choose; elsewhere the portable ones run and nothing asks.
    #[inline(always)]
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    fn fast(&self, cpu_has: fn() -> bool) -> bool {
        match self.0.load(Relaxed) {
            UNDECIDED => {
                let choice = if std::env::var(ISA_VAR).is_ok_and(|v| v.trim() == "baseline") {
                    FORCED_BASELINE
                } else if cpu_has() {
                    FAST
                } else {
                    BASELINE
                };
                self.0.store(choice, Relaxed);
                choice == FAST
            }
            choice => choice == FAST,
        }
    }
}

static GENERATOR: Choice = Choice::new();
static ROW_WRITER: Choice = Choice::new();

/// The engine's net build: [`UNDECIDED`], [`FORCED_BASELINE`], or `LEVELS + level` for the
/// level its detection chose (several builds, not two, so not a [`Choice`]).
static NET: AtomicU8 = AtomicU8::new(UNDECIDED);
/// Where detected net levels start.
const LEVELS: u8 = 4;

/// Whether the x86-64-v3 build of the move generator runs.
#[inline(always)]
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub(crate) fn fast_generator(cpu_has: fn() -> bool) -> bool {
    GENERATOR.fast(cpu_has)
}

/// Whether the AVX-512 row writer runs.
#[inline(always)]
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub(crate) fn fast_row_writer(cpu_has: fn() -> bool) -> bool {
    ROW_WRITER.fast(cpu_has)
}

/// Which of the engine's net builds runs: 0 (the baseline) while [`ISA_VAR`] or
/// [`force_baseline`] holds the baseline builds, as for the builds of this crate; else the
/// level `detect` gives (the best build the CPU has, 0 being the baseline; at most 200).
/// Decided on the first call, then one relaxed load. The engine names its build
/// (`bgfast_engine::net::isa_name`), as this crate cannot.
///
/// The first caller's `detect` decides for the process, so the level is a choice, not a
/// guarantee: code about to run a build's instructions checks that the CPU has them too
/// (the engine caps the level by its own detection).
#[inline(always)]
pub fn net_level(detect: fn() -> u8) -> u8 {
    match NET.load(Relaxed) {
        UNDECIDED => {
            let choice = if std::env::var(ISA_VAR).is_ok_and(|v| v.trim() == "baseline") {
                FORCED_BASELINE
            } else {
                LEVELS + detect().min(200)
            };
            NET.store(choice, Relaxed);
            choice.saturating_sub(LEVELS)
        }
        choice => choice.saturating_sub(LEVELS),
    }
}

/// Tests only: run the baseline builds from now on, even on a CPU with the faster
/// instructions (`true`), or let the CPU and [`ISA_VAR`] decide again (`false`).
#[doc(hidden)]
pub fn force_baseline(baseline: bool) {
    let choice = if baseline { FORCED_BASELINE } else { UNDECIDED };
    for build in [&GENERATOR.0, &ROW_WRITER.0, &NET] {
        build.store(choice, Relaxed);
    }
}

/// The builds that run in this process, for `bgfast --version --verbose` and bug reports.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Report {
    /// The move generator: `"x86-64-v3"` or `"x86-64 baseline"` (`"portable"` elsewhere).
    pub generator: &'static str,
    /// The row writer: `"AVX-512 VBMI"` or `"SSE2"` (`"portable"` elsewhere).
    pub row_writer: &'static str,
    /// Whether [`ISA_VAR`] or [`force_baseline`] holds the baseline builds.
    pub forced_baseline: bool,
}

/// Which builds run now.
pub fn report() -> Report {
    // Naming the builds decides them, if nothing has yet.
    let (generator, row_writer) = (crate::movegen::isa_name(), crate::rows::writer_name());
    Report {
        generator,
        row_writer,
        forced_baseline: GENERATOR.0.load(Relaxed) == FORCED_BASELINE,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forcing_the_baseline_names_the_baseline_builds() {
        force_baseline(true);
        let forced = report();
        force_baseline(false);
        assert!(forced.forced_baseline);
        #[cfg(target_arch = "x86_64")]
        assert_eq!(
            (forced.generator, forced.row_writer),
            ("x86-64 baseline", "SSE2")
        );
        let chosen = report();
        assert!(["x86-64-v3", "x86-64 baseline", "portable"].contains(&chosen.generator));
        assert!(["AVX-512 VBMI", "SSE2", "portable"].contains(&chosen.row_writer));
    }
}
