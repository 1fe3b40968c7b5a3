//! The Tokens tab: a text's count, its tokens as coloured pieces, and a sample conversation
//! counted per message with the chat format's overhead, one [`ConversationTableRow`] each.
//!
//! Architecture invariant: everything here is computed from a [`TokenCounter`] and plain values;
//! the component only renders it. The work is bounded on any input: tokens are listed for texts
//! up to [`MAX_SPAN_TEXT_BYTES`] and at most [`MAX_COLOURED_TOKENS`] of them are shown.

use crate::engine::Role;
use crate::engine::demo::FINCOACH_USER_MESSAGES;
use crate::tokens::{
    ChatTurn, Count, Encoding, REPLY_PRIMING, TOKENS_PER_MESSAGE, TOKENS_PER_NAME, TokenCounter,
};

/// At most this many tokens are coloured; thousands of spans are already more than a reader
/// scans, and more would slow every keystroke down.
pub const MAX_COLOURED_TOKENS: usize = 2_000;
/// Texts longer than this are counted but not split into coloured tokens: listing the tokens
/// of a megabyte would tokenise it twice for spans nobody sees.
pub const MAX_SPAN_TEXT_BYTES: usize = 256 * 1024;

/// The six user messages of the FinCoach demo (the notebook's six-turn run), the sample
/// conversation the per-message table counts.
pub const SAMPLE_CONVERSATION: [&str; 6] = FINCOACH_USER_MESSAGES;

/// What the tokenizer part of the tab shows for one text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tokenized {
    pub count: Count,
    /// Unicode scalar values, which is what a person calls characters closely enough.
    pub chars: usize,
    pub bytes: usize,
    pub pieces: Pieces,
}

/// The coloured tokens, or why there are none.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Pieces {
    /// The vocabulary is still loading.
    Pending,
    /// The text is longer than [`MAX_SPAN_TEXT_BYTES`]; only the count is shown.
    TooLong,
    /// The first tokens of the text; `total` is how many there are in all.
    Shown { pieces: Vec<Piece>, total: usize },
}

/// One token as the view renders it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Piece {
    /// The token's bytes decoded lossily: a token holding part of a character shows U+FFFD.
    pub text: String,
    /// The token id, or `None` for an over-long stretch that was estimated.
    pub token: Option<u32>,
    /// Alternates 0, 1, 2, 3 so neighbouring tokens get different backgrounds.
    pub shade: u8,
}

impl Tokenized {
    /// Counts `text` and lists its first tokens with `encoding`.
    pub fn new(counter: &TokenCounter, encoding: Encoding, text: &str) -> Tokenized {
        let count = counter.count_with(encoding, text);
        let pieces = if text.len() > MAX_SPAN_TEXT_BYTES {
            Pieces::TooLong
        } else {
            match counter.tokens_of_with(encoding, text) {
                None => Pieces::Pending,
                Some(spans) => Pieces::Shown {
                    total: spans.len(),
                    pieces: spans
                        .into_iter()
                        .take(MAX_COLOURED_TOKENS)
                        .enumerate()
                        .map(|(i, span)| Piece {
                            text: lossy(text, span.bytes),
                            token: span.token,
                            shade: (i % 4) as u8,
                        })
                        .collect(),
                },
            }
        };
        Tokenized {
            count,
            chars: text.chars().count(),
            bytes: text.len(),
            pieces,
        }
    }
}

/// The `data-state` attribute of a count: `pending`, `exact` or `estimate`.
pub fn count_state(count: Count) -> &'static str {
    match count {
        Count::Pending => "pending",
        Count::Exact(_) => "exact",
        Count::Estimate(_) => "estimate",
    }
}

/// One row of the Tokens tab's per-message table: a message's content tokens, its chat-format
/// overhead and their sum. Not a conversation's message row, which is
/// [`crate::app::rows::MessageRow`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConversationTableRow {
    pub role: Role,
    pub content: &'static str,
    pub content_tokens: Count,
    pub overhead: u32,
    pub total: Count,
}

/// The sample conversation counted as one chat request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConversationTable {
    pub rows: Vec<ConversationTableRow>,
    pub reply_priming: u32,
    pub content: Count,
    pub overhead: Count,
    pub total: Count,
}

impl ConversationTable {
    /// Counts [`SAMPLE_CONVERSATION`] with `encoding` (through the counter's cache, so a
    /// recount after the vocabulary loads costs six lookups).
    pub fn sample(counter: &TokenCounter, encoding: Encoding) -> ConversationTable {
        let turns = SAMPLE_CONVERSATION.map(|content| ChatTurn {
            role: Role::User,
            name: None,
            content,
        });
        let counted = counter.count_chat_with(encoding, turns);
        let rows = SAMPLE_CONVERSATION
            .iter()
            .zip(&counted.turns)
            .map(|(content, turn)| ConversationTableRow {
                role: Role::User,
                content,
                content_tokens: turn.content,
                overhead: turn.overhead,
                total: turn.total(),
            })
            .collect();
        ConversationTable {
            rows,
            reply_priming: counted.reply_priming,
            content: counted.content(),
            overhead: counted.overhead(),
            total: counted.total(),
        }
    }
}

