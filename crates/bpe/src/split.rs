//! A linear-time re-implementation of tiktoken's pre-tokenising regexes.
//!
//! tiktoken splits text into "pieces" with a regex that needs a look-ahead (`\s+(?!\S)`), so
//! tiktoken-rs runs it on fancy-regex, a backtracking engine. On a long whitespace run that engine
//! overflows its backtracking stack, and tiktoken-rs unwraps the error: a panic, which traps the
//! whole wasm module. This splitter finds the same pieces with regex-automata's lazy DFA, which
//! has no backtracking and no such limit, so the counter can see every piece before any of the
//! text reaches tiktoken-rs and keep the pieces that tiktoken-rs cannot handle away from it.
//!
//! The look-ahead is emulated the way GitHub's `bpe-openai` crate does it: `\s+(?!\S)` matches a
//! whitespace run up to the end of the text (`\s+$`), or, when a non-space follows, the run minus
//! its last character (`\s+\s` with the last character given back). The other alternatives are
//! tiktoken's own, with possessive quantifiers written greedy; on these patterns the two mean the
//! same, because nothing after them could succeed by taking characters back.
//!
//! Tests (unit and property, in `summary_memory::tokens`, next to tiktoken-rs) check that the
//! pieces equal what tiktoken-rs's own regex produces.

use std::sync::{Mutex, MutexGuard};

use regex_automata::hybrid::BuildError;
use regex_automata::hybrid::dfa::{Cache, DFA};
use regex_automata::{Anchored, Input, MatchKind};

/// Splits a text into the pieces that tiktoken's regex for one encoding would produce.
///
/// It runs the lazy DFA directly rather than through `meta::Regex`: a piece's start is known
/// (the search is anchored there), so the forward search's end and pattern are all we need, and
/// the meta regex would spend a second, reverse scan finding the start it was given.
#[derive(Debug)]
pub struct Splitter {
    pattern: Pattern,
    dfa: DFA,
    /// o200k_base's fast path for runs of caseless letters; `None` for cl100k_base.
    runs: Option<Box<RunClasses>>,
    /// Lazy-DFA caches to reuse: one is taken for each text being split (nested splits take
    /// another) and given back when its pieces are done.
    caches: Mutex<Vec<Cache>>,
}

/// Which of tiktoken's pre-tokenising regexes to split with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pattern {
    /// o200k_base's.
    O200k,
    /// cl100k_base's.
    Cl100k,
}

/// The pattern whose match must give back its last character (the `\s+(?!\S)` emulation).
const GIVE_BACK_LAST_CHAR: usize = 1;

/// o200k_base's alternatives up to the look-ahead, in tiktoken's order, then `\s+$`, which is the
/// end-of-text half of `\s+(?!\S)`.
const O200K_MAIN: &str = concat!(
    r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
    r"|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
    r"|\p{N}{1,3}",
    r"| ?[^\s\p{L}\p{N}]+[\r\n/]*",
    r"|\s*[\r\n]+",
    r"|\s+$",
);

/// cl100k_base's alternatives in the order tiktoken-rs 0.12 has them: `\s++$` comes before
/// `\s*[\r\n]`, which matters for trailing whitespace after a newline.
const CL100K_MAIN: &str = concat!(
    r"'(?i:[sdmt]|ll|ve|re)",
    r"|[^\r\n\p{L}\p{N}]?\p{L}+",
    r"|\p{N}{1,3}",
    r"| ?[^\s\p{L}\p{N}]+[\r\n]*",
    r"|\s+$",
    r"|\s*[\r\n]",
);

impl Splitter {
    /// Compiles the lazy DFA for `pattern`. The patterns are constants, so an error here is a
    /// bug in this crate rather than bad input; it is returned rather than unwrapped so that a
    /// page shows it instead of trapping.
    pub fn new(pattern: Pattern) -> Result<Self, Box<BuildError>> {
        let (main, last) = match pattern {
            Pattern::O200k => (O200K_MAIN, r"\s+"),
            Pattern::Cl100k => (CL100K_MAIN, r"\s"),
        };
        // Leftmost-first over several patterns prefers the earlier pattern at the same start,
        // which is exactly how the alternation in tiktoken's regex behaves.
        let dfa = DFA::builder()
            .configure(DFA::config().match_kind(MatchKind::LeftmostFirst))
            .build_many(&[main, r"\s+\s", last])
            .map_err(Box::new)?;
        let runs = (pattern == Pattern::O200k).then(|| Box::new(RunClasses::new()));
        Ok(Splitter {
            pattern,
            dfa,
            runs,
            caches: Mutex::new(Vec::new()),
        })
    }

