#!/usr/bin/python3
"""A tokenizer.json with SentencePiece's Precompiled normalizer, and its ids
from SentencePiece itself.

  tools/tokenizers/make_charsmap_refs.py ../shared/refdata \\
      runtime/tokenizer/test/data/charsmap

Trains, with Debian's python3-sentencepiece, a tiny Unigram model that
normalizes with the `nmt_nfkc` rules (T5's, XLM-R's, ALBERT's) on refdata's
tokenizer corpus, scripts_corpus.jsonl and charsmap_corpus.jsonl (full-width
ASCII, ligatures, compatibility characters, odd spaces, control characters,
combining sequences), and writes:
  tokenizer.json    the model in Hugging Face's layout: a Sequence of the
                    Precompiled normalizer and the space handling
                    SentencePiece's remove_extra_whitespaces does, a
                    Metaspace pre-tokenizer, the Unigram model
  tokenizer.model   the SentencePiece model itself, for llmc's conversion
                    of tokenizer.model files (tests/tokenizer)
  refs.jsonl        one {"text", "ids"[, "ties"]} per corpus line, the ids
                    of SentencePiece's encode (ties as in
                    make_sentencepiece_refs.py)

The whole nmt_nfkc map is 237 KB. To keep the test data small the model is
trained with the nmt_nfkc rules whose source characters all occur in the
corpus (SentencePiece's normalization_rule_tsv), so SentencePiece's own
builder compiles the map the file carries; the script checks that this map
and the whole one give every line the same ids.
"""
import base64
import json
import os
import struct
import sys
import tempfile

import sentencepiece as spm
from sentencepiece import sentencepiece_model_pb2 as model_pb2

from make_sentencepiece_refs import encode_references, read_corpus, write_lines

VOCAB = 700
TRAINING = dict(model_type="unigram", vocab_size=VOCAB, byte_fallback=True,
                character_coverage=0.9995, minloglevel=2)


def read_rules(charsmap):
    """Every rule {source bytes: replacement bytes} of a precompiled map: a
    walk over its darts-clone double array."""
    (trie_bytes,) = struct.unpack_from("<I", charsmap)
    units = struct.unpack_from(f"<{trie_bytes // 4}I", charsmap, 4)
    replacements = charsmap[4 + trie_bytes:]
    offset = lambda unit: (unit >> 10) << ((unit & (1 << 9)) >> 6)
    rules = {}
    pending = [(offset(units[0]), b"")]
    while pending:
        node, key = pending.pop()
        for byte in range(1, 256):
            child = node ^ byte
            if child >= len(units) or units[child] & 0x800000ff != byte:
                continue
            next_node = child ^ offset(units[child])
            if units[child] >> 8 & 1:
                start = units[next_node] & 0x7fffffff
                end = replacements.index(b"\0", start)
                rules[key + bytes([byte])] = replacements[start:end]
            pending.append((next_node, key + bytes([byte])))
    return rules


def write_rule_tsv(path, rules, characters):
    """The rules whose source characters are all in `characters`, in
    SentencePiece's normalization_rule_tsv format."""
    hex_points = lambda text: " ".join(f"{ord(c):X}" for c in text)
    kept = 0
    with open(path, "w", encoding="utf-8") as f:
        for source, target in sorted(rules.items()):
            source = source.decode()
            if set(source) <= characters:
                target = hex_points(target.decode())
                f.write(f"{hex_points(source)}\t{target}\n")
                kept += 1
    return kept


