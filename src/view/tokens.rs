//! The Tokens tab: a text's count, its tokens as coloured pieces, and a sample conversation
//! counted per message with the chat format's overhead, one [`ConversationTableRow`] each.
//!
//! The words around them are here too: the vocabulary's loading ([`VocabStatus::of`]), the
//! pieces as drawn ([`PiecesScreen::of`]), the table's total ([`ConversationTable::total_heading`])
//! and the models of each encoding ([`encoding_models`]).
//!
//! Architecture invariant: everything here is computed from a [`TokenCounter`] and plain values;
//! the component only renders it. The work is bounded on any input: tokens are listed for texts
//! up to [`MAX_SPAN_TEXT_BYTES`] and at most [`MAX_COLOURED_TOKENS`] of them are shown.

use crate::engine::Role;
use crate::engine::demo::FINCOACH_USER_MESSAGES;
use crate::tokens::{
    ChatTurn, Count, Encoding, LoadState, REPLY_PRIMING, TOKENS_PER_MESSAGE, TOKENS_PER_NAME,
    TokenCounter,
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

impl ConversationTable {
    /// The heading of the request's total row.
    pub fn total_heading(&self) -> String {
        format!(
            "Request total (with {} tokens of reply priming)",
            self.reply_priming
        )
    }
}

/// The models that count with `encoding`, after its name in the picker.
pub fn encoding_models(encoding: Encoding) -> &'static str {
    match encoding {
        Encoding::O200kBase => " (GPT-4o, GPT-4.1, GPT-5, o-series)",
        Encoding::Cl100kBase => " (GPT-4, GPT-3.5-turbo)",
    }
}

/// The vocabulary status line: loading, how long it took, or why it failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VocabStatus {
    /// `status`, or `error` when it failed.
    pub class: &'static str,
    pub text: String,
    /// Whether it failed: the line is an alert, with "Try again".
    pub failed: bool,
}

impl VocabStatus {
    /// The line for `encoding`'s vocabulary in `state`.
    pub fn of(encoding: Encoding, state: &LoadState) -> VocabStatus {
        let status = |text| VocabStatus {
            class: "status",
            text,
            failed: false,
        };
        match state {
            LoadState::Idle | LoadState::Scheduled => {
                status(format!("Loading the {encoding} vocabulary…"))
            }
            LoadState::Loaded {
                bytes,
                fetch_ms,
                parse_ms,
                ready_ms,
            } => status(format!(
                "{encoding} vocabulary ({:.1} MB) fetched in {fetch_ms:.0} ms, ready in \
                 {ready_ms:.0} ms ({parse_ms:.0} ms of work, in slices that leave the page \
                 responsive).",
                *bytes as f64 / 1e6
            )),
            LoadState::Failed(error) => VocabStatus {
                class: "error",
                text: error.clone(),
                failed: true,
            },
        }
    }
}

/// The coloured tokens as drawn, or what stands in their place.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PiecesScreen {
    /// The vocabulary is still loading.
    Pending,
    /// The text is too long to colour: the sentence that says so.
    TooLong(String),
    /// The spans, and a note when only the first tokens are coloured.
    Shown {
        spans: Vec<SpanLine>,
        note: Option<String>,
    },
}

/// One coloured token.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpanLine {
    pub text: String,
    /// `tok tok2`: the shade.
    pub class: String,
    /// `token 1234`, or "estimated stretch".
    pub title: String,
}