    /// Iterates over the byte ranges of the pieces of `text`. The ranges tile the text.
    pub fn pieces<'s, 't>(&'s self, text: &'t str) -> Pieces<'s, 't> {
        let cache = self.pool().pop().unwrap_or_else(|| self.dfa.create_cache());
        Pieces {
            splitter: self,
            cache: Some(cache),
            text,
            at: 0,
        }
    }

    /// The furthest piece boundary of `text`, from `from` on (itself a boundary that no text
    /// appended later can move), that no text appended later can move either, with the pieces
    /// before it. A piece is settled when the regex's search for it ends inside `text`: the lazy
    /// DFA reaches its dead state before the last byte, so the match (and the alternative that
    /// won) was decided by bytes already there and no continuation can lengthen it, shorten it
    /// or let an earlier alternative win. The pieces before a settled boundary are those of any
    /// longer text that starts with `text`, and the pieces after it are found afresh from it
    /// (the patterns look at nothing before a piece's start), so a growing text's count is the
    /// settled pieces' count plus a count of what follows the boundary.
    pub fn settled(&self, text: &str, from: usize) -> Settled {
        let mut cache = self.pool().pop().unwrap_or_else(|| self.dfa.create_cache());
        let mut end = from;
        let mut pieces = Vec::new();
        for piece in self.pieces(&text[from..]) {
            let piece = piece.start + from..piece.end + from;
            if !self.decided(&mut cache, text, piece.start) {
                break;
            }
            end = piece.end;
            pieces.push(piece);
        }
        self.pool().push(cache);
        Settled { end, pieces }
    }

    /// Whether the anchored search at `start` dies inside `text`, so that no byte appended to
    /// `text` can change the piece found there.
    fn decided(&self, cache: &mut Cache, text: &str, start: usize) -> bool {
        let input = Input::new(text).range(start..).anchored(Anchored::Yes);
        let Ok(mut state) = self.dfa.start_state_forward(cache, &input) else {
            return false;
        };
        for &byte in &text.as_bytes()[start..] {
            match self.dfa.next_state(cache, state, byte) {
                Ok(next) if next.is_dead() => return true,
                Ok(next) if next.is_quit() => return false,
                Ok(next) => state = next,
                Err(_) => return false,
            }
        }
        false
    }

    fn pool(&self) -> MutexGuard<'_, Vec<Cache>> {
        // A cache is whole or absent; a panic elsewhere cannot leave one half-given-back.
        self.caches
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// What [`Splitter::settled`] found: the settled boundary and the settled pieces before it,
/// from the boundary it started at.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Settled {
    pub end: usize,
    pub pieces: Vec<std::ops::Range<usize>>,
}

/// The pieces of one text, as byte ranges, in order.
pub struct Pieces<'s, 't> {
    splitter: &'s Splitter,
    cache: Option<Cache>,
    text: &'t str,
    at: usize,
}

impl Drop for Pieces<'_, '_> {
    fn drop(&mut self) {
        if let Some(cache) = self.cache.take() {
            self.splitter.pool().push(cache);
        }
    }
}

impl Iterator for Pieces<'_, '_> {
    type Item = std::ops::Range<usize>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.at >= self.text.len() {
            return None;
        }
        let start = self.at;
        if self.splitter.pattern == Pattern::O200k
            && let Some(end) = ascii_o200k(self.text.as_bytes(), start).or_else(|| {
                let runs = self.splitter.runs.as_deref()?;
                caseless_run_o200k(runs, self.text, start)
            })
        {
            self.at = end;
            return Some(start..end);
        }
        // Every character starts a piece in both encodings (the last alternative takes any
        // whitespace, the others any letter, digit or other character), so an anchored search
        // always succeeds. Should it ever not, one character goes on alone rather than looping.
        let input = Input::new(self.text).range(start..).anchored(Anchored::Yes);
        let cache = self.cache.as_mut().expect("a cache until dropped");
        // The search cannot fail: the patterns have no Unicode word boundary (no quit bytes), and
        // the cache is never given up on. Should it fail anyway, the fallback below applies.
        let found = self
            .splitter
            .dfa
            .try_search_fwd(cache, &input)
            .ok()
            .flatten();
        let end = match found {
            Some(m) if m.offset() > start => {
                if m.pattern().as_usize() == GIVE_BACK_LAST_CHAR {
                    let matched = &self.text[start..m.offset()];
                    let last = matched.chars().next_back().map_or(0, char::len_utf8);
                    m.offset() - last
                } else {
                    m.offset()
                }
            }
            _ => start + self.text[start..].chars().next().map_or(1, char::len_utf8),
        };
        self.at = end;
        Some(start..end)
    }
}

/// The end of text, for [`ascii_o200k`]'s look at the next byte.
const END: u16 = 256;

