//! The compact vocabulary format: what the browser downloads instead of embedding tiktoken-rs's
//! base64 text in the wasm. The format and its parser live in the `sm-bpe` crate
//! (`crates/bpe/src/compact.rs`, where it is described); this module names it by [`Encoding`] and,
//! natively, generates it from tiktoken-rs's data.

pub use sm_bpe::compact::{FormatError, MAGIC};

use super::encoding::Encoding;

/// Writes the compact form of a vocabulary given as `(rank, bytes)` pairs in any order.
pub fn encode<'a>(
    encoding: Encoding,
    tokens: impl IntoIterator<Item = (u32, &'a [u8])>,
) -> Result<Vec<u8>, FormatError> {
    sm_bpe::compact::encode(encoding.name(), tokens)
}

/// Builds the compact form from tiktoken-rs's embedded vocabulary. Native only: the wasm build
/// never links tiktoken-rs, so its embedded data cannot reach the wasm. The build (a Trunk hook,
/// `examples/vocab_asset.rs`) and the native tests use this.
#[cfg(not(target_arch = "wasm32"))]
pub fn from_tiktoken(encoding: Encoding) -> Vec<u8> {
    let bpe = match encoding {
        Encoding::O200kBase => tiktoken_rs::o200k_base(),
        Encoding::Cl100kBase => tiktoken_rs::cl100k_base(),
    }
    .expect("tiktoken-rs's embedded vocabulary parses");
    let special = bpe.special_tokens();
    // Ordinary ranks are dense from 0; special tokens sit above them, after a gap in both
    // encodings. tiktoken-rs has no public rank list, so ranks are decoded one by one, special
    // ones left out, until a long run of unused ranks shows the end.
    let mut tokens: Vec<(u32, Vec<u8>)> = Vec::new();
    let mut misses = 0;
    for rank in 0u32.. {
        match bpe.decode_bytes(&[rank]) {
            Ok(bytes) => {
                misses = 0;
                let is_special = std::str::from_utf8(&bytes).is_ok_and(|s| special.contains(s));
                if !is_special {
                    tokens.push((rank, bytes));
                }
            }
            Err(_) => {
                misses += 1;
                // Both encodings' special tokens follow the ordinary ones within a few hundred
                // ranks; a thousand unused ranks in a row is the end.
                if misses > 1000 {
                    break;
                }
            }
        }
    }
    encode(encoding, tokens.iter().map(|(r, b)| (*r, b.as_slice())))
        .expect("tiktoken's tokens are at most 128 bytes")
}
