"""llmc's runtime from Python: compiled .llmc binaries, token by token.

    import llmc
    model = llmc.Model("model.llmc")
    for piece in model.generate("Once upon a time", max_new_tokens=32):
        print(piece, end="", flush=True)

    result = model.generate_result("Once upon a time", max_new_tokens=32,
                                   keep_logits=True)
    result.ids, result.text, result.logits      # numpy int32, str, float32

    chat = model.start_chat("You are terse.")
    for piece in chat.send("Hello!"):
        print(piece, end="")

generate and send take the keywords of generate_result (max_new_tokens,
temperature, top_k, top_p, repetition_penalty, seed, stop_at_stop_tokens,
parse_special_tokens, keep_logits) and return a Stream: iterating it runs
the turn and yields each token's text as it is generated (wait() runs it to
the end); its `result` is the Result once the turn ends. Leaving the loop
after a piece ends the turn with that piece's token. Failures raise
llmc.Error.
"""

import queue
import threading

from ._llmc import Chat, Error, Model, Result

__all__ = ["Chat", "Error", "Model", "Result", "Stream"]

_END = object()


class Stream:
    """The text pieces of one turn. The turn starts when iteration does, on
    a worker thread that hands each piece over and waits to be asked for
    the next: leaving the loop after a piece ends the turn with that piece's
    token, and a Stream never iterated never generates."""

    def __init__(self, run, prompt, options):
        self.result = None
        self._run = run
        self._prompt = prompt
        self._options = options
        self._started = False

    def __iter__(self):
        if self._started:
            return
        self._started = True
        pieces, go_on, failure = queue.Queue(), queue.Queue(), []

        def on_token(token_id, text):
            pieces.put(text)
            return go_on.get()

        def work():
            try:
                self.result = self._run(self._prompt, callback=on_token,
                                        **self._options)
            except Exception as error:  # re-raised by the iterating thread
                failure.append(error)
            finally:
                pieces.put(_END)

        thread = threading.Thread(target=work, daemon=True)
        thread.start()
        waiting = False
        try:
            while True:
                piece = pieces.get()
                if piece is _END:
                    break
                waiting = True
                yield piece
                go_on.put(True)
                waiting = False
        finally:
            if waiting:
                go_on.put(False)
            thread.join()
        if failure:
            raise failure[0]

    def wait(self):
        """Runs the turn to its end and returns its Result."""
        for _ in self:
            pass
        return self.result


def _generate(self, prompt, **options):
    """Generates after a text prompt or a list of ids, streaming its text."""
    return Stream(self.generate_result, prompt, options)


def _send(self, user_text, **options):
    """Sends a user turn, streaming the reply's text."""
    return Stream(self.send_result, user_text, options)


Model.generate = _generate
Chat.send = _send
