//! Regex's Unicode classes spelled out as `regex-lite` class text, for the core's fixed patterns
//! (the figures check, the extractive summariser, a server's error messages), which were
//! written for `regex`'s Unicode `\s` and `\d` and now compile on `regex-lite`, whose `\s` and
//! `\d` are ASCII. A pattern's source puts the class where it had `\s` or `\d` (see
//! [`spell`]). `tests` checks each class against `regex` over every char.
//!
//! What cannot be spelled: `regex`'s Unicode `\b` (regex-lite's is ASCII, and it has no
//! look-around). Each fixed pattern documents where that shows.

/// The items of [`SPACE`], for a class that adds others (`[SPACE_ITEMS\-]`).
macro_rules! space_items {
    () => {
        r"\t-\r\x20\x{85}\x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}"
    };
}

/// `regex`'s `\s`: Unicode White_Space (tab to carriage return, space, NEL, NBSP, OGHAM SPACE
/// MARK, EN QUAD to HAIR SPACE, the line and paragraph separators, NARROW NBSP, MEDIUM
/// MATHEMATICAL SPACE, IDEOGRAPHIC SPACE).
pub const SPACE: &str = concat!("[", space_items!(), "]");

/// [`SPACE`]'s items without the brackets.
pub const SPACE_ITEMS: &str = space_items!();

/// `regex`'s `\d`: Unicode Nd, the decimal digits of every script (Devanagari, Arabic-Indic,
/// fullwidth, mathematical...).
pub const DIGIT: &str = concat!(
    "[",
    r"0-9\x{660}-\x{669}\x{6F0}-\x{6F9}\x{7C0}-\x{7C9}\x{966}-\x{96F}\x{9E6}-\x{9EF}",
    r"\x{A66}-\x{A6F}\x{AE6}-\x{AEF}\x{B66}-\x{B6F}\x{BE6}-\x{BEF}\x{C66}-\x{C6F}",
    r"\x{CE6}-\x{CEF}\x{D66}-\x{D6F}\x{DE6}-\x{DEF}\x{E50}-\x{E59}\x{ED0}-\x{ED9}",
    r"\x{F20}-\x{F29}\x{1040}-\x{1049}\x{1090}-\x{1099}\x{17E0}-\x{17E9}\x{1810}-\x{1819}",
    r"\x{1946}-\x{194F}\x{19D0}-\x{19D9}\x{1A80}-\x{1A89}\x{1A90}-\x{1A99}",
    r"\x{1B50}-\x{1B59}\x{1BB0}-\x{1BB9}\x{1C40}-\x{1C49}\x{1C50}-\x{1C59}",
    r"\x{A620}-\x{A629}\x{A8D0}-\x{A8D9}\x{A900}-\x{A909}\x{A9D0}-\x{A9D9}",
    r"\x{A9F0}-\x{A9F9}\x{AA50}-\x{AA59}\x{ABF0}-\x{ABF9}\x{FF10}-\x{FF19}",
    r"\x{104A0}-\x{104A9}\x{10D30}-\x{10D39}\x{10D40}-\x{10D49}\x{11066}-\x{1106F}",
    r"\x{110F0}-\x{110F9}\x{11136}-\x{1113F}\x{111D0}-\x{111D9}\x{112F0}-\x{112F9}",
    r"\x{11450}-\x{11459}\x{114D0}-\x{114D9}\x{11650}-\x{11659}\x{116C0}-\x{116C9}",
    r"\x{116D0}-\x{116E3}\x{11730}-\x{11739}\x{118E0}-\x{118E9}\x{11950}-\x{11959}",
    r"\x{11BF0}-\x{11BF9}\x{11C50}-\x{11C59}\x{11D50}-\x{11D59}\x{11DA0}-\x{11DA9}",
    r"\x{11F50}-\x{11F59}\x{16130}-\x{16139}\x{16A60}-\x{16A69}\x{16AC0}-\x{16AC9}",
    r"\x{16B50}-\x{16B59}\x{16D70}-\x{16D79}\x{1CCF0}-\x{1CCF9}\x{1D7CE}-\x{1D7FF}",
    r"\x{1E140}-\x{1E149}\x{1E2F0}-\x{1E2F9}\x{1E4F0}-\x{1E4F9}\x{1E5F1}-\x{1E5FA}",
    r"\x{1E950}-\x{1E959}\x{1FBF0}-\x{1FBF9}",
    "]"
);

/// `source` with every `SPACE`, `SPACE_ITEMS` and `DIGIT` written out: the fixed patterns
/// keep their text readable and the long classes are stored once.
pub fn spell(source: &str) -> String {
    source
        .replace("SPACE_ITEMS", SPACE_ITEMS)
        .replace("SPACE", SPACE)
        .replace("DIGIT", DIGIT)
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod fixed_tests;
