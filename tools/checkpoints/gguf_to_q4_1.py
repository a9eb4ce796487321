#!/usr/bin/python3
"""Rewrites an F32 GGUF file with its Linear weights in ggml's Q4_1.

  gguf_to_q4_1.py IN.gguf OUT.gguf

Every 2-D tensor whose rows are a multiple of 32 elements, norms aside,
becomes Q4_1 blocks made as ggml's quantize_row_q4_1_ref makes them
(d = (max - min) / 15, m = min, q = round((x - m) / d)); the metadata and
the other tensors are copied. refdata ships no Q4_1 files; the tests make
them from its F32 ones. A relative IN that does not exist is looked up in
the reference data ($LLMC_REFDATA or ../shared/refdata beside the repo).
"""
import os
import struct
import sys

import numpy as np

GGML_F32, GGML_Q4_1 = 0, 3
SCALAR_SIZES = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8,
                12: 8}


class Reader:
    def __init__(self, data):
        self.data, self.offset = data, 0

    def read(self, fmt):
        value = struct.unpack_from("<" + fmt, self.data, self.offset)[0]
        self.offset += struct.calcsize("<" + fmt)
        return value

    def string(self):
        size = self.read("Q")
        self.offset += size
        return self.data[self.offset - size:self.offset]

    def skip_value(self, kind):
        if kind == 8:
            self.string()
        elif kind == 9:
            element, count = self.read("I"), self.read("Q")
            for _ in range(count):
                self.skip_value(element)
        else:
            self.offset += SCALAR_SIZES[kind]


def quantize_q4_1(x):
    blocks = x.reshape(-1, 32)
    low, high = blocks.min(1), blocks.max(1)
    d = (high - low) / 15.0
    inverse = np.divide(1.0, d, out=np.zeros_like(d), where=d != 0)
    q = np.clip(np.floor((blocks - low[:, None]) * inverse[:, None] + 0.5),
                0, 15).astype(np.uint8)
    packed = q[:, :16] | (q[:, 16:] << 4)
    out = np.zeros((blocks.shape[0], 20), np.uint8)
    out[:, 0:2] = d.astype(np.float16).view(np.uint8).reshape(-1, 2)
    out[:, 2:4] = low.astype(np.float16).view(np.uint8).reshape(-1, 2)
    out[:, 4:] = packed
    return out.tobytes()


def resolve(path):
    if os.path.exists(path) or os.path.isabs(path):
        return path
    repo = os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.realpath(__file__))))
    root = os.environ.get("LLMC_REFDATA") or os.path.join(
        repo, "..", "shared", "refdata")
    return os.path.join(root, path)


def main():
    source, target = resolve(sys.argv[1]), sys.argv[2]
    data = open(source, "rb").read()
    reader = Reader(data)
    if data[:4] != b"GGUF":
        sys.exit(f"{source}: not a GGUF file")
    reader.offset = 4
    version, tensors, pairs = reader.read("I"), reader.read("Q"), reader.read("Q")
    alignment, metadata_start = 32, reader.offset
    for _ in range(pairs):
        key, kind = reader.string(), reader.read("I")
        if key == b"general.alignment":
            alignment = struct.unpack_from("<I", data, reader.offset)[0]
        reader.skip_value(kind)
    metadata = data[metadata_start:reader.offset]
    infos = []
    for _ in range(tensors):
        name, rank = reader.string(), reader.read("I")
        dims = [reader.read("Q") for _ in range(rank)]
        infos.append((name, dims, reader.read("I"), reader.read("Q")))
    data_start = -(-reader.offset // alignment) * alignment

    payloads = []
    for name, dims, kind, offset in infos:
        if kind != GGML_F32:
            sys.exit(f"{source}: tensor {name.decode()} is not f32")
        values = np.frombuffer(data, np.float32, int(np.prod(dims)),
                               data_start + offset)
        if (len(dims) == 2 and dims[0] % 32 == 0
                and not name.endswith(b"norm.weight")):
            payloads.append((name, dims, GGML_Q4_1, quantize_q4_1(values)))
        else:
            payloads.append((name, dims, GGML_F32, values.tobytes()))

    out = bytearray(b"GGUF" + struct.pack("<IQQ", version, tensors, pairs))
    out += metadata
    offset = 0
    for name, dims, kind, payload in payloads:
        out += struct.pack("<Q", len(name)) + name
        out += struct.pack("<I", len(dims))
        out += b"".join(struct.pack("<Q", dim) for dim in dims)
        out += struct.pack("<IQ", kind, offset)
        offset += -(-len(payload) // alignment) * alignment
    out += bytes(-len(out) % alignment)
    for _, _, _, payload in payloads:
        out += payload + bytes(-len(payload) % alignment)
    with open(target, "wb") as f:
        f.write(out)


if __name__ == "__main__":
    main()
