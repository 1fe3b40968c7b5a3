//! Tests against tiktoken-rs itself. The comparison with an independent implementation
//! (gpt-tokenizer) lives in tests/tokens_exact.rs.

use std::sync::LazyLock;

use proptest::prelude::*;

use super::*;
use crate::engine::{CountTokens, GrowingCount, Message, Role};
use sm_bpe::{Pattern, Splitter};

/// Parsing a vocabulary takes seconds in a debug build, so the tests share one loaded counter.
static LOADED: LazyLock<TokenCounter> = LazyLock::new(|| {
    let counter = TokenCounter::default();
    for encoding in Encoding::ALL {
        counter
            .load(encoding)
            .expect("the embedded vocabulary parses");
    }
    counter
});

/// Counts by tiktoken-rs directly, for texts known to be safe for it.
fn reference(encoding: Encoding, text: &str) -> Vec<u32> {
    let bpe = match encoding {
        Encoding::O200kBase => tiktoken_rs::o200k_base_singleton(),
        Encoding::Cl100kBase => tiktoken_rs::cl100k_base_singleton(),
    };
    bpe.encode_ordinary(text)
}

fn check(text: &str) {
    for encoding in Encoding::ALL {
        let expect = reference(encoding, text).len() as u32;
        assert_eq!(
            LOADED.count_with(encoding, text),
            Count::Exact(expect),
            "{encoding} count of {text:?}"
        );
    }
}

#[test]
fn ordinary_texts_count_like_tiktoken() {
    check("");
    check("Hello, world!");
    check("नमस्ते, ₹1,20,000 का बजट");
    check("👨‍👩‍👧‍👦 🇮🇳 \t\t\n\n  ");
}

#[test]
fn special_token_look_alikes_are_ordinary_text() {
    for encoding in Encoding::ALL {
        let count = LOADED.count_with(encoding, "<|endoftext|>");
        // As a special token it would be exactly one token.
        assert!(
            matches!(count, Count::Exact(n) if n > 1),
            "{encoding}: {count:?}"
        );
    }
    check("<|endoftext|><|im_start|>user<|im_sep|>hi<|im_end|><|endofprompt|>");
}

#[test]
fn counts_are_pending_until_the_vocabulary_loads() {
    let mut counter = TokenCounter::new(Encoding::Cl100kBase);
    assert_eq!(counter.count("hello"), Count::Pending);
    assert_eq!(counter.tokens_of("hello"), None);
    assert_eq!(CountTokens::count(&counter, "hello world!"), 3);
    counter.set_encoding(Encoding::O200kBase);
    assert_eq!(counter.count("hello"), Count::Pending);
    assert!(!counter.is_loaded(Encoding::O200kBase));
}

#[test]
fn the_engine_seam_returns_the_exact_count_once_loaded() {
    let text = "Never suggest equities.";
    let exact = reference(Encoding::O200kBase, text).len() as u32;
    assert_eq!(CountTokens::count(&*LOADED, text), exact);
    let message = Message::new(Role::User, text, &*LOADED, 0);
    assert_eq!(message.tokens, exact);
}

#[test]
fn encoding_names_round_trip() {
    for encoding in Encoding::ALL {
        assert_eq!(encoding.name().parse::<Encoding>(), Ok(encoding));
    }
    assert_eq!(
        "gpt2".parse::<Encoding>(),
        Err(TokensError::UnknownEncoding("gpt2".into()))
    );
}

#[test]
fn counter_can_be_shared_across_threads() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<TokenCounter>();
}

// Adversarial inputs. tiktoken-rs alone panics on the whitespace ones (fancy-regex overflows its
// backtracking stack and the error is unwrapped), which in the browser traps the whole module.

