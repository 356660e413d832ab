//! `when` conditions whose truth is chosen while they are written: atoms
//! over the context's values and toggles, combined by `&&`, `||` and `!`.

use fastrand::Rng;

use super::{CONTROLPLANES, FIXED_ATOMS, RETENTION, TOGGLES, WORKERS, pick};

/// A condition atom that is `truth` under the bench values.
pub(super) fn atom(rng: &mut Rng, toggles: &[bool], truth: bool) -> String {
    let toggle = |rng: &mut Rng, value: bool| -> &'static str {
        loop {
            let i = rng.usize(..TOGGLES.len());
            if toggles[i] == value {
                return TOGGLES[i];
            }
        }
    };
    match rng.u32(..10) {
        0 => {
            let name = toggle(rng, truth);
            match rng.u32(..3) {
                0 => format!("toggles.{name}"),
                1 => format!("toggles.{name} == true"),
                // Parenthesized: expr refuses `??` beside another operator.
                _ => format!("(toggles.{name} ?? false)"),
            }
        }
        1 => format!("!toggles.{}", toggle(rng, !truth)),
        2 => {
            let name = pick(rng, &TOGGLES);
            if truth {
                format!("'{name}' in toggles")
            } else {
                format!("'{name}_v2' in toggles")
            }
        }
        3..=5 => {
            let (yes, no) = *pick(rng, &FIXED_ATOMS);
            (if truth { yes } else { no }).to_owned()
        }
        _ => numeric_atom(rng, truth),
    }
}

/// An atom of comparisons and arithmetic on numbers that is `truth`.
pub(super) fn numeric_atom(rng: &mut Rng, truth: bool) -> String {
    let workers = WORKERS;
    match rng.u32(..6) {
        0 => {
            if truth {
                format!("cluster.workers.count >= {}", rng.u32(1..=workers))
            } else if rng.bool() {
                format!("cluster.workers.count >= {}", rng.u32(workers + 1..=16))
            } else {
                format!("cluster.workers.count < {}", rng.u32(1..=workers))
            }
        }
        1 => {
            let value = workers * 2 + CONTROLPLANES;
            let n = if truth {
                rng.u32(10..value)
            } else {
                rng.u32(value..30)
            };
            format!("cluster.workers.count * 2 + cluster.controlplanes.count > {n}")
        }
        2 => {
            let n = if truth {
                rng.u32(7..=RETENTION)
            } else {
                rng.u32(RETENTION + 1..=90)
            };
            format!("(observability.retention_days ?? 7) >= {n}")
        }
        3 => {
            let divisor = if truth {
                *pick(rng, &[2, 4, 8])
            } else {
                *pick(rng, &[3, 5, 6, 7])
            };
            format!("cluster.workers.count % {divisor} == 0")
        }
        4 => {
            // 8 / d > 1.5 for d up to 5.
            let divisor = if truth {
                rng.u32(1..=5)
            } else {
                rng.u32(6..=16)
            };
            format!("cluster.workers.count / {divisor} > 1.5")
        }
        _ => if truth {
            "-cluster.controlplanes.count < 0"
        } else {
            "-cluster.controlplanes.count > 0"
        }
        .to_owned(),
    }
}

/// A condition that is `truth`, atoms combined up to `depth` levels.
pub(super) fn condition(rng: &mut Rng, toggles: &[bool], truth: bool, depth: u32) -> String {
    if depth == 0 || rng.u32(..4) == 0 {
        return atom(rng, toggles, truth);
    }
    let sub = |rng: &mut Rng, truth: bool| {
        let text = condition(rng, toggles, truth, depth - 1);
        if text.contains("&&") || text.contains("||") {
            format!("({text})")
        } else {
            text
        }
    };
    match rng.u32(..5) {
        0 | 1 => {
            let (a, b) = if truth {
                (true, true)
            } else {
                match rng.u32(..3) {
                    0 => (false, true),
                    1 => (true, false),
                    _ => (false, false),
                }
            };
            format!("{} && {}", sub(rng, a), sub(rng, b))
        }
        2 | 3 => {
            let (a, b) = if truth {
                match rng.u32(..3) {
                    0 => (false, true),
                    1 => (true, false),
                    _ => (true, true),
                }
            } else {
                (false, false)
            };
            format!("{} || {}", sub(rng, a), sub(rng, b))
        }
        _ => {
            let inner = condition(rng, toggles, !truth, depth - 1);
            if rng.u32(..4) == 0 {
                format!("not ({inner})")
            } else {
                format!("!({inner})")
            }
        }
    }
}
