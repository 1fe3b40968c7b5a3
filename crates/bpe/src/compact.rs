//! The compact vocabulary format: what the browser downloads instead of embedding tiktoken-rs's
//! base64 text in the wasm.
//!
//! ```text
//! "SMVOCAB1"                    8 bytes, the magic and format version
//! name length (u8), name        the encoding, e.g. "o200k_base", checked on parse
//! rank count (u32, LE)          n: the ranks run from 0 to n - 1
//! n times: length (u8), bytes   the token of each rank, in rank order; length 0 marks a rank
//!                               that holds no ordinary token (a gap)
//! ```
//!
//! Ranks are dense in both encodings (o200k_base 0..199998, cl100k_base 0..100256), so the rank is
//! the position and is never written. No ordinary token is empty or longer than 128 bytes, so one
//! length byte suffices. The pre-tokenising pattern and the special tokens stay in code: the
//! counter never emits special tokens, and the pattern is ours (`split.rs`).

/// The first bytes of every compact vocabulary.
pub const MAGIC: &[u8; 8] = b"SMVOCAB1";

/// Why a compact vocabulary was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FormatError {
    /// The bytes do not start with [`MAGIC`]: not a vocabulary, or another version of the format.
    #[error("not a compact vocabulary (wrong header)")]
    Magic,
    /// The file is for another encoding than the one asked for.
    #[error("the file holds {found}, not {expected}")]
    WrongEncoding { expected: String, found: String },
    /// The bytes end before the header or the tokens it announces.
    #[error("the file is truncated")]
    Truncated,
    /// Bytes follow the last token.
    #[error("{0} unexpected bytes after the last token")]
    Trailing(usize),
    /// Two ranks hold the same bytes, which no BPE vocabulary does.
    #[error("rank {rank} repeats the bytes of an earlier rank")]
    Duplicate { rank: u32 },
    /// A rank that BPE needs is missing: every single byte must be a token.
    #[error("byte {0:#04x} has no token of its own")]
    MissingByte(u8),
    /// Only when writing: a token longer than one length byte can say.
    #[error("rank {rank} is {len} bytes long; the format allows 255")]
    TooLong { rank: u32, len: usize },
}

/// Writes the compact form of the vocabulary named `name` (e.g. "o200k_base"), given as
/// `(rank, bytes)` pairs in any order.
pub fn encode<'a>(
    name: &str,
    tokens: impl IntoIterator<Item = (u32, &'a [u8])>,
) -> Result<Vec<u8>, FormatError> {
    let mut by_rank: Vec<Option<&[u8]>> = Vec::new();
    let mut total = 0;
    for (rank, bytes) in tokens {
        let len = bytes.len();
        if len > usize::from(u8::MAX) {
            return Err(FormatError::TooLong { rank, len });
        }
        let at = rank as usize;
        if by_rank.len() <= at {
            by_rank.resize(at + 1, None);
        }
        by_rank[at] = Some(bytes);
        total += len + 1;
    }
    let name = name.as_bytes();
    let mut out = Vec::with_capacity(MAGIC.len() + 1 + name.len() + 4 + total);
    out.extend_from_slice(MAGIC);
    out.push(name.len() as u8);
    out.extend_from_slice(name);
    out.extend_from_slice(&(by_rank.len() as u32).to_le_bytes());
    for bytes in by_rank {
        let bytes = bytes.unwrap_or_default();
        out.push(bytes.len() as u8);
        out.extend_from_slice(bytes);
    }
    Ok(out)
}

/// A parsed compact vocabulary: every token's bytes in one buffer, and where each rank's start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parsed {
    /// All tokens' bytes, concatenated in rank order.
    pub bytes: Vec<u8>,
    /// `starts[r]..starts[r + 1]` are the bytes of rank `r` (empty for a gap); n + 1 entries.
    pub starts: Vec<u32>,
}

