#!/usr/bin/python3
"""Runs llmc on reference prompts and compares with ../shared/refdata.

  parity.py --llmc <binary> --command eval --model models/tiny-llama \
            --refs refs/tiny-llama.f32 --cases short,long,turns [--max-abs 1e-4]

For each case it feeds every turn of `<refs>.<case>.json` as --input-ids,
generates as many tokens per turn as the reference did, and requires the same
greedy ids and max |logit difference| within --max-abs (or logits cosine at
least --min-cosine). Paths are relative to the reference data directory,
which sits beside the repository (../shared/refdata), as in CI.

With --convert ARG (repeated: the arguments of `llmc convert` after -m, e.g.
--convert=-c --convert=bm1684x --convert=-q --convert=F32) the model is first
compiled into a binary, and the command runs on that (`llmc run`).

With --vlm image (or pixel-values) the references are a vision-language
model's (vlm/refs/<model>.<image>.*, the case naming the image): each case
also gives llmc the image vlm/images/<image>.png (or the reference pixel
values), and the pixel values llmc computed (with image) and the vision
embeddings must be within --max-abs-vision of the reference's.

With --near-tie M, generated ids may differ where the reference itself
quantizes (llama.cpp rounds activations to Q8_0 for quantized weights): at the
first differing token both runs must rank the two candidates within M of each
other, and logits are compared up to and including that row only, since later
rows condition on different histories.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np


def repository_root():
    repo = os.path.dirname(os.path.realpath(__file__))
    while not os.path.exists(os.path.join(repo, "WORKSPACE")):
        parent = os.path.dirname(repo)
        if parent == repo:
            sys.exit("cannot find the repository root above " + __file__)
        repo = parent
    return repo


def refdata_root(data_root="refdata"):
    """Where --model and --refs are found: ../shared/refdata, or the
    repository's own tests/families (data_root "families")."""
    repo = repository_root()
    if data_root == "families":
        return os.path.join(repo, "tests", "families")
    root = os.environ.get("LLMC_REFDATA") or os.path.join(repo, "..", "shared", "refdata")
    if not os.path.isdir(root):
        sys.exit(f"reference data not found at {root}")
    return root


def export_onnx(args, root, scratch):
    """Exports --model to ONNX with the exporter; returns the folder."""
    folder = os.path.join(scratch, "onnx")
    command = ["/usr/bin/python3", args.export_onnx, "-m",
               os.path.join(root, args.model), "-o", folder,
               "--layout", args.onnx_layout] + args.onnx_export_arg
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"FAIL export: {' '.join(command)}\n{result.stderr}")
    return folder


def convert_model(args, model, scratch):
    """Compiles `model` with the --convert arguments; returns the binary."""
    binary = os.path.join(scratch, "model.llmc")
    command = [args.llmc, "convert", "-m", model,
               "-o", binary, "--quiet"] + args.convert
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"FAIL convert: {' '.join(command)}\n{result.stderr}")
    return binary


def vision_arguments(args, root, case, scratch):
    """The llmc arguments that give a --vlm case its image, and the stages
    to compare: (argument list, [(name, ours, reference)])."""
    if not args.vlm:
        return [], []
    refs = os.path.join(root, f"{args.refs}.{case}")
    stages = [("vision embeddings", os.path.join(scratch, case + ".embeds.npy"),
               refs + ".vision_embeds.npy")]
    command = ["--vision-embeds-out", stages[0][1]]
    if args.vlm == "image":
        image = os.path.join(root, os.path.dirname(os.path.dirname(args.refs)),
                             "images", case + ".png")
        ours = os.path.join(scratch, case + ".pixels.npy")
        command += ["--image", image, "--pixel-values-out", ours]
        stages.append(("pixel values", ours, refs + ".pixel_values.npy"))
    else:
        command += ["--pixel-values", refs + ".pixel_values.npy"]
    return command, stages


def compare_stages(case, stages, bound):
    ok = True
    for name, ours, reference in stages:
        a, b = np.load(ours), np.load(reference)
        if a.shape != b.shape:
            print(f"FAIL {case}: {name} shape {a.shape}, reference {b.shape}")
            ok = False
            continue
        difference = float(np.abs(a - b).max())
        if difference > bound:
            print(f"FAIL {case}: {name} max |d| {difference:.3e} > {bound:.1e}")
            ok = False
        print(f"{'ok  ' if difference <= bound else 'FAIL'} {case}: {name} "
              f"max |d| {difference:.3e}")
    return ok


