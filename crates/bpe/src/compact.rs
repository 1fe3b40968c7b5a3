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
