//! The encodings this app counts with, and the errors at the token-counting boundary.

use std::fmt;
use std::str::FromStr;

/// The BPE vocabularies this app can count with.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Encoding {
    /// GPT-4o, GPT-4.1, GPT-5 and the o-series.
    #[default]
    O200kBase,
    /// GPT-4, GPT-3.5-turbo and text-embedding-3.
    Cl100kBase,
}

impl Encoding {
    /// Every supported encoding, the default first.
    pub const ALL: [Encoding; 2] = [Encoding::O200kBase, Encoding::Cl100kBase];

    /// The name tiktoken uses: `o200k_base` or `cl100k_base`.
    pub fn name(self) -> &'static str {
        match self {
            Encoding::O200kBase => "o200k_base",
            Encoding::Cl100kBase => "cl100k_base",
        }
    }

    /// The encoding of a policy's counter's vocabulary.
    pub fn of(vocabulary: crate::engine::message::Vocabulary) -> Encoding {
        match vocabulary {
            crate::engine::message::Vocabulary::O200k => Encoding::O200kBase,
            crate::engine::message::Vocabulary::Cl100k => Encoding::Cl100kBase,
        }
    }

    /// The engine's name for this encoding's vocabulary (the inverse of [`Encoding::of`]).
    pub fn vocabulary(self) -> crate::engine::message::Vocabulary {
        match self {
            Encoding::O200kBase => crate::engine::message::Vocabulary::O200k,
            Encoding::Cl100kBase => crate::engine::message::Vocabulary::Cl100k,
        }
    }

    /// The encoding tiktoken calls `name`, or `None` for a name it does not have.
    pub fn from_name(name: &str) -> Option<Encoding> {
        Encoding::ALL.into_iter().find(|e| e.name() == name)
    }

    /// The pre-tokenising regex of this encoding.
    pub(super) fn pattern(self) -> sm_bpe::Pattern {
        match self {
            Encoding::O200kBase => sm_bpe::Pattern::O200k,
            Encoding::Cl100kBase => sm_bpe::Pattern::Cl100k,
        }
    }

    pub(super) fn index(self) -> usize {
        match self {
            Encoding::O200kBase => 0,
            Encoding::Cl100kBase => 1,
        }
    }
}

impl fmt::Display for Encoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Encoding {
    type Err = TokensError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Encoding::from_name(s).ok_or_else(|| TokensError::UnknownEncoding(s.to_owned()))
    }
}

/// What can go wrong at the token-counting boundary.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TokensError {
    /// The vocabulary file could not be fetched or parsed.
    #[error(
        "could not load the {encoding} vocabulary ({reason}). Token counts are rough estimates \
         (≈) until it loads: check the connection and reload the page"
    )]
    Load { encoding: Encoding, reason: String },
    /// A saved setting or a link named an encoding this app does not have.
    #[error("unknown encoding \"{0}\": choose o200k_base or cl100k_base")]
    UnknownEncoding(String),
}
