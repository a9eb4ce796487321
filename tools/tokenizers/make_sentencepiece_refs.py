#!/usr/bin/python3
"""Tiny SentencePiece models and their ids from SentencePiece itself.

  tools/tokenizers/make_sentencepiece_refs.py ../shared/refdata tests/tokenizer/data

Trains two models with Debian's python3-sentencepiece on refdata's tokenizer
corpus and runtime/tokenizer/test/data/scripts_corpus.jsonl (combining
marks, Indic, Arabic, Hebrew, Thai, CJK, emoji, code):
  sentencepiece_bpe.model      BPE with byte fallback, no whitespace removal,
                               identity normalization: InternLM2's and
                               Llama's kind
  sentencepiece_unigram.model  Unigram with byte fallback and
                               remove_extra_whitespaces
and writes sentencepiece_refs.jsonl: one {"model", "text", "ids"} per corpus
line and model, the ids of SentencePiece's encode. A Unigram line whose best
segmentation ties with another (equal score sums, as "2"+"22" and "22"+"2")
also lists every tied segmentation under "ties": tokenizers may take any.
Lines holding a control piece's text ("<s>") are left out: Hugging Face's
tokenizers, slow and fast, split special tokens out of the text before the
model sees it, and SentencePiece does not.
"""
import json
import os
import sys
import tempfile

import sentencepiece as spm

VOCAB = 700
MODELS = {
    "bpe": dict(model_type="bpe", remove_extra_whitespaces=False,
                split_digits=True, allow_whitespace_only_pieces=True),
    "unigram": dict(model_type="unigram", remove_extra_whitespaces=True),
}


HERE = os.path.dirname(os.path.abspath(__file__))
TEST_DATA = os.path.join(HERE, "..", "..", "runtime", "tokenizer", "test",
                         "data")


def read_lines(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def read_corpus(refdata, *test_corpora):
    """refdata's tokenizer corpus, then the files of runtime/tokenizer/test/
    data named in `test_corpora`."""
    texts = read_lines(os.path.join(refdata, "tokenizer", "corpus.jsonl"))
    for name in test_corpora:
        texts += read_lines(os.path.join(TEST_DATA, name))
    return texts


def encode_references(sp, name, texts, unigram):
    """SentencePiece's ids of every text that holds no control piece's text:
    one {"model", "text", "ids"[, "ties"]} each."""
    controls = [sp.id_to_piece(i) for i in range(sp.get_piece_size())
                if sp.is_control(i) or sp.is_unknown(i)]
    refs = []
    for text in texts:
        if any(c in text for c in controls):
            continue
        ref = {"model": name, "text": text, "ids": sp.encode(text)}
        if unigram:
            score = lambda ids: sum(sp.get_score(i) for i in ids)
            best = score(ref["ids"])
            ties = [ids for ids in sp.nbest_encode_as_ids(text, 8)
                    if score(ids) == best]
            if len(ties) > 1:
                ref["ties"] = ties
        refs.append(ref)
    return refs


def write_lines(path, values):
    with open(path, "w", encoding="utf-8") as f:
        for value in values:
            f.write(json.dumps(value, ensure_ascii=False) + "\n")


def main():
    refdata, out = sys.argv[1], sys.argv[2]
    texts = read_corpus(refdata, "scripts_corpus.jsonl")
    os.makedirs(out, exist_ok=True)
    refs = []
    with tempfile.TemporaryDirectory() as scratch:
        corpus = os.path.join(scratch, "corpus.txt")
        with open(corpus, "w", encoding="utf-8") as f:
            f.write("\n".join(texts))
        for name, options in MODELS.items():
            prefix = os.path.join(scratch, name)
            spm.SentencePieceTrainer.train(
                input=corpus, model_prefix=prefix, vocab_size=VOCAB,
                byte_fallback=True, character_coverage=0.9995,
                normalization_rule_name="identity", add_dummy_prefix=True,
                minloglevel=2, **options)
            model = os.path.join(out, f"sentencepiece_{name}.model")
            os.replace(prefix + ".model", model)
            sp = spm.SentencePieceProcessor(model_file=model)
            refs += encode_references(sp, name, texts, name == "unigram")
    write_lines(os.path.join(out, "sentencepiece_refs.jsonl"), refs)
    print(f"wrote {len(MODELS)} models and {len(refs)} references to {out}")


if __name__ == "__main__":
    main()
