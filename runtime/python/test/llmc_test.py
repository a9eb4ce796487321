"""The llmc package on a compiled demo binary, against `llmc run`'s ids.

    llmc_test.py MODEL.llmc IDS.json

IDS.json is `llmc run --ids-out` of "Once upon a time" with 12 new tokens.
"""
import json
import sys
import unittest

import numpy

import llmc

MODEL, IDS = sys.argv[1], sys.argv[2]
PROMPT = "Once upon a time"


class LlmcTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.model = llmc.Model(MODEL, threads=1)
        with open(IDS) as ids:
            cls.reference = json.load(ids)

    def test_streams_the_ids_llmc_run_generates(self):
        stream = self.model.generate(PROMPT, max_new_tokens=12,
                                     stop_at_stop_tokens=False)
        pieces = list(stream)
        result = stream.result
        self.assertEqual(result.ids.dtype, numpy.int32)
        self.assertEqual(result.ids.tolist(), self.reference["generated"])
        self.assertEqual(result.prompt_ids.tolist(), self.reference["prompt"])
        self.assertEqual(len(pieces), 12)
        self.assertEqual("".join(pieces), result.text)
        self.assertEqual(result.finish_reason, "max tokens")

    def test_ids_in_logits_out(self):
        result = self.model.generate_result(self.reference["prompt"],
                                            max_new_tokens=3, keep_logits=True,
                                            stop_at_stop_tokens=False)
        self.assertEqual(result.ids.tolist(), self.reference["generated"][:3])
        self.assertEqual(result.logits.shape, (3, self.model.vocab_size))
        self.assertEqual(result.logits.dtype, numpy.float32)
        # Greedy: each id is its row's largest logit.
        self.assertEqual(result.logits.argmax(axis=1).tolist(),
                         result.ids.tolist())
        self.assertIsNone(self.model.generate_result(PROMPT,
                                                     max_new_tokens=1).logits)

    def test_encode_matches_the_prompt_ids(self):
        self.assertEqual(self.model.encode(PROMPT).tolist(),
                         self.reference["prompt"])

    def test_leaving_the_loop_ends_the_turn(self):
        stream = self.model.generate(PROMPT, max_new_tokens=12,
                                     stop_at_stop_tokens=False)
        for index, _ in enumerate(stream):
            if index == 2:
                break
        self.assertEqual(stream.result.finish_reason, "callback")
        self.assertEqual(stream.result.ids.tolist(),
                         self.reference["generated"][:3])

    def test_a_stream_runs_only_when_iterated(self):
        idle = self.model.generate(PROMPT, max_new_tokens=12)
        self.assertIsNone(idle.result)
        stream = self.model.generate(PROMPT, max_new_tokens=12,
                                     stop_at_stop_tokens=False)
        self.assertEqual(stream.wait().ids.tolist(),
                         self.reference["generated"])
        self.assertEqual(list(stream), [], "a finished stream yields no more")

    def test_chat_keeps_its_history(self):
        chat = self.model.start_chat("You tell fortunes.")
        reply = chat.send("Hello", max_new_tokens=4).wait()
        self.assertGreaterEqual(len(reply.ids), 1)
        self.assertEqual([role for role, _ in chat.messages],
                         ["system", "user", "assistant"])
        chat.send("And tomorrow?", max_new_tokens=4).wait()
        self.assertEqual(len(chat.messages), 5)
        chat.reset()
        self.assertEqual(len(chat.messages), 1)

    def test_errors_raise_llmc_error(self):
        with self.assertRaisesRegex(llmc.Error, "/nonexistent/model.llmc"):
            llmc.Model("/nonexistent/model.llmc")
        with self.assertRaises(llmc.Error):
            self.model.generate(PROMPT, temperature=-1.0).wait()
        self.assertTrue(issubclass(llmc.Error, RuntimeError))


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=2)