fn check_bounded(text: &str, expect_exact: bool) {
    for encoding in Encoding::ALL {
        let count = LOADED.count_uncached(encoding, text);
        let n = count.value().expect("the vocabulary is loaded");
        assert!(
            n > 0 && n as usize <= text.len(),
            "{encoding}: {count:?} for {} bytes",
            text.len()
        );
        assert_eq!(count.is_exact(), expect_exact, "{encoding}: {count:?}");
    }
}

#[test]
fn a_megabyte_of_one_letter_is_estimated() {
    check_bounded(&"a".repeat(1 << 20), false);
}

#[test]
fn a_megabyte_of_one_punctuation_mark_is_estimated() {
    check_bounded(&"^".repeat(1 << 20), false);
}

#[test]
fn a_megabyte_of_spaces_before_a_letter_is_estimated_without_panicking() {
    check_bounded(&(" ".repeat(1 << 20) + "x"), false);
    check_bounded(&(" \t".repeat(1 << 19) + "x"), false);
    check_bounded(&("\n".to_owned() + &" ".repeat(1 << 20) + "x"), false);
}

#[test]
fn base64_without_spaces_is_counted_exactly() {
    // A deterministic pseudo-random base64 alphabet stream, 200 KB with no whitespace.
    let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let text: String = (0..200_000u32)
        .map(|i| alphabet[((i.wrapping_mul(2_654_435_761) >> 7) % 64) as usize] as char)
        .collect();
    check_bounded(&text, true);
    // Its pieces are short, so tiktoken-rs copes on its own and must agree.
    check(&text);
}

#[test]
fn the_estimate_of_a_run_of_one_letter_matches_its_exact_count() {
    // 64 KB is over the piece limit but still cheap enough for tiktoken-rs to count directly.
    let text = "a".repeat(64 * 1024);
    for encoding in Encoding::ALL {
        let exact = reference(encoding, &text).len() as u32;
        assert_eq!(
            LOADED.count_uncached(encoding, &text),
            Count::Estimate(exact)
        );
    }
}

// Every text goes through our splitter and our BPE. These properties check that the splitter
// finds tiktoken's pieces, that BPE on each piece gives tiktoken's tokens, and that the per-piece
// cache changes nothing.

/// Characters chosen to hit every branch of both regexes: letters of each case, marks,
/// contractions, digits, punctuation, slashes, every kind of whitespace and a 4-byte emoji.
fn adversarial_text() -> impl Strategy<Value = String> {
    let atoms = prop::sample::select(vec![
        "a", "B", "z", "É", "ǅ", "ʰ", "中", "\u{301}", "'s", "'LL", "'", "1", "22", "!", "/", ".",
        "<|", "|>", " ", "  ", "\t", "\n", "\r\n", "\r", "\u{a0}", "\u{3000}", "\u{85}", "🎉",
        "\u{200d}",
    ]);
    prop::collection::vec(atoms, 0..40).prop_map(|atoms| atoms.concat())
}

/// Tokenises with a small piece limit, checking the count on the way.
fn limited_tokens(encoding: Encoding, text: &str) -> Vec<u32> {
    let limits = Limits {
        max_piece_bytes: 1000,
    };
    let vocabulary = LOADED.vocabularies[encoding.index()].get().expect("loaded");
    assert_eq!(
        vocabulary.count(text, limits),
        Count::Exact(reference(encoding, text).len() as u32)
    );
    vocabulary
        .tokens_of(text, limits)
        .iter()
        .map(|span| span.token.expect("no piece is over-long here"))
        .collect()
}

/// Characters around o200k_base's fast path for caseless letters: Han, kana (with the `Lm`
/// prolonged-sound mark and a half-width voicing mark), Hangul, Devanagari with its marks, a
/// combining mark, a supplementary-plane ideograph, the `Nl` ideographic zero, CJK and ASCII
/// punctuation and spaces, cased letters and contractions (the long s folds to `s`), digits of
/// two scripts and an emoji.
fn caseless_text() -> impl Strategy<Value = String> {
    let atoms = prop::sample::select(vec![
        "中", "文", "あ", "ー", "ｶ", "ﾞ", "々", "한", "गु", "ने", "\u{301}", "𠀀", "〇", "・", "，",
        "。", "「", "」", " ", "\u{3000}", "'", "'s", "'ſ", "a", "Zh", "ǅ", "1", "٣", "🎉", "\n",
        "\r\n", "\u{85}", "\t", "!",
    ]);
    prop::collection::vec(atoms, 0..40).prop_map(|atoms| atoms.concat())
}

