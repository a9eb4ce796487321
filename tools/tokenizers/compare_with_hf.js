// Encodes a corpus with a tokenizer.json through both Hugging Face's Rust
// `tokenizers` (npm @anush008/tokenizers) and `llmc tokenize`, and prints
// the lines whose ids differ and a count: a check of any real tokenizer
// file, for files too large to keep as test data.
//
//   NODE_PATH=~/.cache/llmc/npm/node_modules node tools/tokenizers/compare_with_hf.js \
//       bazel-bin/tools/llmc/llmc path/to/tokenizer.json corpus.jsonl [more.jsonl ...]
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { execFileSync } = require('child_process');
const { Tokenizer } = require('@anush008/tokenizers');

async function main() {
  const [llmc, tokenizerFile, ...corpora] = process.argv.slice(2);
  if (!llmc || !tokenizerFile || corpora.length === 0) {
    console.error('usage: compare_with_hf.js <llmc> <tokenizer.json> <corpus.jsonl>...');
    process.exit(2);
  }
  const texts = [];
  for (const corpus of corpora)
    for (const line of fs.readFileSync(corpus, 'utf8').split('\n'))
      if (line.length > 0) texts.push(JSON.parse(line));
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'tokcmp-'));
  const input = path.join(scratch, 'texts.jsonl');
  fs.writeFileSync(input, texts.map((t) => JSON.stringify(t)).join('\n') + '\n');
  const ours = execFileSync(llmc, ['tokenize', '-m', tokenizerFile, '--text-file', input],
                            { encoding: 'utf8', maxBuffer: 1 << 28 })
      .split('\n').filter((l) => l.length > 0).map((l) => JSON.parse(l).ids);
  fs.rmSync(scratch, { recursive: true });
  const reference = Tokenizer.fromFile(tokenizerFile);
  let same = 0;
  for (let i = 0; i < texts.length; ++i) {
    const ids = (await reference.encode(texts[i], null, { addSpecialTokens: false })).getIds();
    if (JSON.stringify(ids) === JSON.stringify(ours[i])) {
      ++same;
      continue;
    }
    console.log(`differs: ${JSON.stringify(texts[i])}\n  hf:   ${JSON.stringify(ids)}\n  llmc: ${JSON.stringify(ours[i])}`);
  }
  console.log(`${tokenizerFile}: ${same}/${texts.length} lines identical`);
  process.exit(same === texts.length ? 0 : 1);
}

main().catch((error) => { console.error(error.message || error); process.exit(1); });
