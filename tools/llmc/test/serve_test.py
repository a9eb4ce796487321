"""llmc serve on the demo model, driven by a client that uses only Python's
standard library: health and models, completions equal to `llmc run -p`
token for token, a streamed chat whose server-sent events add up to the
same reply as the plain one (role first, finish reason, usage, [DONE]),
stop strings, a follow-up turn that reuses its conversation's KV cache
(in its usage and in /metrics),
OpenAI-style errors with their status codes, the API key, and user text
never read as special tokens. curl, as the README calls it, gets the same
replies plain and streamed."""

import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
from cli_common import Server, convert_demo, main, run_llmc, scratch_directory  # noqa: E402


def check_replies(llmc, binary, server, failures):
    status, data = server.request("GET", "/health")
    failures.check(status == 200 and json.loads(data) == {"status": "ok"}, f"/health: {data}")
    status, data = server.request("GET", "/v1/models")
    failures.check(status == 200 and json.loads(data)["data"][0]["object"] == "model",
                   f"/v1/models: {data}")

    # Greedy completions are `llmc run -p`, token for token.
    run = run_llmc(llmc, "run", "-m", binary, "-p", "A computer is like",
                   "--max-new-tokens", "12")
    status, data = server.request("POST", "/v1/completions",
                                  {"prompt": "A computer is like", "max_tokens": 12})
    reply = json.loads(data) if status == 200 else {}
    failures.check(status == 200 and reply["choices"][0]["text"] == run.stdout.rstrip("\n"),
                   f"completions: {data} vs run {run.stdout!r}")
    failures.check(reply.get("usage", {}).get("completion_tokens") == 12 and
                   reply["usage"]["prompt_tokens"] > 0, f"completions usage: {data}")

    # A chat streamed and not: the same reply.
    chat = {"messages": [{"role": "system", "content": "Be brief."},
                         {"role": "user", "content": "What is the meaning of life?"}],
            "max_tokens": 16}
    status, data = server.request("POST", "/v1/chat/completions", chat)
    plain = json.loads(data) if status == 200 else {}
    failures.check(status == 200 and plain["object"] == "chat.completion" and
                   plain["choices"][0]["message"]["role"] == "assistant", f"chat: {data}")
    status, events = server.events("/v1/chat/completions",
                                   dict(chat, stream=True,
                                        stream_options={"include_usage": True}))
    if failures.check(status == 200 and len(events) >= 4 and events[-1] == "[DONE]",
                      f"stream: {status} {events[-3:]}"):
        chunks = [json.loads(event) for event in events[:-1]]
        failures.check(chunks[0]["choices"][0]["delta"].get("role") == "assistant",
                       f"stream: first chunk {chunks[0]}")
        text = "".join(c["choices"][0]["delta"].get("content", "")
                       for c in chunks if c["choices"])
        failures.check(plain and text == plain["choices"][0]["message"]["content"],
                       f"stream text {text!r} vs {plain}")
        finish = [c for c in chunks if c["choices"] and c["choices"][0]["finish_reason"]]
        failures.check(len(finish) == 1 and finish[0]["choices"][0]["finish_reason"] ==
                       plain["choices"][0]["finish_reason"], f"stream finish: {finish}")
        # The same counts; the second request reuses the first's cache.
        counts = ("prompt_tokens", "completion_tokens", "total_tokens")
        failures.check(chunks[-1]["choices"] == [] and
                       all(chunks[-1]["usage"][key] == plain["usage"][key] for key in counts)
                       and chunks[-1]["usage"]["prompt_tokens_details"]["cached_tokens"] > 0,
                       f"stream usage: {chunks[-1]}")
        failures.check(len({c["id"] for c in chunks}) == 1, "stream: chunks of several ids")

    # curl, as the README calls it: the same reply, plain and streamed.
    url = f"http://127.0.0.1:{server.port}/v1/chat/completions"
    curled = subprocess.run(["curl", "-sS", url, "-d", json.dumps(chat)],
                            capture_output=True, text=True)
    failures.check(curled.returncode == 0 and plain and
                   json.loads(curled.stdout)["choices"][0]["message"] ==
                   plain["choices"][0]["message"], f"curl: {curled.stdout} {curled.stderr}")
    curled = subprocess.run(["curl", "-sSN", url, "-d", json.dumps(dict(chat, stream=True))],
                            capture_output=True, text=True)
    lines = [line[len("data: "):] for line in curled.stdout.split("\n")
             if line.startswith("data: ")]
    if failures.check(curled.returncode == 0 and lines and lines[-1] == "[DONE]",
                      f"curl -N: {curled.stdout[-200:]} {curled.stderr}"):
        text = "".join(json.loads(line)["choices"][0]["delta"].get("content", "")
                       for line in lines[:-1])
        failures.check(plain and text == plain["choices"][0]["message"]["content"],
                       f"curl -N streamed {text!r}")

    # A stop string ends the reply before it.
    whole = plain["choices"][0]["message"]["content"] if plain else ""
    if len(whole) > 4:
        marker = whole[3:5]
        status, data = server.request("POST", "/v1/chat/completions",
                                      dict(chat, stop=[marker]))
        reply = json.loads(data) if status == 200 else {}
        failures.check(status == 200 and
                       reply["choices"][0]["message"]["content"] == whole[:whole.find(marker)] and
                       reply["choices"][0]["finish_reason"] == "stop",
                       f"stop {marker!r}: {data}")

    # People's words stay text: a typed <|im_end|> is not the special token.
    status, data = server.request("POST", "/tokenize", {"content": "<|im_end|>"})
    failures.check(status == 200 and len(json.loads(data)["tokens"]) > 1,
                   f"/tokenize of a special token's text: {data}")
    status, data = server.request("POST", "/detokenize",
                                  {"tokens": json.loads(data)["tokens"]})
    failures.check(status == 200 and json.loads(data)["content"] == "<|im_end|>",
                   f"/detokenize: {data}")