/// o200k_base's piece at `start`, found without the DFA when every byte the regex would have to
/// look at is ASCII; `None` as soon as one is not (a non-ASCII byte may be a letter, a mark, a
/// digit, whitespace or, after an apostrophe, a case variant of "s"), and the DFA decides.
/// Each alternative is the regex's, in its order, specialised to ASCII, where letters are upper
/// or lower case (no `Lt`, `Lm`, `Lo` or `M`) and whitespace is `\t`..`\r` and the space.
/// The property tests against tiktoken-rs cover it like the DFA.
#[inline]
fn ascii_o200k(text: &[u8], start: usize) -> Option<usize> {
    let at = |i: usize| match text.get(i) {
        None => Some(END),
        Some(&b) if b.is_ascii() => Some(u16::from(b)),
        Some(_) => None,
    };
    let is = |c: u16, class: fn(&u8) -> bool| c < END && class(&(c as u8));
    let is_space = |c: u16| matches!(c, 0x09..=0x0d | 0x20);
    let is_newline = |c: u16| c == u16::from(b'\r') || c == u16::from(b'\n');
    let is_other = |c: u16| c < END && !is_space(c) && !is(c, u8::is_ascii_alphanumeric);

    let c = at(start)?;
    // `[^\r\n\p{L}\p{N}]?[\p{Lu}..]*[\p{Ll}..]+(?i:'s|..)?` and `..[\p{Lu}..]+[\p{Ll}..]*..`:
    // in ASCII both are the run of upper-case letters, then the run of lower-case ones.
    let letters = if is(c, u8::is_ascii_alphabetic) {
        Some(start)
    } else if !is(c, u8::is_ascii_digit)
        && !is_newline(c)
        && is(at(start + 1)?, u8::is_ascii_alphabetic)
    {
        Some(start + 1)
    } else {
        None
    };
    if let Some(mut i) = letters {
        while is(at(i)?, u8::is_ascii_uppercase) {
            i += 1;
        }
        while is(at(i)?, u8::is_ascii_lowercase) {
            i += 1;
        }
        if at(i)? != u16::from(b'\'') {
            return Some(i);
        }
        let lower = |c: u16| if c < END { c | 0x20 } else { c };
        let contraction = match lower(at(i + 1)?) as u8 {
            b's' | b't' | b'm' | b'd' => 2,
            b'r' | b'v' if lower(at(i + 2)?) == u16::from(b'e') => 3,
            b'l' if lower(at(i + 2)?) == u16::from(b'l') => 3,
            _ => 0,
        };
        return Some(i + contraction);
    }
    // `\p{N}{1,3}`
    if is(c, u8::is_ascii_digit) {
        let mut i = start + 1;
        while i < start + 3 && is(at(i)?, u8::is_ascii_digit) {
            i += 1;
        }
        return Some(i);
    }
    // ` ?[^\s\p{L}\p{N}]+[\r\n/]*`
    let i = if c == u16::from(b' ') {
        start + 1
    } else {
        start
    };
    if is_other(at(i)?) {
        let mut i = i + 1;
        while is_other(at(i)?) {
            i += 1;
        }
        while is_newline(at(i)?) || at(i)? == u16::from(b'/') {
            i += 1;
        }
        return Some(i);
    }
    // What is left starts with whitespace: the run of it, up to the first other byte or the end.
    let mut end = start;
    let mut after_newline = None;
    loop {
        let c = at(end)?;
        if !is_space(c) {
            break;
        }
        end += 1;
        if is_newline(c) {
            after_newline = Some(end);
        }
    }
    Some(match after_newline {
        // `\s*[\r\n]+`: up to the run's last newline.
        Some(i) => i,
        // `\s+$`
        None if at(end)? == END => end,
        // `\s+(?!\S)`, emulated by `\s+\s` giving back its last character, then `\s+`.
        None if end - start >= 2 => end - 1,
        None => end,
    })
}

/// Three sets of characters of the Basic Multilingual Plane, one bit each, for
/// [`caseless_run_o200k`]. They are read from regex-syntax's Unicode tables, the ones the DFA is
/// compiled from, so the fast path and the DFA can never disagree about a character. A character
/// outside the plane is in none of them, which sends the fast path back to the DFA.
#[derive(Debug)]
struct RunClasses {
    /// `[\p{Lm}\p{Lo}\p{M}]`: in both of the letter classes of o200k_base's first two
    /// alternatives (`[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]` and `[\p{Ll}\p{Lm}\p{Lo}\p{M}]`).
    run: Bits,
    /// `[\p{L}\p{M}]`: could continue a letter alternative.
    letter_or_mark: Bits,
    /// `[\r\n\p{L}\p{N}]`: cannot be the optional character before the letters.
    not_prefix: Bits,
}

type Bits = [u64; 1024];

