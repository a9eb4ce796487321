"""llmc template renders real chat templates byte for byte as Jinja2 did
(runtime/chat/test/data/template_refs.jsonl), with --date standing in for
the day, and refuses bad input with a clear error."""

import json
import os
import subprocess

import cli_common

DATA = os.path.join("runtime", "chat", "test", "data")
# Templates whose every case runs through the command: ChatML with a default
# system message, Llama 3.2 (strftime_now, tools), Mistral Small 3.2
# (strftime_now) and Gemma 2 (refuses a system message).
TEMPLATES = [
    "Qwen-Qwen2.5-7B-Instruct.jinja",
    "meta-llama-Llama-3.2-3B-Instruct.jinja",
    "Mistral-Small-3.2-24B-Instruct-2506.jinja",
    "google-gemma-2-2b-it.jinja",
]


def render(llmc, template, context_path, *extra):
    return subprocess.run([llmc, "template", "--template-file", template, "--context",
                           context_path, *extra], capture_output=True)


def test(options, failures):
    llmc = options["llmc"]
    scratch = cli_common.scratch_directory()
    context_path = os.path.join(scratch, "context.json")
    cases = 0
    with open(os.path.join(DATA, "template_refs.jsonl"), encoding="utf-8") as refs:
        for line in refs:
            reference = json.loads(line)
            if reference["template"] not in TEMPLATES:
                continue
            cases += 1
            what = f"{reference['template']} / {reference['case']}"
            with open(context_path, "w", encoding="utf-8") as f:
                json.dump(reference["context"], f, ensure_ascii=False)
            result = render(llmc, os.path.join(DATA, "templates", reference["template"]),
                            context_path, "--date", "2026-01-15")
            if "render" not in reference:
                failures.check(result.returncode == 1 and b"raise" not in result.stdout,
                               f"{what}: Jinja2 refused it, llmc rendered it")
                continue
            if failures.check(result.returncode == 0, f"{what}: {result.stderr.decode()}"):
                failures.check(result.stdout == reference["render"].encode("utf-8"),
                               f"{what}: rendered {result.stdout!r}, "
                               f"expected {reference['render']!r}")
    failures.check(cases == 8 * len(TEMPLATES), f"{cases} cases run")

    qwen = os.path.join(DATA, "templates", TEMPLATES[0])
    with open(context_path, "w") as f:
        f.write('{"messages": [')
    failures.expect_error(cli_common.run_llmc(llmc, "template", "--template-file", qwen,
                                              "--context", context_path),
                          "context.json: not JSON", "a truncated context")
    with open(context_path, "w") as f:
        f.write("[]")
    failures.expect_error(cli_common.run_llmc(llmc, "template", "--template-file", qwen,
                                              "--context", context_path),
                          "not a JSON object", "a context that is no object")
    broken = os.path.join(scratch, "broken.jinja")
    with open(broken, "w") as f:
        f.write("{% for m in messages %}{{ m.content }")
    failures.expect_error(cli_common.run_llmc(llmc, "template", "--template-file", broken,
                                              "--context", context_path),
                          "broken.jinja: the chat template does not parse",
                          "a template that does not parse")
    failures.expect_error(cli_common.run_llmc(llmc, "template", "--template-file", qwen,
                                              "--context", context_path, "--date", "2026-13-01"),
                          "is not a date", "a bad date")
    failures.expect_error(cli_common.run_llmc(llmc, "template", "--template-file",
                                              os.path.join(scratch, "none.jinja"),
                                              "--context", context_path),
                          "none.jinja: cannot read", "a missing template")


if __name__ == "__main__":
    cli_common.main(test)
