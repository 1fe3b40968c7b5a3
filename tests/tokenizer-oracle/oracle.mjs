// Tokenises every text of a corpus with gpt-tokenizer, an implementation independent of tiktoken-rs,
// so that tests/tokens_exact.rs can check that our counts and token ids agree with it.
//
// Usage: node oracle.mjs corpus.json  → prints {"o200k_base": [[ids...], ...], "cl100k_base": [...]}
// on stdout, one list of token ids per corpus entry, in corpus order.
import { readFileSync } from 'node:fs'
import * as o200k from 'gpt-tokenizer/encoding/o200k_base'
import * as cl100k from 'gpt-tokenizer/encoding/cl100k_base'

// Special-token look-alikes such as "<|endoftext|>" typed by a user are ordinary text, exactly as
// tiktoken's encode_ordinary treats them: nothing is allowed as special and nothing throws.
const ordinary = { allowedSpecial: new Set(), disallowedSpecial: new Set() }

const path = process.argv[2]
if (!path) {
  console.error('usage: node oracle.mjs <corpus.json>')
  process.exit(2)
}
const corpus = JSON.parse(readFileSync(path, 'utf8'))
const out = {
  o200k_base: corpus.map((entry) => o200k.encode(entry.text, ordinary)),
  cl100k_base: corpus.map((entry) => cl100k.encode(entry.text, ordinary)),
}
process.stdout.write(JSON.stringify(out))
