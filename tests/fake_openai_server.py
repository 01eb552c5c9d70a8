"""A scripted, loopback-only stand-in for an OpenAI-compatible chat endpoint (LLM judge tests).

>>> with FakeOpenAI() as server:
...     server.base_url.startswith("http://127.0.0.1:")
True

`POST /v1/chat/completions` answers NAME-Bench's three prompts by fixed rules (below), so tests
know every expected label. It counts requests and the most requests in flight at once, records
each request body and Authorization header, and reports deterministic token usage.

Rules of the fake "model":
- step 1: each target concept is located in its caption with halluscope's mention extractor
  (the k-th mention of the category for "cat (occurrence k of n, word '...')"). Category
  "orange" is never "mentioned" (the colour). Otherwise, in the caption text from the last
  , ; . before the mention, the first cue found in the last four words decides: "says"/"picture of" (depictive),
  "no"/"without", "possibly", "waiting for", "for", "toilet"/"hot" (compounds) -> FUNCTIONAL with
  the trigger from the cue to the end of the mention; "either" -> AMBIGUOUS; else EXISTENTIAL with
  the mention itself as trigger.
- step 2, on the trigger span: says/picture -> depictive, possibly -> hedging, waiting for ->
  intensional, for -> purpose, otherwise generic.
- step 3: a phrase containing "toilet bowl" or "hot dog" is a compound.

Markers in a caption script misbehaviour that lasts across retries: "@garbage" (step-1 replies
are not JSON), "@skip" (step 1 leaves that caption's index out), "@badtrigger" (a trigger that is
not in the caption), "@step2garbage" (step-2 replies are not JSON). `faults` is a queue consumed
one per request, whatever the request: "500", "429" (with `Retry-After: retry_after`), "401",
"400", "garbage", "schema", "slow", "hang" (no reply for `hang` seconds, then a valid one: a
client with a shorter timeout has given up), "binary" (HTTP 200 whose body is neither UTF-8 nor
JSON), "html" (HTTP 200, an HTML error page).

`mix` ({fault or "ok": weight}) draws a fault for every request the queue does not script: from
a generator seeded by (`seed`, the request body, how many times that body came before), so each
request meets the same fate whatever order concurrent requests arrive in, and a retry of one
request is drawn afresh. `outcomes` records, per request body (its canonical JSON), what each
request of it was served ("ok" or the fault).
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from halluscope.text.mentions import extract_mentions

# A caption may span lines (real captions hold paragraph breaks); concepts are one a line.
_BLOCK = re.compile(r'^--- Caption index (\d+) ---\nCaption: "(.*?)"\n'
                    r'Target concepts for this caption:\n((?:- "[^\n]*"(?:\n|$))+)',
                    re.MULTILINE | re.DOTALL)
_OCCURRENCE = re.compile(r"^(.+?) \(occurrence (\d+) of (\d+), word '(.*)'\)$")
_CUES = [("says", "FUNCTIONAL"), ("picture of", "FUNCTIONAL"), ("no", "FUNCTIONAL"),
         ("without", "FUNCTIONAL"), ("possibly", "FUNCTIONAL"), ("waiting for", "FUNCTIONAL"),
         ("for", "FUNCTIONAL"), ("toilet", "FUNCTIONAL"), ("hot", "FUNCTIONAL"),
         ("either", "AMBIGUOUS")]
_COMPOUND_HEADS = ("toilet", "hot")


def step1_answer(user: str) -> dict[str, Any]:
    """The fake model's step-1 JSON for a step-1 user prompt."""
    captions = []
    for match in _BLOCK.finditer(user):
        index, caption = int(match.group(1)), match.group(2)
        if "@skip" in caption:
            continue
        concepts = re.findall(r'^- "(.*)"$', match.group(3), re.MULTILINE)
        captions.append({"index": index,
                         "results": [_step1_result(caption, c) for c in concepts]})
    return {"captions": captions}


