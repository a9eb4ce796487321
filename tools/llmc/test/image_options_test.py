"""llmc eval's and llmc run's image options on a vision-language model and
their errors: the placeholders must match the images' embeddings, a text
model takes no image, and a corrupt image or pixel values of the wrong shape
are errors naming the file; run -p and chat render the chat prompt and
expand the image as the official chat code does. Uses tiny-internvl and
tiny-minicpmv from the shared reference data."""

import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
from cli_common import DEMO, convert_demo, main, run_llmc, scratch_directory  # noqa: E402


def vlm_root():
    repo = os.path.dirname(os.path.realpath(__file__))
    while not os.path.exists(os.path.join(repo, "WORKSPACE")):
        repo = os.path.dirname(repo)
    root = os.environ.get("LLMC_REFDATA") or os.path.join(repo, "..", "shared", "refdata")
    return os.path.join(root, "vlm")


def test(options, failures):
    llmc = options["llmc"]
    vlm = vlm_root()
    model = os.path.join(vlm, "models", "tiny-internvl")
    image = os.path.join(vlm, "images", "synth_square.png")
    ids = json.load(open(os.path.join(vlm, "refs", "tiny-internvl.synth_square.ids.json")))
    prompt = ",".join(map(str, ids["prompt"]))
    common = ["eval", "-m", model, "--max-new-tokens", "1"]

    result = run_llmc(llmc, *common, "--input-ids", "1,2,3", "--image", image)
    failures.expect_error(
        result, "--input-ids hold 0 image placeholder tokens (<IMG_CONTEXT>, id 514) "
        "but the images give 16 embeddings", "no placeholders")

    result = run_llmc(llmc, *common, "--input-ids", prompt, "--image", image, "--image", image)
    failures.expect_error(result, "hold 16 image placeholder tokens", "two images, one placeholder run")

    result = run_llmc(llmc, "eval", "-m", DEMO, "--max-new-tokens", "1",
                      "--input-ids", "1,2", "--image", image)
    failures.expect_error(result, "need a vision-language model", "a text model")

    scratch = scratch_directory()
    corrupt = os.path.join(scratch, "corrupt.png")
    with open(corrupt, "wb") as file:
        file.write(b"\x89PNG\r\n\x1a\n" + b"\0" * 40)
    result = run_llmc(llmc, *common, "--input-ids", prompt, "--image", corrupt)
    failures.expect_error(result, corrupt, "a corrupt PNG")

    wrong = os.path.join(scratch, "wrong.npy")
    np.save(wrong, np.zeros((1, 3, 56, 56), np.float32))
    result = run_llmc(llmc, *common, "--input-ids", prompt, "--pixel-values", wrong)
    failures.expect_error(result, wrong + ": pixel values must be f32 [tiles, 3, 112, 112]",
                          "pixel values of another size")

    result = run_llmc(llmc, *common, "--input-ids", prompt, "--image", image)
    failures.check(result.returncode == 0, f"the matching prompt: {result.stderr.strip()}")

    check_run_with_text(llmc, vlm, model, scratch, failures)


