// Reference ids for variants of the reference tokenizers (split patterns,
// normalizers, a Unigram model), from Hugging Face's Rust
// `tokenizers` library (its npm binding), never from llmc:
//
//   npm install --prefix ~/.cache/llmc/npm @anush008/tokenizers
//   NODE_PATH=~/.cache/llmc/npm/node_modules node tools/tokenizers/make_case_refs.js \
//       ../shared/refdata runtime/tokenizer/test/data
//
// Each case takes a reference tokenizer.json, optionally replaces its
// pre-tokenizer (a split pattern other models' files carry) or normalizer, or
// its model (a Unigram model over its vocabulary), and
// encodes every line of both corpora (refdata's and scripts_corpus.jsonl:
// combining marks, Indic, Arabic, Hebrew, Thai, CJK, emoji, code) without
// special tokens. Output: case_refs.jsonl, one {"case", "text", "ids"} per
// line; the cases are those of cases.json.
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { Tokenizer } = require('@anush008/tokenizers');

/// A Unigram model over a BPE vocabulary ({token: id}): token i scores
/// -(1 + (i % 7) / 2 + i / 4096), numbers JavaScript and C++ compute alike.
function unigramFromVocab(vocab, options) {
  const tokens = Object.entries(vocab).sort((a, b) => a[1] - b[1]);
  return {
    type: 'Unigram',
    unk_id: options.unk_id,
    byte_fallback: options.byte_fallback,
    vocab: tokens.map(([token, id]) => [token, -(1 + (id % 7) / 2 + id / 4096)]),
  };
}

async function main() {
  const [refdata, outDir] = process.argv.slice(2);
  if (!refdata || !outDir) {
    console.error('usage: make_case_refs.js <refdata dir> <output dir>');
    process.exit(2);
  }
  const cases = JSON.parse(fs.readFileSync(path.join(outDir, 'cases.json'), 'utf8'));
  const readLines = (file) => fs.readFileSync(file, 'utf8').split('\n')
      .filter((line) => line.length > 0).map((line) => JSON.parse(line));
  const texts = readLines(path.join(refdata, 'tokenizer', 'corpus.jsonl'))
      .concat(readLines(path.join(outDir, 'scripts_corpus.jsonl')));
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'case-refs-'));
  const out = [];
  for (const testCase of cases) {
    const file = path.join(refdata, 'tokenizer', testCase.tokenizer, 'tokenizer.json');
    const json = JSON.parse(fs.readFileSync(file, 'utf8'));
    if (testCase.pre_tokenizer)
      json.pre_tokenizer = testCase.pre_tokenizer;
    if (testCase.normalizer)
      json.normalizer = testCase.normalizer;
    if (testCase.unigram_from_vocab)
      json.model = unigramFromVocab(json.model.vocab, testCase.unigram_from_vocab);
    const patched = path.join(scratch, testCase.name + '.json');
    fs.writeFileSync(patched, JSON.stringify(json));
    const tokenizer = Tokenizer.fromFile(patched);
    for (const text of texts) {
      const encoding = await tokenizer.encode(text, null, { addSpecialTokens: false });
      out.push(JSON.stringify({ case: testCase.name, text, ids: encoding.getIds() }));
    }
  }
  fs.writeFileSync(path.join(outDir, 'case_refs.jsonl'), out.join('\n') + '\n');
  fs.rmSync(scratch, { recursive: true });
  console.log(`${out.length} lines, ${cases.length} cases`);
}

main().catch((error) => { console.error(error); process.exit(1); });
