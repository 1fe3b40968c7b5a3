// Trunk post-build hook, run last: writes `<file>.br` (brotli, quality 11) and `<file>.gz`
// (gzip -9) beside every compressible file of the staged dist of 1 KiB or more, so a server that
// serves precompressed files (nginx `brotli_static` / `gzip_static`, Caddy `file_server {
// precompressed br gzip }`, `npx serve`-style servers) sends the smallest encoding the browser
// accepts without compressing on each request. Each copy is decompressed again and compared
// with its original; any difference fails the build. Node's own zlib does both encodings (Node.js
// is already a build tool here: binaryen's wasm-opt runs on it). The service worker's list
// (precache.py, which runs before this) names only the originals: the browser asks for those,
// and the encoding is the server's business.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { brotliCompressSync, brotliDecompressSync, constants, gunzipSync, gzipSync } from 'node:zlib'

const staging = process.env.TRUNK_STAGING_DIR
if (!staging) {
  console.error('precompress.mjs: TRUNK_STAGING_DIR is not set; run it as a Trunk hook')
  process.exit(1)
}
const COMPRESSIBLE = /\.(wasm|js|css|html|smv|webmanifest|json|svg)$/
const MIN_BYTES = 1024

function* files(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) yield* files(path)
    else yield path
  }
}

let raw = 0
let br = 0
let gz = 0
for (const path of [...files(staging)]) {
  if (!COMPRESSIBLE.test(path)) continue
  const data = readFileSync(path)
  if (data.length < MIN_BYTES) continue
  const brotli = brotliCompressSync(data, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: 11,
      [constants.BROTLI_PARAM_SIZE_HINT]: data.length,
      [constants.BROTLI_PARAM_MODE]: path.endsWith('.wasm') || path.endsWith('.smv')
        ? constants.BROTLI_MODE_GENERIC
        : constants.BROTLI_MODE_TEXT,
    },
  })
  const gzip = gzipSync(data, { level: 9 })
  if (!brotliDecompressSync(brotli).equals(data) || !gunzipSync(gzip).equals(data)) {
    console.error(`precompress.mjs: ${relative(staging, path)} does not decompress to itself`)
    process.exit(1)
  }
  writeFileSync(`${path}.br`, brotli)
  writeFileSync(`${path}.gz`, gzip)
  raw += data.length
  br += brotli.length
  gz += gzip.length
}
const kb = (n) => `${(n / 1024).toFixed(0)} KiB`
console.log(`precompress.mjs: ${kb(raw)} raw -> ${kb(br)} brotli, ${kb(gz)} gzip`)
