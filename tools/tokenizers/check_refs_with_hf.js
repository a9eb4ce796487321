// Encodes the texts of a reference file ({"text", "ids"[, "ties"]} per line,
// such as make_charsmap_refs.py writes) with Hugging Face's Rust
// `tokenizers` (npm @anush008/tokenizers) and counts the lines whose ids are
// the reference's (or one of its tied segmentations): how far HF agrees with
// the reference, with no llmc code involved.
//
//   NODE_PATH=~/.cache/llmc/npm/node_modules node tools/tokenizers/check_refs_with_hf.js \
//       runtime/tokenizer/test/data/charsmap/tokenizer.json \
//       runtime/tokenizer/test/data/charsmap/refs.jsonl
'use strict';
const fs = require('fs');
const { Tokenizer } = require('@anush008/tokenizers');

async function main() {
  const [tokenizerFile, refsFile] = process.argv.slice(2);
  if (!tokenizerFile || !refsFile) {
    console.error('usage: check_refs_with_hf.js <tokenizer.json> <refs.jsonl>');
    process.exit(2);
  }
  const refs = fs.readFileSync(refsFile, 'utf8').split('\n')
      .filter((line) => line.length > 0).map((line) => JSON.parse(line));
  const tokenizer = Tokenizer.fromFile(tokenizerFile);
  let same = 0;
  for (const ref of refs) {
    const encoding = await tokenizer.encode(ref.text, null, { addSpecialTokens: false });
    const ids = JSON.stringify(encoding.getIds());
    const accepted = [ref.ids, ...(ref.ties || [])].map((t) => JSON.stringify(t));
    if (accepted.includes(ids)) {
      ++same;
      continue;
    }
    console.log(`differs: ${JSON.stringify(ref.text)}\n  reference: ${JSON.stringify(ref.ids)}\n  hf:        ${ids}`);
  }
  console.log(`${refsFile}: ${same}/${refs.length} lines as the reference`);
  process.exit(same === refs.length ? 0 : 1);
}

main().catch((error) => { console.error(error.message || error); process.exit(1); });