/// Reads the compact form written by [`encode`] for the encoding named `encoding`. Checks the
/// structure only; [`crate::Ranks`] rejects duplicates and missing single bytes while indexing.
pub fn parse(encoding: &str, data: &[u8]) -> Result<Parsed, FormatError> {
    let mut reader = Reader { data, at: 0 };
    if reader.take(MAGIC.len())? != MAGIC {
        return Err(FormatError::Magic);
    }
    let name_len = usize::from(reader.take(1)?[0]);
    let name = reader.take(name_len)?;
    if name != encoding.as_bytes() {
        return Err(FormatError::WrongEncoding {
            expected: encoding.to_owned(),
            found: String::from_utf8_lossy(name).into_owned(),
        });
    }
    let count = u32::from_le_bytes(reader.take(4)?.try_into().expect("four bytes"));
    // Every rank takes at least its length byte, so a count larger than what is left is a lie;
    // checking it first keeps a corrupt header from reserving gigabytes.
    if count as usize > data.len() - reader.at {
        return Err(FormatError::Truncated);
    }
    let mut starts = Vec::with_capacity(count as usize + 1);
    let mut bytes = Vec::with_capacity(data.len() - reader.at - count as usize);
    starts.push(0);
    for _ in 0..count {
        let len = usize::from(reader.take(1)?[0]);
        bytes.extend_from_slice(reader.take(len)?);
        starts.push(bytes.len() as u32);
    }
    if reader.at != data.len() {
        return Err(FormatError::Trailing(data.len() - reader.at));
    }
    Ok(Parsed { bytes, starts })
}

struct Reader<'a> {
    data: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], FormatError> {
        let end = self.at.checked_add(n).ok_or(FormatError::Truncated)?;
        let slice = self.data.get(self.at..end).ok_or(FormatError::Truncated)?;
        self.at = end;
        Ok(slice)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(name: &str, count: u32) -> Vec<u8> {
        let mut out = MAGIC.to_vec();
        out.push(name.len() as u8);
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(&count.to_le_bytes());
        out
    }

    #[test]
    fn encode_then_parse_gives_every_rank_back() {
        let tokens: [(u32, &[u8]); 3] = [(2, b"cd"), (0, b"a"), (1, b"bcd")];
        let data = encode("toy", tokens).unwrap();
        // The header, then each rank's length byte and bytes in rank order.
        let mut expect = header("toy", 3);
        expect.extend_from_slice(b"\x01a\x03bcd\x02cd");
        assert_eq!(data, expect);
        assert_eq!(
            parse("toy", &data).unwrap(),
            Parsed {
                bytes: b"abcdcd".to_vec(),
                starts: vec![0, 1, 4, 6],
            }
        );
    }

    #[test]
    fn a_missing_rank_is_written_as_a_gap() {
        let tokens: [(u32, &[u8]); 2] = [(0, b"x"), (2, b"z")];
        let parsed = parse("gaps", &encode("gaps", tokens).unwrap()).unwrap();
        assert_eq!(parsed.starts, vec![0, 1, 1, 2]);
        assert_eq!(parsed.bytes, b"xz");
    }

    #[test]
    fn the_tiny_vocabulary_round_trips() {
        let parsed = parse("tiny", &crate::tiny::compact()).unwrap();
        let tokens = crate::tiny::tokens();
        assert_eq!(parsed.starts.len(), tokens.len() + 1);
        for (rank, bytes) in tokens {
            let r = rank as usize;
            let (start, end) = (parsed.starts[r] as usize, parsed.starts[r + 1] as usize);
            assert_eq!(&parsed.bytes[start..end], bytes.as_slice(), "rank {rank}");
        }
    }

    #[test]
    fn malformed_files_are_refused_with_their_reason() {
        let good = encode("toy", [(0u32, b"a".as_slice()), (1, b"bc")]).unwrap();
        let check = |data: &[u8], expect: FormatError| {
            assert_eq!(parse("toy", data), Err(expect.clone()), "{data:?}");
        };
        check(b"", FormatError::Truncated);
        check(b"SMVOCAB0\x03toy", FormatError::Magic);
        check(b"SMVOCAB1", FormatError::Truncated);
        check(&good[..good.len() - 1], FormatError::Truncated);
        let mut trailing = good.clone();
        trailing.extend_from_slice(b"zz");
        check(&trailing, FormatError::Trailing(2));
        // A count that promises more ranks than bytes remain is refused before reserving room.
        let mut liar = header("toy", u32::MAX);
        liar.extend_from_slice(b"\x01a");
        check(&liar, FormatError::Truncated);
        assert_eq!(
            parse("o200k_base", &good),
            Err(FormatError::WrongEncoding {
                expected: "o200k_base".into(),
                found: "toy".into(),
            })
        );
        assert_eq!(
            FormatError::WrongEncoding {
                expected: "o200k_base".into(),
                found: "toy".into(),
            }
            .to_string(),
            "the file holds toy, not o200k_base"
        );
    }

    #[test]
    fn a_token_over_255_bytes_cannot_be_written() {
        let long = vec![b'x'; 256];
        assert_eq!(
            encode("toy", [(7u32, long.as_slice())]),
            Err(FormatError::TooLong { rank: 7, len: 256 })
        );
        assert!(encode("toy", [(7u32, &long[..255])]).is_ok());
    }
}