def check_run_with_text(llmc, vlm, model, scratch, failures):
    binary = os.path.join(scratch, "internvl.llmc")
    result = run_llmc(llmc, "convert", "-m", model, "-c", "host", "-q", "F32", "--quiet",
                      "-o", binary)
    if not failures.check(result.returncode == 0, f"convert: {result.stderr.strip()}"):
        return
    result = run_llmc(llmc, "inspect", binary)
    failures.check("vision: internvl tiles of 112 px, 1 to 6 an image plus a thumbnail, "
                   "16 embeddings a tile at <IMG_CONTEXT>" in result.stdout and
                   "out: vision_embeds f32[1,16,128]" in result.stdout,
                   f"inspect: no vision in {result.stdout}")
    result = run_llmc(llmc, "inspect", "--json", binary)
    vision = json.loads(result.stdout)["vision"] if result.returncode == 0 else None
    failures.check(vision == {"preprocessing": "internvl", "tile_size": 112, "min_tiles": 1,
                              "max_tiles": 6, "thumbnail": True, "tokens_per_tile": 16,
                              "placeholder": "<IMG_CONTEXT>"},
                   f"inspect --json: vision {vision}")

    # The question as the reference asked it: the same prompt ids (system
    # message, image tokens) and the same greedy ids.
    image = os.path.join(vlm, "images", "chelsea.png")
    ids = json.load(open(os.path.join(vlm, "refs", "tiny-internvl.chelsea.ids.json")))
    ids_out = os.path.join(scratch, "ids.json")
    result = run_llmc(llmc, "run", "-m", binary, "--image", image, "-p",
                      "Please describe the image shortly.", "--max-new-tokens", "8",
                      "--ids-out", ids_out)
    if failures.check(result.returncode == 0, f"run -p --image: {result.stderr.strip()}"):
        ours = json.load(open(ids_out))
        failures.check(ours["prompt"] == ids["prompt"], "run -p --image: another prompt")
        failures.check(ours["generated"] == ids["generated"],
                       f"run -p --image: generated {ours['generated']}, reference "
                       f"{ids['generated']}")
        failures.check("vision: 7 tiles in" in result.stderr,
                       f"run -p --image: no vision timing in {result.stderr.strip()}")

    # The chat's first turn with /image: the same prompt and reply ids; a
    # missing image is an error and the chat goes on.
    chat_ids = os.path.join(scratch, "chat.json")
    result = run_llmc(llmc, "chat", "-m", binary, "--max-new-tokens", "8",
                      "--ids-out", chat_ids,
                      stdin=f"/image {image}\nPlease describe the image shortly.\n"
                            f"/image {scratch}/none.png\nAnd now?\n")
    if failures.check(result.returncode == 0, f"chat /image: {result.stderr.strip()}"):
        turns = json.load(open(chat_ids))["turns"]
        failures.check(len(turns) == 2 and turns[0]["input_ids"] == ids["prompt"] and
                       turns[0]["generated"] == ids["generated"],
                       "chat /image: the first turn differs from the reference")
        failures.check("none.png: cannot read" in result.stderr,
                       f"chat /image of a missing file: {result.stderr.strip()}")

    result = run_llmc(llmc, "run", "-m", binary, "--image", image, "-p", "<image> or <image>?")
    failures.expect_error(result, "the prompt has 2 <image> markers for 1 images",
                          "markers and images differ")
    # The vision piece quantized on request: the patch kernel's K = 588
    # takes groups of 49, said once.
    quantized = os.path.join(scratch, "vision-w8.llmc")
    result = run_llmc(llmc, "convert", "-m", model, "-c", "bm1684x", "-q", "W4BF16",
                      "--vision-quantize", "W8F16", "--quiet", "-o", quantized)
    fallback = ("group size 64 does not divide K = 588 of "
                "'vision_model.embeddings.patch_embedding.weight'; it is quantized in groups of 49")
    failures.check(result.returncode == 0 and result.stderr.count(fallback) == 1,
                   f"--vision-quantize W8F16: {result.stderr.strip()}")
    result = run_llmc(llmc, "convert", "-m", DEMO, "-c", "bm1684x", "-q", "W4BF16",
                      "--vision-quantize", "W8F16", "-o", os.path.join(scratch, "none.llmc"))
    failures.expect_error(result, "piece pattern 'vision' matches no piece", "a text model")

    check_minicpmv(llmc, vlm, scratch, failures)
    text_model = convert_demo(llmc, os.path.join(scratch, "demo.llmc"))
    result = run_llmc(llmc, "run", "-m", text_model, "--image", image, "-p", "hi")
    failures.expect_error(result, "has no vision piece", "a text binary")


def check_minicpmv(llmc, vlm, scratch, failures):
    """MiniCPM-V's chat: its (<image>./</image>) marker, the source picture
    and slices expanded as processing_minicpmv.py does; its pixel values do
    not say the pictures' sizes, so --pixel-values is refused."""
    model = os.path.join(vlm, "models", "tiny-minicpmv")
    binary = os.path.join(scratch, "minicpmv.llmc")
    result = run_llmc(llmc, "convert", "-m", model, "-c", "host", "-q", "F32", "--quiet",
                      "-o", binary)
    if not failures.check(result.returncode == 0, f"convert minicpmv: {result.stderr.strip()}"):
        return
    ids = json.load(open(os.path.join(vlm, "refs", "tiny-minicpmv.chelsea.ids.json")))
    ids_out = os.path.join(scratch, "minicpmv.json")
    result = run_llmc(llmc, "run", "-m", binary, "--image",
                      os.path.join(vlm, "images", "chelsea.png"), "-p", "What is in the image?",
                      "--max-new-tokens", "8", "--ids-out", ids_out)
    if failures.check(result.returncode == 0, f"minicpmv run -p: {result.stderr.strip()}"):
        ours = json.load(open(ids_out))
        failures.check(ours["prompt"] == ids["prompt"] and ours["generated"] == ids["generated"],
                       f"minicpmv run -p: prompt or ids differ: {ours['generated']}")
    pixels = os.path.join(vlm, "refs", "tiny-minicpmv.chelsea.pixel_values.npy")
    result = run_llmc(llmc, "eval", "-m", model, "--input-ids", ",".join(map(str, ids["prompt"])),
                      "--pixel-values", pixels, "--max-new-tokens", "1")
    failures.expect_error(result, "minicpmv's pixel values do not say each picture's size",
                          "minicpmv --pixel-values")


if __name__ == "__main__":
    main(test)