impl RunClasses {
    fn new() -> RunClasses {
        RunClasses {
            run: bits(r"[\p{Lm}\p{Lo}\p{M}]"),
            letter_or_mark: bits(r"[\p{L}\p{M}]"),
            not_prefix: bits(r"[\r\n\p{L}\p{N}]"),
        }
    }
}

/// The BMP characters of a bracketed class, as bits.
fn bits(class: &str) -> Bits {
    use regex_syntax::hir::{Class, HirKind};
    let mut out = [0u64; 1024];
    let hir = regex_syntax::parse(class).expect("a constant class parses");
    let HirKind::Class(Class::Unicode(class)) = hir.kind() else {
        unreachable!("a bracketed Unicode class");
    };
    for range in class.ranges() {
        for c in u32::from(range.start())..=u32::from(range.end()).min(0xffff) {
            out[c as usize >> 6] |= 1 << (c & 63);
        }
    }
    out
}

fn has(bits: &Bits, c: char) -> bool {
    let c = u32::from(c);
    c <= 0xffff && bits[c as usize >> 6] & (1 << (c & 63)) != 0
}

/// o200k_base's piece at `start` when it is a run of caseless letters (`Lm`, `Lo` or marks:
/// Han, kana, Hangul, Devanagari and most other scripts without case), optionally after one
/// character that is no letter, digit or line break (a space, a comma, `「`), and the run ends
/// at a character that could not continue it. The first alternative then takes exactly that
/// prefix and run: its `[..]*` takes the run and gives one character back to `[..]+`. Anything
/// else (a cased letter or an apostrophe after the run, a character outside the Basic
/// Multilingual Plane) returns `None`, and the DFA decides.
#[inline]
fn caseless_run_o200k(classes: &RunClasses, text: &str, start: usize) -> Option<usize> {
    let rest = &text[start..];
    let mut chars = rest.char_indices();
    let (_, first) = chars.next()?;
    if !has(&classes.run, first) {
        if u32::from(first) > 0xffff || has(&classes.not_prefix, first) {
            return None;
        }
        let (_, second) = chars.next()?;
        if !has(&classes.run, second) {
            return None;
        }
    }
    for (at, c) in chars {
        if has(&classes.run, c) {
            continue;
        }
        if c == '\'' || u32::from(c) > 0xffff || has(&classes.letter_or_mark, c) {
            return None;
        }
        return Some(start + at);
    }
    Some(text.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(pattern: Pattern, text: &str, expect: &[&str]) {
        let splitter = Splitter::new(pattern).unwrap();
        let pieces: Vec<&str> = splitter.pieces(text).map(|r| &text[r]).collect();
        assert_eq!(pieces, expect, "{pattern:?} on {text:?}");
    }

    #[test]
    fn o200k_pieces() {
        let o = Pattern::O200k;
        check(o, "Hello world!", &["Hello", " world", "!"]);
        // A contraction stays with its word, and a capitalised word keeps its capitals.
        check(o, "I'm here", &["I'm", " here"]);
        check(o, "HTTPServer", &["HTTPServer"]);
        check(o, "12345", &["123", "45"]);
        // `\s+(?!\S)`: a run of spaces gives its last space to the word after it.
        check(o, "a   b", &["a", "  ", " b"]);
        check(o, "a  ", &["a", "  "]);
        check(o, "a \nb", &["a", " \n", "b"]);
        check(o, "", &[]);
    }

    #[test]
    fn cl100k_pieces() {
        let c = Pattern::Cl100k;
        check(c, "Hello world!", &["Hello", " world", "!"]);
        // cl100k splits the contraction off, unlike o200k.
        check(c, "I'm here", &["I", "'m", " here"]);
        check(c, "12345", &["123", "45"]);
        check(c, "a   b", &["a", "  ", " b"]);
    }

    #[test]
    fn pieces_tile_the_text() {
        let text = "  Ünïcödé  text, 42 numbers\r\n\n and   trailing   ";
        for pattern in [Pattern::O200k, Pattern::Cl100k] {
            let splitter = Splitter::new(pattern).unwrap();
            let mut at = 0;
            for range in splitter.pieces(text) {
                assert_eq!(range.start, at, "{pattern:?}");
                assert!(range.end > range.start, "{pattern:?}");
                at = range.end;
            }
            assert_eq!(at, text.len(), "{pattern:?}");
        }
    }

    #[test]
    fn nested_splits_take_their_own_cache() {
        let splitter = Splitter::new(Pattern::O200k).unwrap();
        let outer: Vec<_> = splitter
            .pieces("one two")
            .map(|r| splitter.pieces("x y").count() + r.len())
            .collect();
        assert_eq!(outer, [2 + 3, 2 + 4]);
    }
}