def run_case(args, root, case, scratch, model):
    suffix = (".ids.json", ".logits.npy") if args.vlm else (".json", ".npy")
    ref_json = json.load(open(os.path.join(root, f"{args.refs}.{case}{suffix[0]}")))
    ref_logits = np.load(os.path.join(root, f"{args.refs}.{case}{suffix[1]}"))
    turns = ref_json.get("turns") or [
        {"input_ids": ref_json["prompt"], "generated": ref_json["generated"]}]
    new_tokens = {len(t["generated"]) for t in turns}
    if len(new_tokens) != 1:
        sys.exit(f"{case}: turns generate different token counts")
    logits_path = os.path.join(scratch, case + ".npy")
    ids_path = os.path.join(scratch, case + ".json")
    command = [args.llmc, args.command, "-m", model,
               "--max-new-tokens", str(new_tokens.pop()),
               "--logits-out", logits_path, "--ids-out", ids_path] + args.extra
    for turn in turns:
        command += ["--input-ids", ",".join(map(str, turn["input_ids"]))]
    image_args, stages = vision_arguments(args, root, case, scratch)
    command += image_args
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        print(f"FAIL {case}: {' '.join(command)}\n{result.stderr}")
        return False
    ids = json.load(open(ids_path))
    logits = np.load(logits_path)
    ok = compare_stages(case, stages, args.max_abs_vision)
    if logits.shape != ref_logits.shape:
        print(f"FAIL {case}: logits shape {logits.shape}, reference {ref_logits.shape}")
        return False
    ours, theirs = ids["generated"], ref_json["generated"]
    if ours != theirs:
        row = next(i for i, (a, b) in enumerate(zip(ours, theirs)) if a != b)
        gaps = (float(logits[row, ours[row]] - logits[row, theirs[row]]),
                float(ref_logits[row, theirs[row]] - ref_logits[row, ours[row]]))
        if args.near_tie is not None and max(gaps) <= args.near_tie:
            print(f"note {case}: token {row} is a near tie ({ours[row]} vs reference "
                  f"{theirs[row]}, margins {gaps[0]:.2e} / {gaps[1]:.2e}); "
                  f"comparing rows 0..{row}")
            logits, ref_logits = logits[:row + 1], ref_logits[:row + 1]
        else:
            print(f"FAIL {case}: generated {ours}, reference {theirs}")
            ok = False
    max_abs = float(np.abs(logits - ref_logits).max())
    a, b = logits.astype(np.float64).ravel(), ref_logits.astype(np.float64).ravel()
    cosine = float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))
    if args.max_abs is not None and max_abs > args.max_abs:
        print(f"FAIL {case}: max |dlogit| {max_abs:.3e} > {args.max_abs:.1e}")
        ok = False
    if args.min_cosine is not None and cosine < args.min_cosine:
        print(f"FAIL {case}: logits cosine {cosine:.6f} < {args.min_cosine}")
        ok = False
    print(f"{'ok  ' if ok else 'FAIL'} {args.model} {case}: max |dlogit| {max_abs:.3e}, "
          f"cosine {cosine:.8f}, {logits.shape[0]} tokens")
    return ok


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--llmc", required=True)
    parser.add_argument("--command", default="eval")
    parser.add_argument("--model", required=True)
    parser.add_argument("--refs", required=True)
    parser.add_argument("--cases", required=True)
    parser.add_argument("--max-abs", type=float)
    parser.add_argument("--min-cosine", type=float)
    parser.add_argument("--near-tie", type=float,
                        help="accept differing ids at a near tie (logit margin)")
    parser.add_argument("--vlm", choices=["image", "pixel-values"],
                        help="vision-language references: give each case's "
                        "image (or its reference pixel values)")
    parser.add_argument("--max-abs-vision", type=float, default=1e-4,
                        help="bound on the pixel values and vision embeddings")
    parser.add_argument("--convert", action="append", default=[],
                        help="compile the model with these llmc convert arguments first")
    parser.add_argument("--export-onnx",
                        help="export --model with this exporter "
                        "(tools/onnx/export_onnx.py) and run the ONNX files")
    parser.add_argument("--onnx-layout", default="pieces",
                        choices=["pieces", "decoder"])
    parser.add_argument("--onnx-export-arg", action="append", default=[],
                        help="one more exporter argument (--rotary in-graph, "
                        "--cache-io, --opset N)")
    parser.add_argument("--data-root", choices=["refdata", "families"], default="refdata",
                        help="where the model and references live")
    parser.add_argument("extra", nargs="*", help="more llmc arguments (after --)")
    args = parser.parse_args()
    root = refdata_root(args.data_root)
    with tempfile.TemporaryDirectory(dir=os.environ.get("TEST_TMPDIR")) as scratch:
        model = (export_onnx(args, root, scratch) if args.export_onnx
                 else os.path.join(root, args.model))
        if args.convert:
            model = convert_model(args, model, scratch)
        results = [run_case(args, root, case, scratch, model)
                   for case in args.cases.split(",")]
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