def tokenizer_json(model):
    """The model as a tokenizer.json, laid out as transformers' SentencePiece
    converters lay it out, with SentencePiece's space handling: spaces
    trimmed and runs collapsed after the map (which turns other spaces
    into " ")."""
    pieces = model.pieces
    Piece = model_pb2.ModelProto.SentencePiece
    replace = lambda regex, content: {
        "type": "Replace", "pattern": {"Regex": regex}, "content": content}
    charsmap = model.normalizer_spec.precompiled_charsmap
    return {
        "version": "1.0",
        "added_tokens": [
            {"id": i, "content": p.piece, "single_word": False,
             "lstrip": False, "rstrip": False, "normalized": False,
             "special": True}
            for i, p in enumerate(pieces)
            if p.type in (Piece.CONTROL, Piece.UNKNOWN)],
        "normalizer": {"type": "Sequence", "normalizers": [
            {"type": "Precompiled",
             "precompiled_charsmap": base64.b64encode(charsmap).decode()},
            replace("\\A +| +\\z", ""),
            replace(" {2,}", " ")]},
        "pre_tokenizer": {"type": "Metaspace", "replacement": "\u2581",
                          "prepend_scheme": "always", "split": True},
        "post_processor": None,
        "decoder": {"type": "Metaspace", "replacement": "\u2581",
                    "prepend_scheme": "always", "split": True},
        "model": {"type": "Unigram", "unk_id": model.trainer_spec.unk_id,
                  "byte_fallback": True,
                  "vocab": [[p.piece, p.score] for p in pieces]},
    }


def with_charsmap(model_file, charsmap, path):
    """A copy of `model_file` at `path` normalizing with `charsmap`."""
    model = model_pb2.ModelProto()
    with open(model_file, "rb") as f:
        model.ParseFromString(f.read())
    model.normalizer_spec.precompiled_charsmap = charsmap
    with open(path, "wb") as f:
        f.write(model.SerializeToString())
    return spm.SentencePieceProcessor(model_file=path)


def main():
    refdata, out = sys.argv[1], sys.argv[2]
    texts = read_corpus(refdata, "scripts_corpus.jsonl",
                        "charsmap_corpus.jsonl")
    with tempfile.TemporaryDirectory() as scratch:
        corpus = os.path.join(scratch, "corpus.txt")
        with open(corpus, "w", encoding="utf-8") as f:
            f.write("\n".join(texts))
        whole = os.path.join(scratch, "whole")
        spm.SentencePieceTrainer.train(
            input=corpus, model_prefix=whole,
            normalization_rule_name="nmt_nfkc", **TRAINING)
        whole_model = model_pb2.ModelProto()
        with open(whole + ".model", "rb") as f:
            whole_model.ParseFromString(f.read())
        whole_map = whole_model.normalizer_spec.precompiled_charsmap

        rules = os.path.join(scratch, "rules.tsv")
        kept = write_rule_tsv(rules, read_rules(whole_map),
                              set("".join(texts)))
        small = os.path.join(scratch, "small")
        spm.SentencePieceTrainer.train(
            input=corpus, model_prefix=small, normalization_rule_tsv=rules,
            **TRAINING)
        sp = spm.SentencePieceProcessor(model_file=small + ".model")
        refs = encode_references(sp, "charsmap", texts, unigram=True)
        check = with_charsmap(small + ".model", whole_map,
                              os.path.join(scratch, "check.model"))
        for ref in refs:
            if check.encode(ref["text"]) != ref["ids"]:
                sys.exit(f"the reduced map differs from nmt_nfkc on "
                         f"{json.dumps(ref['text'])}")
        model = model_pb2.ModelProto()
        with open(small + ".model", "rb") as f:
            model.ParseFromString(f.read())
        os.makedirs(out, exist_ok=True)
        os.replace(small + ".model", os.path.join(out, "tokenizer.model"))

    with open(os.path.join(out, "tokenizer.json"), "w",
              encoding="utf-8") as f:
        json.dump(tokenizer_json(model), f, ensure_ascii=False, indent=1)
        f.write("\n")
    for ref in refs:
        del ref["model"]
    write_lines(os.path.join(out, "refs.jsonl"), refs)
    print(f"wrote a {len(model.normalizer_spec.precompiled_charsmap)}-byte "
          f"map of {kept} nmt_nfkc rules and {len(refs)} references to {out}")


if __name__ == "__main__":
    main()
