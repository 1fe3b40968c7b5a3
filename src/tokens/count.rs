//! The result of counting (exact, estimated, or waiting for the vocabulary) and the [`Limits`]
//! that bound it.

use std::fmt;
use std::iter::Sum;
use std::ops::Add;

/// A token count as the UI shows it.
///
/// Sums keep the weakest state: anything plus `Pending` is `Pending`, anything plus an
/// `Estimate` is an `Estimate`, so a conversation total says honestly how much it knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Count {
    /// The vocabulary has not been loaded yet; there is no number to show (and it is never 0).
    Pending,
    /// Equal to what tiktoken's `encode_ordinary` would return for the text.
    Exact(u32),
    /// Part of the text was too pathological to tokenise within a bounded time (see
    /// [`Limits`]), so this number contains an estimate for it.
    Estimate(u32),
}

impl Count {
    /// The number, exact or estimated; `None` while pending.
    pub fn value(self) -> Option<u32> {
        match self {
            Count::Pending => None,
            Count::Exact(n) | Count::Estimate(n) => Some(n),
        }
    }

    /// Whether this is an exact count.
    pub fn is_exact(self) -> bool {
        matches!(self, Count::Exact(_))
    }
}

impl Default for Count {
    /// The empty sum: exactly zero tokens.
    fn default() -> Self {
        Count::Exact(0)
    }
}

impl Add for Count {
    type Output = Count;

    fn add(self, other: Count) -> Count {
        match (self, other) {
            (Count::Pending, _) | (_, Count::Pending) => Count::Pending,
            (Count::Exact(a), Count::Exact(b)) => Count::Exact(a.saturating_add(b)),
            (a, b) => Count::Estimate(
                a.value()
                    .unwrap_or(0)
                    .saturating_add(b.value().unwrap_or(0)),
            ),
        }
    }
}

impl Add<u32> for Count {
    type Output = Count;

    /// Adds a number known exactly (such as the chat-format overhead).
    fn add(self, other: u32) -> Count {
        self + Count::Exact(other)
    }
}

impl Sum for Count {
    fn sum<I: Iterator<Item = Count>>(iter: I) -> Count {
        iter.fold(Count::default(), Add::add)
    }
}

impl fmt::Display for Count {
    /// `123` when exact, `≈123` when estimated, `…` while pending.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Count::Pending => f.write_str("…"),
            Count::Exact(n) => write!(f, "{n}"),
            Count::Estimate(n) => write!(f, "≈{n}"),
        }
    }
}

/// Bounds that keep counting fast on any input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Pieces (the units tiktoken's regex splits text into before BPE) longer than this are not
    /// tokenised but estimated. Real text has pieces of a few dozen bytes; only runs such as
    /// thousands of spaces, of one punctuation mark or of one letter come near this.
    pub max_piece_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_piece_bytes: 8 * 1024,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Count::{self, *};

    fn check(parts: &[Count], expect: Count) {
        let got: Count = parts.iter().copied().sum();
        assert_eq!(got, expect, "sum of {parts:?}");
    }

    #[test]
    fn sums_keep_the_weakest_state() {
        check(&[], Exact(0));
        check(&[Exact(2), Exact(3)], Exact(5));
        check(&[Exact(2), Estimate(3)], Estimate(5));
        check(&[Estimate(2), Exact(3), Pending], Pending);
        check(&[Exact(u32::MAX), Exact(1)], Exact(u32::MAX));
    }

    #[test]
    fn display_marks_estimates_and_pending() {
        assert_eq!(Exact(12).to_string(), "12");
        assert_eq!(Estimate(12).to_string(), "≈12");
        assert_eq!(Pending.to_string(), "…");
    }
}