def _step1_result(caption: str, concept: str) -> dict[str, Any]:
    occurrence = _OCCURRENCE.match(concept)
    category, k = (occurrence.group(1), int(occurrence.group(2))) if occurrence else (concept, 1)
    found = [m for m in extract_mentions(caption) if m.category == category]
    result: dict[str, Any] = {"concept": concept, "concept_mentioned": False,
                              "trigger_phrase": None, "mention_type": None,
                              "reasoning": "concept not referred to", "confidence": "HIGH"}
    if category == "orange" or len(found) < k:
        return result
    mention = found[k - 1]
    clause_start = max(caption.rfind(p, 0, mention.start) for p in ",;.") + 1
    # The window: the last four words of the clause before the mention.
    words = list(re.finditer(r"\w+", caption[clause_start:mention.start]))[-4:]
    window_start = clause_start + (words[0].start() if words else 0)
    window = caption[window_start:mention.start].lower()
    mention_type, trigger = "EXISTENTIAL", mention.word
    for cue, kind in _CUES:
        # Compound heads count only right before the mention ("toilet bowl", not "toilet and a").
        pattern = rf"\b{cue}\s+$" if cue in _COMPOUND_HEADS else rf"\b{cue}\b"
        cue_match = re.search(pattern, window)
        if cue_match:
            mention_type = kind
            trigger = caption[window_start + cue_match.start():mention.end]
            break
    if "@badtrigger" in caption:
        trigger = "a phrase that is not in the caption"
    result.update(concept_mentioned=True, trigger_phrase=trigger, mention_type=mention_type,
                  reasoning=f"{mention_type.lower()} by rule")
    return result


def step2_answer(user: str) -> dict[str, Any]:
    span = re.search(r'^Trigger span: "(.*)"$', user, re.MULTILINE).group(1).lower()
    subtype = ("depictive" if "says" in span or "picture" in span else
               "hedging" if "possibly" in span else
               "intensional" if "waiting for" in span else
               "purpose" if re.search(r"\bfor\b", span) else "generic")
    return {"subtype": subtype, "confidence": "high", "reason": f"{subtype} by rule"}


def step3_answer(user: str) -> dict[str, Any]:
    phrase = re.search(r'^Phrase: "(.*)"$', user, re.MULTILINE).group(1).lower()
    for compound, meaning in (("toilet bowl", "a fixture"), ("hot dog", "a food item")):
        if compound in phrase:
            return {"is_compound": True, "compound_phrase": compound, "compound_meaning": meaning}
    return {"is_compound": False, "compound_phrase": None, "compound_meaning": None}