/// The pieces tiktoken's own o200k_base pattern finds, on tiktoken-rs's regex engine.
fn tiktoken_pieces(text: &str) -> Vec<&str> {
    static PATTERN: LazyLock<fancy_regex::Regex> = LazyLock::new(|| {
        fancy_regex::Regex::new(tiktoken_rs::O200K_BASE_PAT_STR).expect("tiktoken's pattern")
    });
    PATTERN
        .find_iter(text)
        .map(|m| {
            m.expect("short texts never overflow the backtracking")
                .as_str()
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]
    #[test]
    fn o200k_pieces_are_tiktokens_own_on_caseless_scripts(text in caseless_text()) {
        let splitter = Splitter::new(Pattern::O200k).unwrap();
        let ours: Vec<&str> = splitter.pieces(&text).map(|r| &text[r]).collect();
        prop_assert_eq!(ours, tiktoken_pieces(&text), "{:?}", text);
    }
}

#[test]
fn the_bench_corpora_split_into_tiktokens_own_pieces() {
    let corpora: Vec<serde_json::Value> =
        serde_json::from_str(include_str!("../../benches/corpora/corpora.json")).unwrap();
    let splitter = Splitter::new(Pattern::O200k).unwrap();
    for corpus in &corpora {
        let text = corpus["text"].as_str().unwrap();
        let ours: Vec<&str> = splitter.pieces(text).map(|r| &text[r]).collect();
        assert!(ours == tiktoken_pieces(text), "{}", corpus["name"]);
    }
}

proptest! {
    #[test]
    fn splitter_pieces_tokenise_like_the_whole_text(text in adversarial_text()) {
        for encoding in Encoding::ALL {
            let splitter = Splitter::new(encoding.pattern()).unwrap();
            let by_piece: Vec<u32> = splitter
                .pieces(&text)
                .flat_map(|piece| reference(encoding, &text[piece]))
                .collect();
            prop_assert_eq!(by_piece, reference(encoding, &text), "{} {:?}", encoding, text);
        }
    }

    #[test]
    fn counting_piece_by_piece_equals_tiktoken(text in adversarial_text()) {
        // Padding makes the text longer than the piece limit; the padding is ordinary words.
        let text = format!("{}{text}", "word ".repeat(201));
        for encoding in Encoding::ALL {
            prop_assert_eq!(limited_tokens(encoding, &text), reference(encoding, &text));
        }
    }

    #[test]
    fn the_piece_cache_changes_no_count(texts in prop::collection::vec(adversarial_text(), 1..8)) {
        // The same pieces again and again, so that later texts are answered from the cache.
        for encoding in Encoding::ALL {
            let vocabulary = LOADED.vocabularies[encoding.index()].get().expect("loaded");
            for text in texts.iter().chain(&texts) {
                let limits = Limits::default();
                prop_assert_eq!(
                    vocabulary.count(text, limits),
                    vocabulary.count_without_piece_cache(text, limits),
                    "{} {:?}", encoding, text
                );
            }
        }
    }
}

#[test]
fn whitespace_before_a_digit_stays_two_pieces() {
    // Regression (from when long texts were cut into chunks for tiktoken-rs): a chunk that ended
    // inside "  1" made tiktoken-rs see "  " at the end of the text and take it as one piece,
    // where the whole text has " " and " " before "1".
    let text = format!("{}a  1", "word ".repeat(201));
    for encoding in Encoding::ALL {
        assert_eq!(limited_tokens(encoding, &text), reference(encoding, &text));
    }
}

#[test]
fn tokens_tile_the_text_and_carry_tiktokens_ids() {
    let text = "Zalgo Z\u{351}a 👩🏽‍💻 <|endoftext|>\n\n  ₹1,20,000";
    let spans = LOADED.tokens_of(text).expect("loaded");
    let ids: Vec<u32> = spans.iter().map(|s| s.token.unwrap()).collect();
    assert_eq!(ids, reference(Encoding::O200kBase, text));
    let mut at = 0;
    for span in &spans {
        assert_eq!(span.bytes.start, at);
        assert!(span.bytes.end > span.bytes.start);
        at = span.bytes.end;
    }
    assert_eq!(at, text.len());
    // Some emoji token ends inside a character: the spans really are byte ranges.
    assert!(spans.iter().any(|s| !text.is_char_boundary(s.bytes.end)));
}

#[test]
fn an_over_long_piece_is_one_untokenised_span() {
    let text = format!("ok{}", "^".repeat(10_000));
    let spans = LOADED.tokens_of(&text).expect("loaded");
    assert_eq!(spans.last().unwrap().token, None);
    assert_eq!(spans.last().unwrap().bytes, 2..text.len());
    assert!(spans[..spans.len() - 1].iter().all(|s| s.token.is_some()));
}

#[test]
fn an_edit_recounts_only_the_edited_message() {
    let counter = TokenCounter::default();
    counter.load(Encoding::O200kBase).unwrap();
    let mut turns = vec![
        "You are a careful financial assistant.".to_owned(),
        "Never suggest equities.".to_owned(),
        "Noted: fixed deposits only.".to_owned(),
    ];
    let count_all = |turns: &[String]| {
        counter.count_chat(turns.iter().map(|t| ChatTurn {
            role: Role::User,
            name: None,
            content: t,
        }))
    };
    count_all(&turns);
    assert_eq!(counter.cache_stats(), CacheStats { hits: 0, misses: 3 });
    turns[1].push('!');
    let after = count_all(&turns);
    assert_eq!(counter.cache_stats(), CacheStats { hits: 2, misses: 4 });
    assert_eq!(
        after.turns[1].content,
        Count::Exact(reference(Encoding::O200kBase, &turns[1]).len() as u32)
    );
}

#[test]
fn chat_overhead_follows_the_cookbook_rule() {
    // The overhead constant assumes each role string is a single token in both encodings.
    for encoding in Encoding::ALL {
        for role in [Role::System, Role::User, Role::Assistant] {
            assert_eq!(
                reference(encoding, role.as_str()).len(),
                1,
                "{encoding} {role:?}"
            );
        }
    }
    let system = "Summarise the conversation.";
    let user = "Hi";
    let chat = LOADED.count_chat([
        ChatTurn {
            role: Role::System,
            name: None,
            content: system,
        },
        ChatTurn {
            role: Role::User,
            name: Some("priya"),
            content: user,
        },
    ]);
    let content = (reference(Encoding::O200kBase, system).len()
        + reference(Encoding::O200kBase, user).len()) as u32;
    let name = reference(Encoding::O200kBase, "priya").len() as u32;
    assert_eq!(chat.turns[0].overhead, 4);
    assert_eq!(chat.turns[1].overhead, 5);
    assert_eq!(chat.content(), Count::Exact(content));
    assert_eq!(chat.overhead(), Count::Exact(4 + 5 + name + 3));
    assert_eq!(chat.total(), Count::Exact(content + 4 + 5 + name + 3));
}

#[test]
fn a_chat_is_pending_while_any_part_is() {
    let counter = TokenCounter::default();
    let message = Message::new(Role::User, "hello", &crate::engine::WordCounter, 0);
    let chat = counter.count_chat([ChatTurn::from(&message)]);
    assert_eq!(chat.total(), Count::Pending);
    assert_eq!(chat.turns[0].overhead, 4);
}

#[test]
fn whitespace_before_an_over_long_piece_keeps_its_own_pieces() {
    // The tokens before an over-long piece are exact: the whitespace before it is split as in
    // the whole text (cl100k's `\s+$` must not take "\n   " as one piece).
    let long_piece = format!(" {}", "!".repeat(1200));
    for indent in ["\n ", "\n  ", "\n   ", "\n    ", "\n\n     ", "\t\n\t\t "] {
        let text = format!("{}a{indent}{long_piece}", "word ".repeat(201));
        for encoding in Encoding::ALL {
            let whole = reference(encoding, &text);
            let before = &whole[..whole.len() - reference(encoding, &long_piece).len()];
            {
                let limits = Limits {
                    max_piece_bytes: 1000,
                };
                let vocabulary = LOADED.vocabularies[encoding.index()].get().expect("loaded");
                let spans = vocabulary.tokens_of(&text, limits);
                let (last, exact) = spans.split_last().expect("spans");
                assert_eq!(last.token, None);
                assert_eq!(last.bytes, text.len() - long_piece.len()..text.len());
                let ids: Vec<u32> = exact.iter().map(|s| s.token.unwrap()).collect();
                assert_eq!(ids, before, "{encoding} {indent:?}");
            }
        }
    }
}

// The compact vocabulary format and the loading states.

#[test]
fn the_compact_form_round_trips_every_token_of_tiktoken() {
    for encoding in Encoding::ALL {
        let data = compact::from_tiktoken(encoding);
        let parsed = sm_bpe::compact::parse(encoding.name(), &data).expect("parses");
        let ranks = sm_bpe::Ranks::new(parsed.clone()).expect("indexes");
        let bpe = match encoding {
            Encoding::O200kBase => tiktoken_rs::o200k_base_singleton(),
            Encoding::Cl100kBase => tiktoken_rs::cl100k_base_singleton(),
        };
        let count = parsed.starts.len() - 1;
        let expect = match encoding {
            Encoding::O200kBase => 199_998,
            Encoding::Cl100kBase => 100_256,
        };
        assert_eq!(count, expect, "{encoding}");
        for rank in 0..count as u32 {
            let bytes = bpe.decode_bytes(&[rank]).expect("an ordinary rank");
            assert_eq!(ranks.bytes_of(rank), bytes.as_slice(), "{encoding} {rank}");
            assert_eq!(ranks.get(&bytes), Some(rank), "{encoding} {rank}");
        }
        // Written again from the parsed form, the bytes are the same.
        let again = compact::encode(
            encoding,
            (0..count as u32).map(|rank| (rank, ranks.bytes_of(rank))),
        )
        .unwrap();
        assert_eq!(again, data);
    }
}

/// Every single byte, then "ab" at 256, a gap at 257, and "abc" at 258.
fn small_vocabulary() -> Vec<u8> {
    let bytes: Vec<[u8; 1]> = (0..=u8::MAX).map(|b| [b]).collect();
    let mut tokens: Vec<(u32, &[u8])> = bytes
        .iter()
        .enumerate()
        .map(|(rank, b)| (rank as u32, b.as_slice()))
        .collect();
    tokens.push((256, b"ab"));
    tokens.push((258, b"abc"));
    compact::encode(Encoding::Cl100kBase, tokens).unwrap()
}

#[test]
fn a_small_vocabulary_with_a_gap_parses_and_merges() {
    let counter = TokenCounter::new(Encoding::Cl100kBase);
    counter
        .load_from(Encoding::Cl100kBase, &small_vocabulary())
        .unwrap();
    // "abc" is one token; in "abd", "ab" merges and "d" stays alone.
    assert_eq!(counter.count("abc"), Count::Exact(1));
    assert_eq!(counter.count("abd"), Count::Exact(2));
    let ids: Vec<u32> = counter
        .tokens_of("abd")
        .unwrap()
        .iter()
        .map(|s| s.token.unwrap())
        .collect();
    assert_eq!(ids, vec![256, u32::from(b'd')]);
}

#[test]
fn broken_vocabularies_are_rejected_with_the_reason() {
    use compact::FormatError::*;
    let data = small_vocabulary();
    let reject = |data: &[u8], encoding: Encoding| match TokenCounter::new(encoding)
        .load_from(encoding, data)
    {
        Err(TokensError::Load { reason, .. }) => reason,
        other => panic!("accepted a broken vocabulary: {other:?}"),
    };
    let cl100k = Encoding::Cl100kBase;
    assert_eq!(reject(b"<!DOCTYPE html>", cl100k), Magic.to_string());
    assert_eq!(
        reject(&data[..data.len() - 1], cl100k),
        Truncated.to_string()
    );
    assert_eq!(reject(&data[..12], cl100k), Truncated.to_string());
    let mut trailing = data.clone();
    trailing.push(0);
    assert_eq!(reject(&trailing, cl100k), Trailing(1).to_string());
    assert!(reject(&data, Encoding::O200kBase).contains("cl100k_base"));
    // Without the byte 0x00 as a token, some texts could not be encoded.
    let bytes: Vec<[u8; 1]> = (1..=u8::MAX).map(|b| [b]).collect();
    let missing = compact::encode(
        cl100k,
        bytes
            .iter()
            .enumerate()
            .map(|(r, b)| (r as u32, b.as_slice())),
    )
    .unwrap();
    assert_eq!(reject(&missing, cl100k), MissingByte(0).to_string());
    let twice = compact::encode(cl100k, [(0, &b"a"[..]), (1, &b"a"[..])]).unwrap();
    assert_eq!(reject(&twice, cl100k), Duplicate { rank: 1 }.to_string());
    // A header that announces more ranks than there are bytes fails before allocating them.
    let header = compact::MAGIC.len() + 1 + "cl100k_base".len();
    let mut huge = data[..header].to_vec();
    huge.extend_from_slice(&u32::MAX.to_le_bytes());
    assert_eq!(reject(&huge, cl100k), Truncated.to_string());
}

#[test]
fn a_failed_load_gives_estimates_until_a_load_succeeds() {
    let counter = TokenCounter::new(Encoding::Cl100kBase);
    assert_eq!(counter.count("hello world!"), Count::Pending);
    counter.fail(Encoding::Cl100kBase);
    assert!(counter.is_failed(Encoding::Cl100kBase));
    assert_eq!(counter.count("hello world!"), Count::Estimate(3));
    assert_eq!(counter.count(""), Count::Estimate(0));
    assert_eq!(
        counter.count_with(Encoding::O200kBase, "hi"),
        Count::Pending
    );
    counter
        .load_from(Encoding::Cl100kBase, &small_vocabulary())
        .unwrap();
    assert!(!counter.is_failed(Encoding::Cl100kBase));
    assert_eq!(counter.count("abc"), Count::Exact(1));
}

proptest! {
    #[test]
    fn long_pieces_merge_like_tiktoken(word in "[a-zA-Z0-9]{90,400}") {
        // Pieces of 100 bytes and more take the heap-based merge.
        for encoding in Encoding::ALL {
            let vocabulary = LOADED.vocabularies[encoding.index()].get().expect("loaded");
            let ids: Vec<u32> = vocabulary
                .tokens_of(&word, Limits::default())
                .iter()
                .map(|s| s.token.unwrap())
                .collect();
            prop_assert_eq!(&ids, &reference(encoding, &word));
            prop_assert_eq!(
                vocabulary.count_without_piece_cache(&word, Limits::default()),
                Count::Exact(ids.len() as u32)
            );
        }
    }
}

#[test]
fn before_the_vocabulary_loads_the_demos_count_exactly_and_other_text_is_estimated() {
    // The demos play with no endpoint and no vocabulary (it is fetched only when first needed):
    // their texts' counts come from the table computed at build time, the same as the loaded
    // vocabulary's; any other text gets one token per 4 bytes from the engine, never 0.
    use crate::engine::demo::{DemoPlayer, DemoScript};
    use crate::engine::message::CountTokens;
    let pending = TokenCounter::default();
    let exact = TokenCounter::default();
    exact.load(Encoding::O200kBase).unwrap();
    for script in [DemoScript::fincoach(), DemoScript::drift()] {
        let mut player = DemoPlayer::new(script).unwrap();
        player.play_all(&pending).unwrap();
        let messages = player.memory().archive();
        assert!(!messages.is_empty());
        for message in messages {
            assert_eq!(
                message.tokens,
                CountTokens::count(&exact, &message.content),
                "{:?}",
                message.content
            );
            assert!(message.tokens > 0, "{:?}", message.content);
        }
    }
    let typed = "A message no demo has, typed by someone.";
    assert_eq!(pending.count(typed), Count::Pending);
    assert_eq!(CountTokens::count(&pending, typed), rough_estimate(typed));
}

// The splitter (`sm_bpe::Splitter`) on its own.

fn check_pieces(encoding: Encoding, text: &str, expect: &[&str]) {
    let splitter = Splitter::new(encoding.pattern()).expect("the patterns compile");
    let got: Vec<&str> = splitter.pieces(text).map(|r| &text[r]).collect();
    assert_eq!(got, expect, "{encoding:?} pieces of {text:?}");
}

#[test]
fn whitespace_before_a_word_gives_its_last_space_to_the_word() {
    check_pieces(Encoding::O200kBase, "a   b", &["a", "  ", " b"]);
    check_pieces(Encoding::Cl100kBase, "a   b", &["a", "  ", " b"]);
}

#[test]
fn whitespace_at_the_end_stays_whole() {
    check_pieces(Encoding::O200kBase, "a   ", &["a", "   "]);
    check_pieces(Encoding::Cl100kBase, "a   ", &["a", "   "]);
}

#[test]
fn trailing_whitespace_after_a_newline_differs_between_encodings() {
    // o200k has no `\s+$` before `\s*[\r\n]+`, cl100k has one before `\s*[\r\n]`.
    check_pieces(Encoding::O200kBase, "a\n  ", &["a", "\n", "  "]);
    check_pieces(Encoding::Cl100kBase, "a\n  ", &["a", "\n  "]);
}

#[test]
fn multibyte_whitespace_is_given_back_by_whole_characters() {
    check_pieces(
        Encoding::O200kBase,
        "a\u{3000}\u{3000}b",
        &["a", "\u{3000}", "\u{3000}b"],
    );
}

#[test]
fn a_million_spaces_split_in_linear_time() {
    let text = " ".repeat(1 << 20) + "x";
    let splitter = Splitter::new(Encoding::O200kBase.pattern()).expect("the patterns compile");
    let pieces: Vec<_> = splitter.pieces(&text).collect();
    assert_eq!(pieces, vec![0..(1 << 20) - 1, (1 << 20) - 1..(1 << 20) + 1]);
}

#[test]
fn a_vocabulary_loaded_in_steps_counts_like_tiktoken_and_is_pending_until_installed() {
    let encoding = Encoding::Cl100kBase;
    let counter = TokenCounter::new(encoding);
    let data = compact::from_tiktoken(encoding);
    let mut loading = counter.start_loading(encoding, &data).unwrap();
    let mut steps = 1;
    while !loading.step(16_384).unwrap() {
        assert_eq!(counter.count("hello world"), Count::Pending);
        steps += 1;
    }
    // The tokens' steps, then one that compiles the splitter.
    assert_eq!(steps, 100_256usize.div_ceil(16_384) + 1);
    counter.finish_loading(loading).unwrap();
    for text in [
        "Hello, world!",
        "नमस्ते, ₹1,20,000 का बजट",
        "我们今天讨论了长期记忆。",
    ] {
        let expect = reference(encoding, text).len() as u32;
        assert_eq!(counter.count(text), Count::Exact(expect), "{text:?}");
    }
    // A file for another encoding is refused before any step.
    let Err(err) = counter.start_loading(Encoding::O200kBase, &data) else {
        panic!("the cl100k_base file is not o200k_base");
    };
    assert!(err.to_string().contains("cl100k_base"), "{err}");
}

/// The exactness corpus's texts (tests/tokenizer-oracle/corpus.json), and the whole corpus as
/// one text.
static CORPUS: LazyLock<Vec<String>> = LazyLock::new(|| {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/tokenizer-oracle/corpus.json"
    );
    let json = std::fs::read_to_string(path).expect("the corpus file");
    let entries: Vec<serde_json::Value> = serde_json::from_str(&json).expect("a JSON array");
    let mut texts: Vec<String> = entries
        .iter()
        .map(|e| e["text"].as_str().expect("a text").to_owned())
        .collect();
    texts.push(texts.concat());
    texts
});

