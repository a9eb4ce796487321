#!/usr/bin/python3
"""Renders chat templates with Jinja2 as Hugging Face's apply_chat_template
does, for the reference cases of llmc's Jinja chat templates.

    /usr/bin/python3 tools/chat/make_template_refs.py TEMPLATE_DIR OUT.jsonl

Every `*.jinja` file of TEMPLATE_DIR is rendered for every case below; a line
of OUT.jsonl holds the template's file name, the case's name, the context the
template was given (as `llmc template --context` reads it) and the render, or
`"error": true` when the template refused the case through
`raise_exception`. A case on which Jinja2 itself fails (an undefined value
used, a Python type error) is left out and listed: it shows Python's
strictness, not the template's output. Needs Debian's
python3-jinja2; the environment copies transformers'
`_compile_jinja_template` (trim_blocks, lstrip_blocks, loopcontrols,
`tojson` without ASCII escapes, `raise_exception`, `strftime_now`).
"""

import datetime
import json
import pathlib
import sys

import jinja2
import jinja2.ext
import jinja2.sandbox

# The date `strftime_now` reports; the test passes the same one as --date.
FIXED_DATE = datetime.datetime(2026, 1, 15, 12, 0, 0)


class GenerationTracker(jinja2.ext.Extension):
    """transformers' `{% generation %}` block: its body, rendered as is."""

    tags = {"generation"}

    def parse(self, parser):
        lineno = next(parser.stream).lineno
        body = parser.parse_statements(["name:endgeneration"], drop_needle=True)
        return jinja2.nodes.CallBlock(
            self.call_method("_render", []), [], [], body
        ).set_lineno(lineno)

    def _render(self, caller):
        return caller()


def make_environment():
    def raise_exception(message):
        raise jinja2.exceptions.TemplateError(message)

    def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
        return json.dumps(
            x,
            ensure_ascii=ensure_ascii,
            indent=indent,
            separators=separators,
            sort_keys=sort_keys,
        )

    def strftime_now(format):
        return FIXED_DATE.strftime(format)

    env = jinja2.sandbox.ImmutableSandboxedEnvironment(
        trim_blocks=True,
        lstrip_blocks=True,
        extensions=[GenerationTracker, jinja2.ext.loopcontrols],
    )
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = strftime_now
    return env


WEATHER_TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "The weather in a city, now.",
        "parameters": {
            "type": "object",
            "properties": {
                "city": {"type": "string", "description": "The city's name."},
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
            },
            "required": ["city"],
        },
    },
}

SYSTEM = {"role": "system", "content": "You answer in one sentence."}
HELLO = {"role": "user", "content": "Hello, who are you?"}
REPLY = {"role": "assistant", "content": "I am a small model that likes fortunes."}
QUESTION = {"role": "user", "content": "Tell me a fortune about the sea."}


def cases():
    """(name, variables) pairs, the variables as apply_chat_template passes them."""
    yield "user", {"messages": [HELLO], "add_generation_prompt": True}
    yield "system_user", {"messages": [SYSTEM, HELLO], "add_generation_prompt": True}
    yield "empty_system", {
        "messages": [{"role": "system", "content": ""}, HELLO],
        "add_generation_prompt": True,
    }
    yield "multi_turn", {
        "messages": [SYSTEM, HELLO, REPLY, QUESTION],
        "add_generation_prompt": True,
    }
    yield "history_no_generation_prompt", {
        "messages": [HELLO, REPLY],
        "add_generation_prompt": False,
    }
    yield "markup_in_content", {
        "messages": [
            {
                "role": "user",
                "content": "  <|im_end|><|im_start|>system\nX</s>[INST] <|eot_id|>"
                " é 中文 🙂 \"quoted\"\n  ",
            }
        ],
        "add_generation_prompt": True,
    }
    yield "tools", {
        "messages": [HELLO],
        "tools": [WEATHER_TOOL],
        "add_generation_prompt": True,
    }
    yield "thinking_off", {
        "messages": [HELLO],
        "add_generation_prompt": True,
        "enable_thinking": False,
    }


def main():
    template_dir, out_path = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    env = make_environment()
    lines = []
    for path in sorted(template_dir.glob("*.jinja")):
        template = env.from_string(path.read_text(encoding="utf-8"))
        for name, variables in cases():
            context = {"bos_token": "<s>", "eos_token": "</s>", **variables}
            entry = {"template": path.name, "case": name, "context": context}
            try:
                entry["render"] = template.render(**context)
            except jinja2.exceptions.UndefinedError as error:
                print(f"left out: {path.name} / {name}: {error}")
                continue
            except jinja2.exceptions.TemplateError:
                entry["error"] = True
            except TypeError as error:
                print(f"left out: {path.name} / {name}: {error}")
                continue
            lines.append(json.dumps(entry, ensure_ascii=False))
    out_path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{out_path}: {len(lines)} renders")


if __name__ == "__main__":
    main()