/// The overhead rule in words, for the tab's explanation.
pub fn overhead_rule() -> String {
    format!(
        "Each message costs {TOKENS_PER_MESSAGE} tokens of framing plus 1 for its role \
         (so {} without a name, {TOKENS_PER_NAME} more and the name's tokens with one), and \
         every request costs {REPLY_PRIMING} more that prime the reply. This is OpenAI's \
         cookbook rule for its chat models; other providers frame messages differently, so \
         for them it is an estimate.",
        TOKENS_PER_MESSAGE + 1
    )
}

fn lossy(text: &str, bytes: std::ops::Range<usize>) -> String {
    // Spans come from the counter and lie inside the text, but a wrong range must not panic
    // the page, so it is clamped rather than indexed blindly.
    let all = text.as_bytes();
    let end = bytes.end.min(all.len());
    let start = bytes.start.min(end);
    String::from_utf8_lossy(&all[start..end]).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn loaded() -> TokenCounter {
        let counter = TokenCounter::default();
        counter.load(Encoding::O200kBase).unwrap();
        counter
    }

    fn check(text: &str, expect_count: Count, expect_pieces: &[&str]) {
        let counter = loaded();
        let view = Tokenized::new(&counter, Encoding::O200kBase, text);
        assert_eq!(view.count, expect_count, "count of {text:?}");
        let Pieces::Shown { pieces, total } = view.pieces else {
            panic!("no pieces for {text:?}: {:?}", view.pieces);
        };
        let got: Vec<&str> = pieces.iter().map(|p| p.text.as_str()).collect();
        assert_eq!(got, expect_pieces, "pieces of {text:?}");
        assert_eq!(total, expect_pieces.len());
    }

    #[test]
    fn pieces_tile_the_text() {
        // "Hello, world!" is 4 tokens for gpt-tokenizer 4.0.0 in o200k_base (tests/tokenizer-oracle).
        check(
            "Hello, world!",
            Count::Exact(4),
            &["Hello", ",", " world", "!"],
        );
        check("", Count::Exact(0), &[]);
    }

    #[test]
    fn a_split_character_renders_lossily_and_never_panics() {
        let counter = loaded();
        // A rare CJK character and an emoji with a modifier are split over several byte-level
        // tokens; joining the lossy pieces must not equal the text then, but nothing may panic.
        let text = "𠜎👍🏽";
        let view = Tokenized::new(&counter, Encoding::O200kBase, text);
        let Pieces::Shown { pieces, total } = view.pieces else {
            panic!("no pieces");
        };
        assert_eq!(total, pieces.len());
        assert_eq!(view.count, Count::Exact(total as u32));
        assert_eq!(view.chars, 3);
        assert!(pieces.iter().any(|p| p.text.contains('\u{FFFD}')));
    }

    #[test]
    fn shades_alternate_and_rendering_is_bounded() {
        let counter = loaded();
        let text = "word ".repeat(3 * MAX_COLOURED_TOKENS);
        let view = Tokenized::new(&counter, Encoding::O200kBase, &text);
        let Pieces::Shown { pieces, total } = view.pieces else {
            panic!("no pieces");
        };
        assert_eq!(pieces.len(), MAX_COLOURED_TOKENS);
        assert!(total > MAX_COLOURED_TOKENS);
        assert!(pieces.windows(2).all(|w| w[0].shade != w[1].shade));
    }

    #[test]
    fn before_loading_everything_is_pending_and_never_zero() {
        let counter = TokenCounter::default();
        let view = Tokenized::new(&counter, Encoding::O200kBase, "Hello, world!");
        assert_eq!(view.count, Count::Pending);
        assert_eq!(view.pieces, Pieces::Pending);
        assert_eq!(count_state(view.count), "pending");
        let table = ConversationTable::sample(&counter, Encoding::O200kBase);
        assert_eq!(table.total, Count::Pending);
    }

    #[test]
    fn a_megabyte_of_one_letter_is_an_estimate_without_pieces() {
        let counter = loaded();
        let text = "a".repeat(1 << 20);
        let view = Tokenized::new(&counter, Encoding::O200kBase, &text);
        assert_eq!(count_state(view.count), "estimate");
        assert_eq!(view.pieces, Pieces::TooLong);
        assert_eq!(view.chars, 1 << 20);
    }

    #[test]
    fn the_conversation_total_is_content_plus_overhead_plus_priming() {
        let counter = loaded();
        let table = ConversationTable::sample(&counter, Encoding::O200kBase);
        assert_eq!(table.rows.len(), SAMPLE_CONVERSATION.len());
        let mut content = 0;
        for (row, text) in table.rows.iter().zip(SAMPLE_CONVERSATION) {
            let alone = counter
                .count_with(Encoding::O200kBase, text)
                .value()
                .unwrap();
            assert_eq!(row.content_tokens, Count::Exact(alone));
            assert_eq!(row.overhead, TOKENS_PER_MESSAGE + 1);
            assert_eq!(row.total, Count::Exact(alone + row.overhead));
            content += alone;
        }
        let overhead = 6 * (TOKENS_PER_MESSAGE + 1) + REPLY_PRIMING;
        assert_eq!(table.content, Count::Exact(content));
        assert_eq!(table.overhead, Count::Exact(overhead));
        assert_eq!(table.total, Count::Exact(content + overhead));
    }
}