/// `text` cut at `cuts` (fractions of its length, moved back to a character boundary), as the
/// prefixes a stream would have delivered.
fn prefixes<'t>(text: &'t str, cuts: &[f64]) -> Vec<&'t str> {
    let mut ends: Vec<usize> = cuts
        .iter()
        .map(|f| {
            let mut at = ((text.len() as f64) * f) as usize;
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            at
        })
        .chain([text.len()])
        .collect();
    ends.sort_unstable();
    ends.into_iter().map(|end| &text[..end]).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    /// A reply counted as it arrives, piece by piece in random chunks, always has the count of
    /// its whole text so far: the count the vocabulary gives it, and tiktoken-rs's.
    #[test]
    fn a_growing_text_counts_exactly_at_every_chunk(
        which in 0usize..1000,
        cuts in prop::collection::vec(0.0f64..1.0, 0..40),
        extra in adversarial_text(),
    ) {
        let base = &CORPUS[which % CORPUS.len()];
        // The corpus text, then an adversarial tail (runs of spaces, digits, marks).
        let text = format!("{base}{extra}");
        for encoding in Encoding::ALL {
            let mut growing = GrowingCount::default();
            for prefix in prefixes(&text, &cuts) {
                let grown = LOADED.count_growing_with(encoding, prefix, &mut growing);
                prop_assert_eq!(grown, LOADED.count_uncached(encoding, prefix), "{} {:?}", encoding, prefix);
                prop_assert!(growing.settled <= prefix.len());
            }
            let whole = reference(encoding, &text).len() as u32;
            prop_assert_eq!(LOADED.count_growing_with(encoding, &text, &mut growing), Count::Exact(whole));
        }
    }
}

#[test]
fn a_growing_reply_settles_all_but_its_last_pieces() {
    let text = &CORPUS[CORPUS.len() - 1];
    let mut growing = GrowingCount::default();
    // Byte by byte, the whole corpus: every step exact, and the settled part keeps up.
    for end in (0..=text.len()).filter(|&i| text.is_char_boundary(i)) {
        let prefix = &text[..end];
        assert_eq!(
            LOADED.count_growing_with(Encoding::O200kBase, prefix, &mut growing),
            LOADED.count_uncached(Encoding::O200kBase, prefix),
            "{prefix:?}"
        );
    }
    assert!(
        text.len() - growing.settled < 200,
        "only the tail is unsettled: {} of {} bytes settled",
        growing.settled,
        text.len()
    );
    // Another encoding's place is not reused.
    let count = LOADED.count_growing_with(Encoding::Cl100kBase, text, &mut growing);
    assert_eq!(count, LOADED.count_uncached(Encoding::Cl100kBase, text));
}
