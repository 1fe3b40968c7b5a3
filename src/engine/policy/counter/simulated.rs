//! How a counter sizes a conversation that has sizes but no text: the Tuner's simulated one.
//!
//! The simulated conversation's sizes are o200k_base tokens (30 a question, 90 a reply, a
//! 300-token system prompt and a 150-token summary). Another counter's count of such a message
//! is the count of a sample text in the language chosen ([`Sample`], one of
//! `tests/fixtures/counters/texts.json`), scaled to the message's o200k_base size: each
//! measure the counter reads (cl100k_base tokens, characters, Gemini CLI's quarter tokens,
//! words) is the sample's, times the message's o200k_base tokens over the sample's, rounded;
//! then the counter's own per-message rule is applied to it (LangChain's role and 3 extra, the
//! chat format's framing). At the sample's own size each counter gives exactly its count of
//! the sample (`tests/counters.rs` checks it against the libraries' counts).

use super::{
    CHAT_TOKENS_PER_MESSAGE, Counter, LANGCHAIN_CHARS_PER_TOKEN, LANGCHAIN_EXTRA_PER_MESSAGE,
};
use crate::engine::message::{Role, Vocabulary};

/// A sample text's measures, which a simulated message of its language is scaled from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sample {
    /// The stable name (the fixture's key in `tests/fixtures/counters/texts.json`).
    pub slug: &'static str,
    /// The language in words, as the Tuner offers it.
    pub label: &'static str,
    /// o200k_base tokens of the text.
    pub o200k: u32,
    /// cl100k_base tokens of the text.
    pub cl100k: u32,
    /// Characters (code points), which LangChain's `count_tokens_approximately` reads.
    pub chars: u32,
    /// Gemini CLI's estimate in quarter tokens (1 per ASCII UTF-16 unit, 6 per other).
    pub quarters: u32,
    /// Words, as the engine's word rule counts them.
    pub words: u32,
}

/// The samples, in the order the Tuner offers them; English first, the default.
pub const SAMPLES: [Sample; 4] = [
    Sample {
        slug: "english-figures",
        label: "English",
        o200k: 63,
        cl100k: 63,
        chars: 156,
        quarters: 156,
        words: 29,
    },
    Sample {
        slug: "hindi",
        label: "Hindi",
        o200k: 42,
        cl100k: 152,
        chars: 145,
        quarters: 730,
        words: 28,
    },
    Sample {
        slug: "chinese",
        label: "Chinese",
        o200k: 39,
        cl100k: 56,
        chars: 59,
        quarters: 354,
        words: 1,
    },
    Sample {
        slug: "python-code",
        label: "Python code",
        o200k: 72,
        cl100k: 71,
        chars: 288,
        quarters: 288,
        words: 36,
    },
];

impl Sample {
    /// The sample named `slug`, or English for any other.
    pub fn from_slug(slug: &str) -> Sample {
        SAMPLES
            .into_iter()
            .find(|s| s.slug == slug)
            .unwrap_or(SAMPLES[0])
    }

    /// `measure` of the sample, scaled to a message of `o200k` tokens, rounded to the nearest.
    fn scaled(&self, measure: u32, o200k: u32) -> u32 {
        let den = u64::from(self.o200k.max(1));
        ((2 * u64::from(measure) * u64::from(o200k) + den) / (2 * den)) as u32
    }
}

/// Tokens of a role's name in o200k_base and cl100k_base: one each for system, user, assistant
/// and tool (`tests/counters.rs` checks it).
const ROLE_TOKENS: u32 = 1;

impl Counter {
    /// This counter's count of a message of `role` whose text is `o200k` o200k_base tokens of
    /// `sample`'s language, as [`Counter::message`] counts a message.
    pub fn simulated(self, role: Role, o200k: u32, sample: &Sample) -> u32 {
        let chat = |tokens: u32, on: bool| {
            if on {
                tokens + CHAT_TOKENS_PER_MESSAGE + ROLE_TOKENS
            } else {
                tokens
            }
        };
        match self {
            Counter::Tiktoken {
                vocabulary: Vocabulary::O200k,
                chat: on,
            } => chat(o200k, on),
            Counter::Tiktoken {
                vocabulary: Vocabulary::Cl100k,
                chat: on,
            } => chat(sample.scaled(sample.cl100k, o200k), on),
            Counter::Reported => chat(o200k, true),
            Counter::LangChainApprox => {
                let chars = sample.scaled(sample.chars, o200k) + role.as_str().len() as u32;
                chars.div_ceil(LANGCHAIN_CHARS_PER_TOKEN) + LANGCHAIN_EXTRA_PER_MESSAGE
            }
            Counter::GeminiEstimate => sample.scaled(sample.quarters, o200k) / 4,
            Counter::Words => sample.scaled(sample.words, o200k),
        }
    }

    /// The counter a user switching to exact counts gets in place of this one: o200k_base, as
    /// if a tiktoken counter were passed to the library, for a counter that estimates or counts
    /// in another vocabulary; the reply's reported usage (already the server's exact count)
    /// and a word count stay.
    pub fn exact(self) -> Counter {
        match self {
            Counter::LangChainApprox
            | Counter::GeminiEstimate
            | Counter::Tiktoken {
                vocabulary: Vocabulary::Cl100k,
                ..
            } => Counter::O200K,
            other => other,
        }
    }
}
