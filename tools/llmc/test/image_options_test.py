"""llmc eval's image options on a vision-language model and their errors:
the placeholders must match the images' embeddings, a text model takes no
image, and a corrupt image or pixel values of the wrong shape are errors
naming the file. Uses tiny-internvl from the shared reference data."""

import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
from cli_common import DEMO, main, run_llmc, scratch_directory  # noqa: E402


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


if __name__ == "__main__":
    main(test)
