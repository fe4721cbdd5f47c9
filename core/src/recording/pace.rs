//! How a replay feeds a recording: where the CLI's output is cut, and how the clock moves.

use std::time::{Duration, Instant};

/// How [`Recording::replay`](super::Recording::replay) goes through a recording: the time it
/// starts at, how far the clock moves at each step (each line written, each piece of stdout
/// fed), and where the CLI's output is cut. Plain data: the same pace gives the same pieces at
/// the same times, so a replay is a deterministic test.
///
/// ```
/// use std::time::{Duration, Instant};
/// use claude_agent_core::recording::{Pace, Pieces};
///
/// // Pieces of 1 to 64 bytes, a millisecond a step.
/// let pace = Pace {
///     step: Duration::from_millis(1),
///     pieces: Pieces::Random { seed: 7, longest: 64 },
///     ..Pace::new(Instant::now())
/// };
/// assert_eq!(pace.pieces, Pieces::Random { seed: 7, longest: 64 });
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pace {
    /// The time of the first step.
    pub start: Instant,
    /// How far the clock moves at each step; the session is handed the time whenever one of its
    /// deadlines falls due. Zero: the clock stands still.
    pub step: Duration,
    /// Where the CLI's output is cut.
    pub pieces: Pieces,
}

impl Pace {
    /// Start at `start`, the clock standing still, each line of output fed whole.
    ///
    /// ```
    /// use std::time::{Duration, Instant};
    /// use claude_agent_core::recording::{Pace, Pieces};
    ///
    /// let pace = Pace::new(Instant::now());
    /// assert_eq!((pace.step, pace.pieces), (Duration::ZERO, Pieces::Lines));
    /// ```
    pub fn new(start: Instant) -> Pace {
        Pace {
            start,
            step: Duration::ZERO,
            pieces: Pieces::Lines,
        }
    }
}

/// Where a replay cuts the CLI's output (what it printed between two lines the host wrote).
///
/// ```
/// use claude_agent_core::recording::Pieces;
///
/// // Byte by byte: the hardest case for a line framer.
/// let pieces = Pieces::Every(1);
/// assert_ne!(pieces, Pieces::Lines);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Pieces {
    /// Each line whole, its `\n` included.
    Lines,
    /// Pieces of this many bytes (the last one shorter), across line ends.
    Every(usize),
    /// Pieces of 1 to `longest` bytes, across line ends, drawn from `seed`: the same seed cuts
    /// the same way.
    Random {
        /// Picks the lengths.
        seed: u64,
        /// The longest piece.
        longest: usize,
    },
}

/// Cuts output as [`Pieces`] says, one stretch after another.
#[derive(Debug)]
pub(super) struct Cutter {
    pieces: Pieces,
    /// xorshift64 state, never zero.
    state: u64,
}

impl Cutter {
    pub(super) fn new(pieces: Pieces) -> Cutter {
        let seed = match pieces {
            Pieces::Random { seed, .. } => seed,
            _ => 0,
        };
        Cutter {
            pieces,
            state: seed | 1,
        }
    }

    /// The lengths of the pieces of `text`, in order.
    pub(super) fn cut(&mut self, text: &[u8]) -> Vec<usize> {
        let mut lengths = Vec::new();
        match self.pieces {
            Pieces::Lines => {
                for line in text.split_inclusive(|b| *b == b'\n') {
                    lengths.push(line.len());
                }
            }
            Pieces::Every(n) => {
                for piece in text.chunks(n.max(1)) {
                    lengths.push(piece.len());
                }
            }
            Pieces::Random { longest, .. } => {
                let mut left = text.len();
                while left > 0 {
                    let n = (self.next() % longest.max(1) as u64) as usize + 1;
                    let n = n.min(left);
                    lengths.push(n);
                    left -= n;
                }
            }
        }
        lengths
    }

    fn next(&mut self) -> u64 {
        self.state ^= self.state << 13;
        self.state ^= self.state >> 7;
        self.state ^= self.state << 17;
        self.state
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_cut_covers_the_text_exactly() {
        let text = b"{\"a\":1}\n{\"b\":2}\n{\"c\":33}\n";
        for pieces in [
            Pieces::Lines,
            Pieces::Every(1),
            Pieces::Every(5),
            Pieces::Every(0),
            Pieces::Random {
                seed: 3,
                longest: 4,
            },
            Pieces::Random {
                seed: 0,
                longest: 0,
            },
        ] {
            let lengths = Cutter::new(pieces).cut(text);
            assert_eq!(lengths.iter().sum::<usize>(), text.len(), "{pieces:?}");
            assert!(lengths.iter().all(|n| *n > 0), "{pieces:?}");
        }
        assert_eq!(Cutter::new(Pieces::Lines).cut(text), [8, 8, 9]);
    }

    #[test]
    fn a_seed_cuts_the_same_way_every_time_and_seeds_differ() {
        let text = [b'x'; 500];
        let random = |seed| Pieces::Random { seed, longest: 32 };
        assert_eq!(
            Cutter::new(random(9)).cut(&text),
            Cutter::new(random(9)).cut(&text)
        );
        assert_ne!(
            Cutter::new(random(9)).cut(&text),
            Cutter::new(random(10)).cut(&text)
        );
        assert!(Cutter::new(random(9)).cut(&text).iter().all(|n| *n <= 32));
    }
}