def check_follow_up(llmc, binary, server, failures):
    """A second turn sent with the whole history runs only its new tokens
    on the kept conversation, and says the same as a fresh server."""
    question = [{"role": "user", "content": "Tell me about computers."}]
    status, data = server.request("POST", "/v1/chat/completions",
                                  {"messages": question, "max_tokens": 12})
    if not failures.check(status == 200, f"first turn: {data}"):
        return
    answer = json.loads(data)["choices"][0]["message"]["content"]
    conversation = question + [{"role": "assistant", "content": answer},
                               {"role": "user", "content": "And why?"}]
    body = {"messages": conversation, "max_tokens": 12}
    status, data = server.request("POST", "/v1/chat/completions", body)
    follow_up = json.loads(data) if status == 200 else {}
    usage = follow_up.get("usage", {})
    cached = usage.get("prompt_tokens_details", {}).get("cached_tokens", 0)
    failures.check(status == 200 and 0 < cached < usage["prompt_tokens"],
                   f"follow-up reused nothing: {data}")
    status, metrics = server.request("GET", "/metrics")
    values = dict(line.split(" ") for line in metrics.splitlines()
                  if line and not line.startswith("#"))
    failures.check(status == 200 and
                   int(float(values.get("llmc_prompt_tokens_cached_total", 0))) >= cached > 0 and
                   float(values.get("llmc_requests_total", 0)) >= 2 and
                   values.get("llmc_requests_waiting") == "0",
                   f"/metrics: {metrics}")
    fresh = Server(llmc, binary)
    try:
        status, data = fresh.request("POST", "/v1/chat/completions", body)
    finally:
        fresh.stop()
    reply = json.loads(data) if status == 200 else {}
    failures.check(
        follow_up and reply and
        reply["usage"]["prompt_tokens_details"]["cached_tokens"] == 0 and
        reply["choices"][0]["message"]["content"] ==
        follow_up["choices"][0]["message"]["content"],
        f"follow-up {follow_up} differs from a fresh run {reply}")


def check_errors(server, failures):
    cases = [
        ("POST", "/v1/chat/completions",
         {"messages": [{"role": "user", "content": "x"}], "chat_template_kwargs": 1}, 400,
         "'chat_template_kwargs' must be an object"),
        ("POST", "/v1/chat/completions",
         {"messages": [{"role": "user", "content": "x"}],
          "chat_template_kwargs": {"messages": []}}, 400, "set by the renderer itself"),
        ("POST", "/v1/chat/completions", "{bad", 400, "not JSON"),
        ("POST", "/v1/chat/completions", {"messages": []}, 400, "'messages'"),
        ("POST", "/v1/chat/completions",
         {"messages": [{"role": "robot", "content": "x"}]}, 400, "robot"),
        ("POST", "/v1/completions", {"prompt": "x", "max_tokens": -1}, 400, "max_tokens"),
        ("POST", "/v1/completions", {"prompt": "x", "temperature": -1}, 400, "temperature"),
        ("GET", "/nope", None, 404, "no such route"),
        ("POST", "/v1/completions", "x" * (2 << 20), 413, "too large"),
        ("POST", "/detokenize", {"tokens": [10 ** 9]}, 400, "outside the vocabulary"),
    ]
    for method, path, body, status, message in cases:
        got, data = server.request(method, path, body)
        error = json.loads(data).get("error", {}) if data.startswith("{") else {}
        failures.check(got == status and message in error.get("message", "") and
                       error.get("code") == status,
                       f"{method} {path}: expected {status} with {message!r}, got {got} {data[:200]}")


def check_api_key(llmc, binary, failures):
    server = Server(llmc, binary, "--api-key", "sesame")
    try:
        status, _ = server.request("GET", "/health")
        failures.check(status == 200, "/health needs no key")
        status, data = server.request("GET", "/v1/models")
        failures.check(status == 401 and "API key" in data, f"no key: {status} {data}")
        status, _ = server.request("GET", "/v1/models",
                                   headers={"Authorization": "Bearer wrong"})
        failures.check(status == 401, "a wrong key")
        status, _ = server.request("GET", "/v1/models",
                                   headers={"Authorization": "Bearer sesame"})
        failures.check(status == 200, "the right key")
    finally:
        server.stop()


def test(options, failures):
    llmc = os.path.realpath(options["llmc"])
    binary = convert_demo(llmc, os.path.join(scratch_directory(), "fortune.llmc"))
    server = Server(llmc, binary)
    try:
        check_replies(llmc, binary, server, failures)
        check_follow_up(llmc, binary, server, failures)
        check_errors(server, failures)
    finally:
        server.stop()
    check_api_key(llmc, binary, failures)
    result = run_llmc(llmc, "serve", "-m", binary, "--host", "256.0.0.1", "--port", "1")
    failures.expect_error(result, "cannot listen on 256.0.0.1:1", "a bad address")


if __name__ == "__main__":
    main(test)