impl PiecesScreen {
    /// How `pieces` are drawn.
    pub fn of(pieces: &Pieces) -> PiecesScreen {
        match pieces {
            Pieces::Pending => PiecesScreen::Pending,
            Pieces::TooLong => PiecesScreen::TooLong(format!(
                "The text is longer than {} KB, so its tokens are counted but not coloured.",
                MAX_SPAN_TEXT_BYTES / 1024
            )),
            Pieces::Shown { pieces, total } => PiecesScreen::Shown {
                spans: pieces
                    .iter()
                    .map(|p| SpanLine {
                        text: p.text.clone(),
                        class: format!("tok tok{}", p.shade),
                        title: p.token.map_or_else(
                            || "estimated stretch".to_owned(),
                            |id| format!("token {id}"),
                        ),
                    })
                    .collect(),
                note: (*total > pieces.len()).then(|| {
                    format!("Colouring the first {MAX_COLOURED_TOKENS} of {total} tokens.")
                }),
            },
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
        // The sample conversation is the FinCoach demo's: its counts come from the table computed
        // at build time, exactly as the loaded vocabulary's.
        let table = ConversationTable::sample(&counter, Encoding::O200kBase);
        let exact = ConversationTable::sample(&loaded(), Encoding::O200kBase);
        assert!(table.total.is_exact(), "{:?}", table.total);
        assert_eq!(table.total, exact.total);
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
    fn the_vocabulary_line_says_loading_then_how_long_it_took() {
        for state in [LoadState::Idle, LoadState::Scheduled] {
            let line = VocabStatus::of(Encoding::O200kBase, &state);
            assert_eq!(line.text, "Loading the o200k_base vocabulary…");
            assert_eq!((line.class, line.failed), ("status", false));
        }
        let line = VocabStatus::of(
            Encoding::Cl100kBase,
            &LoadState::Loaded {
                bytes: 1_680_000,
                fetch_ms: 41.6,
                parse_ms: 120.2,
                ready_ms: 180.0,
            },
        );
        assert_eq!(
            line.text,
            "cl100k_base vocabulary (1.7 MB) fetched in 42 ms, ready in 180 ms (120 ms of work, \
             in slices that leave the page responsive)."
        );
        assert!(!line.failed);
    }

    #[test]
    fn a_failed_vocabulary_is_an_alert_with_its_reason() {
        let line = VocabStatus::of(
            Encoding::O200kBase,
            &LoadState::Failed("The vocabulary could not be fetched.".to_owned()),
        );
        assert_eq!(line.class, "error");
        assert!(line.failed);
        assert_eq!(line.text, "The vocabulary could not be fetched.");
    }

    #[test]
    fn pieces_are_drawn_shaded_with_their_ids_and_a_note_past_the_bound() {
        let counter = loaded();
        let shown = PiecesScreen::of(
            &Tokenized::new(&counter, Encoding::O200kBase, "Hello, world!").pieces,
        );
        let PiecesScreen::Shown { spans, note } = shown else {
            panic!("no spans: {shown:?}");
        };
        assert_eq!(note, None);
        assert_eq!(spans[1].text, ",");
        assert_eq!(spans[1].class, "tok tok1");
        assert!(spans[0].title.starts_with("token "));
        let long = "word ".repeat(3 * MAX_COLOURED_TOKENS);
        let tokenized = Tokenized::new(&counter, Encoding::O200kBase, &long);
        let Pieces::Shown { total, .. } = tokenized.pieces else {
            panic!("no pieces");
        };
        let PiecesScreen::Shown { spans, note } = PiecesScreen::of(&tokenized.pieces) else {
            panic!("no spans");
        };
        assert_eq!(spans.len(), MAX_COLOURED_TOKENS);
        assert!(total > MAX_COLOURED_TOKENS);
        assert_eq!(
            note,
            Some(format!(
                "Colouring the first {MAX_COLOURED_TOKENS} of {total} tokens."
            ))
        );
    }

    #[test]
    fn an_estimated_stretch_is_titled_so_and_pending_or_long_texts_say_why() {
        let estimated = Pieces::Shown {
            pieces: vec![Piece {
                text: "aaaa".to_owned(),
                token: None,
                shade: 0,
            }],
            total: 1,
        };
        let PiecesScreen::Shown { spans, .. } = PiecesScreen::of(&estimated) else {
            panic!("no spans");
        };
        assert_eq!(spans[0].title, "estimated stretch");
        assert_eq!(PiecesScreen::of(&Pieces::Pending), PiecesScreen::Pending);
        assert_eq!(
            PiecesScreen::of(&Pieces::TooLong),
            PiecesScreen::TooLong(
                "The text is longer than 256 KB, so its tokens are counted but not coloured."
                    .to_owned()
            )
        );
    }

    #[test]
    fn the_total_row_names_the_reply_priming_and_each_encoding_its_models() {
        let table = ConversationTable::sample(&TokenCounter::default(), Encoding::O200kBase);
        assert_eq!(
            table.total_heading(),
            format!("Request total (with {REPLY_PRIMING} tokens of reply priming)")
        );
        assert!(encoding_models(Encoding::O200kBase).contains("GPT-4o"));
        assert!(encoding_models(Encoding::Cl100kBase).contains("GPT-3.5-turbo"));
        assert_eq!(
            Encoding::from_name("cl100k_base"),
            Some(Encoding::Cl100kBase)
        );
        assert_eq!(Encoding::from_name("p50k_base"), None);
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