class FakeOpenAI:
    """The server; start it with `with FakeOpenAI() as server:` and point clients at base_url.

    delay: seconds every reply waits (to make requests overlap); jitter: a further random wait
    up to that many seconds (seeded), to shuffle completion order; slow: how long a "slow" fault
    waits.
    """

    def __init__(self, delay: float = 0.0, jitter: float = 0.0, slow: float = 1.5, seed: int = 0,
                 mix: dict[str, float] | None = None, hang: float = 2.0,
                 retry_after: float = 0.05):
        self.delay, self.jitter, self.slow = delay, jitter, slow
        self.hang, self.retry_after, self.seed = hang, retry_after, seed
        self.mix = dict(mix or {})
        self.outcomes: dict[str, list[str]] = {}
        self.faults: list[str] = []
        self.requests: list[dict[str, Any]] = []
        self.authorization: list[str | None] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self.prompt_tokens = 0
        self.completion_tokens = 0
        self._random = random.Random(seed)
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        assert self._httpd is not None, "server not started"
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def count(self, kind: str | None = None) -> int:
        """Requests received (of one kind: "step1", "step2", "step3")."""
        with self._lock:
            return sum(1 for r in self.requests if kind is None or r["kind"] == kind)

    def reset(self) -> None:
        with self._lock:
            self.requests.clear()
            self.authorization.clear()
            self.max_in_flight = 0

    def start(self) -> "FakeOpenAI":
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
                server._handle(self)

            def log_message(self, *args: object) -> None:  # keep test output quiet
                pass

        class Server(ThreadingHTTPServer):
            request_queue_size = 128  # many concurrent clients: none refused at connect

        # Port 0: the OS picks a free port; loopback only.
        self._httpd = Server(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever,
                                        kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> "FakeOpenAI":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ------------------------------------------------------------------------------ handling

    def _handle(self, handler: BaseHTTPRequestHandler) -> None:
        with self._lock:
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            fault = self.faults.pop(0) if self.faults else None
            wait = self.delay + self._random.random() * self.jitter
        handler.counted_in_flight = True  # type: ignore[attr-defined]
        try:
            self._respond(handler, fault, wait)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (a timeout test): nothing to answer
        finally:
            self._release(handler)

    def _release(self, handler: BaseHTTPRequestHandler) -> None:
        """The request stops counting as in flight (once): before its answer is written, since
        a client that has its answer may send the next request before this thread runs on."""
        with self._lock:
            if getattr(handler, "counted_in_flight", False):
                handler.counted_in_flight = False  # type: ignore[attr-defined]
                self.in_flight -= 1

    def _draw(self, key: str) -> str | None:
        """The `mix` fault of the next request with this body (None: a valid reply)."""
        if not self.mix:
            return None
        seen = len(self.outcomes.get(key, []))
        digest = hashlib.sha256(f"{self.seed}:{seen}:{key}".encode()).digest()
        point = int.from_bytes(digest[:8], "big") / 2**64 * sum(self.mix.values())
        for fault, weight in sorted(self.mix.items()):
            point -= weight
            if point < 0:
                return None if fault == "ok" else fault
        return None

    def _respond(self, handler: BaseHTTPRequestHandler, fault: str | None, wait: float) -> None:
        length = int(handler.headers.get("Content-Length", 0))
        body = json.loads(handler.rfile.read(length))
        user = next(m["content"] for m in body["messages"] if m["role"] == "user")
        kind = ("step1" if user.startswith("You will analyze") else
                "step2" if user.startswith("Classify the linguistic mechanism") else "step3")
        key = json.dumps({"model": body["model"], "messages": body["messages"]}, sort_keys=True)
        with self._lock:
            if fault is None:
                fault = self._draw(key)
            self.outcomes.setdefault(key, []).append(fault or "ok")
            self.requests.append({"kind": kind, "body": body, "fault": fault})
            self.authorization.append(handler.headers.get("Authorization"))
        if handler.path != "/v1/chat/completions":
            return self._send(handler, 404, {"error": {"message": "not found"}})
        time.sleep(wait + (self.slow if fault == "slow" else 0.0)
                   + (self.hang if fault == "hang" else 0.0))
        if fault in ("500", "429", "401", "400"):
            message = {"500": "internal error", "429": "rate limited", "400": "bad request",
                       "401": f"Incorrect API key provided: {handler.headers.get('Authorization')}"
                       }[fault]
            headers = {"Retry-After": str(self.retry_after)} if fault == "429" else {}
            return self._send(handler, int(fault), {"error": {"message": message}}, headers)
        if fault == "binary":
            return self._send_raw(handler, 200, b"\xff\xfe\x00garbage\x9c", "application/json")
        if fault == "html":
            return self._send_raw(handler, 200, b"<html><body>502 Bad Gateway</body></html>",
                                  "text/html")
        if kind == "step1":
            answer: Any = step1_answer(user)
            text = json.dumps(answer)
            if "@garbage" in user or fault == "garbage":
                text = "Sure! Here are the labels: {captions: oops"
            elif fault == "schema":
                text = json.dumps({"captions": [{"index": "zero", "results": "none"}]})
        elif kind == "step2":
            text = json.dumps(step2_answer(user))
            if "@step2garbage" in user or fault == "garbage":
                text = "generic, I think"
            elif fault == "schema":
                text = json.dumps({"subtype": "sarcasm"})
        else:
            text = json.dumps(step3_answer(user))
            if fault == "garbage":
                text = "no"
            elif fault == "schema":
                text = json.dumps({"is_compound": "maybe"})
        prompt_tokens = sum(len(m["content"]) for m in body["messages"]) // 4
        completion_tokens = len(text) // 4 + 1
        with self._lock:
            self.prompt_tokens += prompt_tokens
            self.completion_tokens += completion_tokens
        self._send(handler, 200, {
            "id": f"chatcmpl-{len(self.requests)}", "object": "chat.completion",
            "created": 0, "model": body["model"],
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": text}}],
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                      "total_tokens": prompt_tokens + completion_tokens}})

    def _send(self, handler: BaseHTTPRequestHandler, status: int, payload: dict[str, Any],
              headers: dict[str, str] | None = None) -> None:
        self._send_raw(handler, status, json.dumps(payload).encode(), "application/json", headers)

    def _send_raw(self, handler: BaseHTTPRequestHandler, status: int, data: bytes,
                  content_type: str, headers: dict[str, str] | None = None) -> None:
        handler.send_response(status)
        handler.send_header("Content-Type", content_type)
        handler.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            handler.send_header(name, value)
        handler.end_headers()
        self._release(handler)
        handler.wfile.write(data)
