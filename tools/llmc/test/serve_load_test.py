"""llmc serve under load, on loopback and bounded in count and time, on the
chat demo model compiled for the host:

- 4 x the slots of concurrent streaming clients, each with its own prompt:
  every one completes, and its text is the greedy reply the same prompt
  gets alone (no stream mixed up with another's);
- a burst beyond slots + queue (on the bm1684x cmodel, where a request
  takes long enough to overlap): the excess is answered 503 with
  Retry-After at once, the rest complete;
- 1,000 requests: the server's resident set stays flat (the growth between
  the 200th and the 1,000th request is bounded below)."""

import json
import os
import subprocess
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
from cli_common import Server, main, scratch_directory  # noqa: E402

CHAT_DEMO = os.path.join("models", "demo", "fortune-qwen2-chat")
SLOTS = 2
PROMPTS = ["Tell me a fortune.", "Say something wise.", "What is love?",
           "Any thoughts on computers?", "给我一句诗。", "What is time?",
           "Tell me something about the sea.", "Any thoughts on cats?"]
# Resident-set growth allowed between the 200th and the 1,000th request.
# Measured: +8 KiB (two runs). A leak of 330 bytes or more a request (a
# prompt's token ids, one reply's text) fails it.
RSS_GROWTH_KIB = 256


def chat_request(prompt, max_tokens, stream=False):
    return {"messages": [{"role": "user", "content": prompt}], "max_tokens": max_tokens,
            "stream": stream}


def streamed_text(data):
    """The content of a streamed chat reply's chunks, joined."""
    text = ""
    for line in data.split("\n"):
        if line.startswith("data: ") and line != "data: [DONE]":
            for choice in json.loads(line[len("data: "):]).get("choices", []):
                text += choice.get("delta", {}).get("content", "")
    return text


def run_together(count, work):
    """Runs work(i) for i < count on threads released at once; returns the
    results in order."""
    results = [None] * count
    barrier = threading.Barrier(count)

    def client(index):
        barrier.wait()
        results[index] = work(index)

    threads = [threading.Thread(target=client, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


def check_concurrent_streams(server, failures):
    alone = []
    for prompt in PROMPTS:
        status, data = server.request("POST", "/v1/chat/completions", chat_request(prompt, 24))
        alone.append(json.loads(data)["choices"][0]["message"]["content"]
                     if status == 200 else None)
        failures.check(status == 200, f"{prompt!r} alone: {status} {data}")
    together = run_together(len(PROMPTS), lambda i: server.exchange(
        "POST", "/v1/chat/completions", chat_request(PROMPTS[i], 24, stream=True)))
    for prompt, expected, (status, _, data) in zip(PROMPTS, alone, together):
        if failures.check(status == 200, f"{prompt!r} streamed with {len(PROMPTS) - 1} "
                                         f"others: {status} {data[:200]}"):
            failures.check(streamed_text(data) == expected,
                           f"{prompt!r} streamed with others: {streamed_text(data)!r}, "
                           f"alone: {expected!r}")


def check_burst(llmc, binary, failures):
    # One slot and no queue: of 6 requests sent at once, each a quarter of a
    # second or more on the chip's cmodel, one runs and the others are
    # turned away at once.
    server = Server(llmc, binary, "--parallel", "1", "--queue", "0")
    try:
        replies = run_together(6, lambda i: server.exchange(
            "POST", "/v1/chat/completions", chat_request(PROMPTS[i], 96)))
        statuses = sorted(status for status, _, _ in replies)
        failures.check(statuses.count(200) >= 1 and statuses.count(503) >= 1 and
                       set(statuses) <= {200, 503}, f"burst statuses: {statuses}")
        for status, headers, data in replies:
            if status == 503:
                error = json.loads(data).get("error", {})
                failures.check(headers.get("Retry-After") == "1" and
                               "busy" in error.get("message", ""),
                               f"503 without Retry-After or message: {headers} {data}")
        status, data = server.request("GET", "/metrics")
        failures.check(f"llmc_requests_rejected_total {statuses.count(503)}" in data,
                       f"/metrics does not count the rejections: {data}")
    finally:
        server.stop()


def check_rss_flat(server, failures):
    def hammer(count):
        def work(index):
            for turn in range(count):
                status, data = server.request(
                    "POST", "/v1/chat/completions",
                    chat_request(PROMPTS[(index + turn) % len(PROMPTS)], 2))
                if status != 200:
                    return f"{status} {data}"
            return None
        return [error for error in run_together(4, work) if error]

    errors = hammer(50)
    settled = server.rss_kib()
    errors += hammer(200)
    grown = server.rss_kib() - settled
    print(f"1000 requests: RSS {settled} KiB after 200, {settled + grown} KiB after 1000 "
          f"(+{grown} KiB)")
    failures.check(not errors, f"failed requests: {errors[:3]}")
    failures.check(grown <= RSS_GROWTH_KIB,
                   f"RSS grew by {grown} KiB over 800 requests (bound {RSS_GROWTH_KIB})")


def convert(llmc, chip, *extra):
    binary = os.path.join(scratch_directory(), f"chat-{chip}.llmc")
    subprocess.run([llmc, "convert", "-m", CHAT_DEMO, "-c", chip, "-o", binary, "--quiet",
                    *extra], check=True, capture_output=True)
    return binary


def test(options, failures):
    llmc = os.path.realpath(options["llmc"])
    host = convert(llmc, "host", "-q", "F32", "-s", "128", "--max-input-length", "16")
    server = Server(llmc, host, "--parallel", str(SLOTS), "--queue", str(3 * SLOTS))
    try:
        check_concurrent_streams(server, failures)
        check_rss_flat(server, failures)
    finally:
        server.stop()
    check_burst(llmc, convert(llmc, "bm1684x", "-q", "W8F16"), failures)


if __name__ == "__main__":
    main(test)
