"""Idioms of asking read as their plain forms: examples of our own, each class in several grammatical forms."""

import pytest

from vidmem_ros.agent.answer import Answer
from vidmem_ros.agent.asked import Asked, asked_kind, asks_negated, interrogative, turned_round
from vidmem_ros.agent.idioms import negated, plain_asking, plain_sentence
from vidmem_ros.agent.indirect import direct_question
from vidmem_ros.agent.question import (
    Intent,
    Modality,
    ParsedQuestion,
    Window,
    capitals_quoted,
    parse_question,
    window_of,
)
from vidmem_ros.agent.question_similarity import SimilarityParser
from vidmem_ros.agent.who import WhoAsked, who_question
from vidmem_ros.config import load_config
from vidmem_ros.perception.registry import build_text_embedder


@pytest.fixture(scope="module")
def similar() -> SimilarityParser:
    embedder = build_text_embedder(load_config().text_embedder)
    assert embedder is not None
    return SimilarityParser(embedder)


def _read(question: str, similar: SimilarityParser) -> ParsedQuestion | None:
    """As the rules-only parser reads what the reasoner hands it (words in capitals quoted): sentence patterns
    first, then likeness to example questions."""
    question = capitals_quoted(question)
    return parse_question(question) or similar.parse(question)


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        # a moment asked as a point, a stage, or as time into the patrol
        ("At what point did you pass the bakery?", Asked.TIME),
        ("At which stage did the wheelbarrow come into view?", Asked.TIME),
        ("How many minutes into the shift did you hear the siren?", Asked.TIME),
        ("How long after the start did you read the exit sign?", Asked.TIME),
        # how long, asked as a total or a length of time
        ("What was the total time the ladder was visible?", Asked.DURATION),
        ("What is the combined duration you watched the pigeons for?", Asked.DURATION),
        ("For what length of time was the trolley in sight?", Asked.DURATION),
        ("What amount of time did you spend near the lift?", Asked.DURATION),
        ("How long ago did you last see the van?", Asked.TIME),
        ("Count the times a ladder was in view.", Asked.COUNT),
        ("How long was the trolley visible, all together?", Asked.DURATION),
        ("How much of the shift has gone by?", Asked.DURATION),
        # a planner's terse query
        ("fox seen?", Asked.YES_NO),
        ("When was the fox first spotted?", Asked.TIME),
        ("number of wheelbarrow sightings", Asked.COUNT),
        ("last wheelbarrow sighting time", Asked.TIME),
        # yes or no without its auxiliary verb
        ("Spotted any foxes?", Asked.YES_NO),
        ("Seen a bicycle today?", Asked.YES_NO),
        ("Any ladders around during your rounds?", Asked.YES_NO),
        ("Anybody in the lobby?", Asked.YES_NO),
        ("When did you pass the fountain for the first time?", Asked.TIME),
        # these stay what they were
        ("How many minutes did you spend in the lab?", Asked.DURATION),
        ("What time is the delivery due?", Asked.NAME),
        ("What was the number of the office by the lift?", Asked.NAME),  # a number read, not a count
        ("Which box did you see first?", Asked.NAME),
    ],
)
def test_idioms_of_asking_ask_for_the_plain_forms_value(question: str, kind: Asked) -> None:
    assert asked_kind(question) is kind


@pytest.mark.parametrize(
    ("sentence", "plain"),
    [
        ("did you see a fox on your patrol", "did you see a fox"),
        ("during your rounds, did you read the menu", "did you read the menu"),
        ("has a heron crossed your path", "did you come across a heron"),
        ("was the bell rung before the lunch call, or after it", "was the bell rung before or after the lunch call"),
        ("did you pass the fountain after the gate or before", "did you pass the fountain after or before the gate"),
        ("of the kettle and the lamp, which came first", "which came first, the kettle or the lamp"),
        ("between the van and the bus: which did you see last", "which did you see last, the van or the bus"),
        ("how many times did you pass the lift, counting each visit", "how many times did you pass the lift"),
        ("how long were you in the gym, roughly", "how long were you in the gym"),
        # a way that is in the way is no scope; "before" and "before" offer no alternative
        ("was anything in your way", "was anything in your way"),
        ("was the van seen before the bus, or before it", "was the van seen before the bus, or before it"),
        # a request to name a thing, and a thing asked for by a relative clause, ask which thing
        ("identify the animal you saw", "what animal did you see"),
        ("which was the parcel that the robot found", "what parcel did the robot find"),
        ("name the first notice you read", "what did the first notice you read say"),
        # a moment that there was, asked whether
        ("was there ever a moment when a heron was in front of you", "was a heron in view"),
        ("was there a time you met a postman", "have you ever met a postman"),
        ("has there been an occasion when you saw a kite", "have you ever seen a kite"),
        # a place named as a thing's is the place with that thing
        ("how long were you in the kettle's room", "how long were you in the room with the kettle"),
        ("when did you reach the heron’s spot", "when did you reach the spot with the heron"),
        ("had you been to a parrot's area before noon", "had you been to the area with the parrot before noon"),
        ("did you leave the robot's spot", "did you leave the robot's spot"),
        # how a position is to be given, and whether a thing in a picture counts, ask nothing
        ("where were you, in x and y, when the kettle boiled", "where were you when the kettle boiled"),
        ("where, in map coordinates, was the heron", "where was the heron"),
        ("did you see a parrot, even a picture of one", "did you see a parrot"),
        ("were there any owls, real or pictured", "were there any owls"),
        ("did you spot lizards in photos or otherwise", "did you spot lizards"),
        # had one thing happened when another did: the first before the second
        ("when the bell rang, had you already seen the heron", "had you seen the heron before the bell rang"),
        ("had you read the menu by the time the van arrived", "had you read the menu before the van arrived"),
        ("what was the number of the locker by the door", "what was the number of the locker by the door"),
        # a thing left or lying somewhere: whether it was seen there
        ("had someone left a ladder lying about near the gate", "did you see a ladder near the gate"),
        ("did anybody leave a pram in the lobby", "did you see a pram in the lobby"),
        ("was a toolbox sitting on the bench", "did you see a toolbox on the bench"),
        ("has someone left an umbrella behind", "did you see an umbrella"),
        ("had someone left the tap running", "had someone left the tap running"),
        ("were you standing in the lobby", "were you standing in the lobby"),
        # getting to, staying at and leaving places, said other ways
        ("what time did you pull into the boathouse", "what time did you get to the boathouse"),
        ("have you looked in on the pharmacy", "have you been to the pharmacy"),
        ("which room did you inspect right after the gym", "which room did you go to right after the gym"),
        ("what was the length of your stay in the gym", "how long were you in the gym"),
        ("up in the loft, how many seconds did you stay?", "how long did you stay in the loft?"),
        ("once you were done at the gym, what was your next stop?", "where did you go right after the gym?"),
        ("between your two visits to the gym, where did you stop", "where did you go right after the gym"),
        ("which room came next after the gym", "which room did you go to right after the gym"),
        ("what was the previous room before the gym", "which room did you go to right before the gym"),
        ("the gym: what came next after it", "what came next after it"),
        # a voice over the robot's microphone, the camera resting on a thing, what a question does not mean
        ("how many times did a voice come over the intercom", "how many messages did you hear"),
        ("has anyone come over your speakers", "did you hear anything"),
        ("how long did the camera linger on the fountain", "how long was the fountain in view"),
        ("did you see a heron, not just a picture of one", "did you see a heron"),
        ("how many alarms are there in the recording", "how many alarms were there"),
        ("by now, have you looked in on the kiosk", "have you been to the kiosk"),
        ("was there a reptile of any kind in the shed", "was there a reptile in the shed"),
        ("what's the earliest time the heron shows up in your footage", "when did you first see the heron"),
        ("could you read me the number on the tag by the gate", "what was the number on the tag by the gate"),
        ("please read out the notice beside the lift", "what was the notice beside the lift"),
        ("did you read the notice beside the lift", "did you read the notice beside the lift"),
        ("what was the last time the van appeared?", "when did you last see the van?"),
        ("straight after the kiosk, which room did you check?", "which room did you go to straight after the kiosk?"),
        ("all told, how many notices are in your records", "how many notices were there"),
        ("when did you start looking at the aquarium", "when did you first look at the aquarium"),
        ("when did the robot finish reading the price board", "when did you last read the price board"),
        ("where did you pause to look at the kayak", "where did you look at the kayak"),
        ("give me the x, y where you stopped to read the menu", "where were you when you read the menu"),
        ("report the coordinates at which the robot saw the kayak", "where were you when you saw the kayak"),
        ("report your x,y while the kayak was on the trailer", "where were you when you saw the kayak on the trailer"),
        ("where were you while the dog was on the sofa", "where were you while you saw the dog on the sofa"),
        # a topic before a bare question word is what it asks about
        ("time spent in the boathouse - how much?", "how much time spent in the boathouse"),
        ("visits to the kiosk: how many?", "how many visits to the kiosk"),
    ],
)
def test_sentences_lose_scope_and_remarks_and_say_alternatives_whole(sentence: str, plain: str) -> None:
    assert plain_asking(plain_sentence(sentence)) == plain


@pytest.mark.parametrize(
    ("question", "intent", "modality", "target", "other"),
    [
        # every sign or message, none named
        ("How many different notices did you read?", Intent.COUNT, Modality.TEXT, "", ""),
        ("When did you hear the very first announcement?", Intent.FIRST, Modality.SPEECH, "", ""),
        ("When was the latest message?", Intent.LAST, Modality.SPEECH, "", ""),
        # first or last said after the thing
        ("When did you come across the van for the first time?", Intent.FIRST, Modality.OBJECT, "van", ""),
        ("When did you hear about the power cut, for the last time?", Intent.LAST, Modality.SPEECH, "power cut", ""),
        # someone unnamed, seen, is a person
        ("Spotted anybody on your patrol?", Intent.DID, Modality.OBJECT, "person", ""),
        ("Did you meet anyone in the corridor?", Intent.DID, Modality.OBJECT, "person in the corridor", ""),
        ("Have you run into any visitors?", Intent.DID, Modality.OBJECT, "person", ""),
        # words quoted are read, not a thing seen
        ("At what point did you pass the 'STAFF ONLY' sign?", Intent.LAST, Modality.TEXT, "staff only", ""),
        ("When did you see 'KEEP LEFT'?", Intent.LAST, Modality.TEXT, "keep left", ""),
        # either/or of a relation, said whole or split
        (
            "Was the alarm mentioned before the lunch call, or after it?",
            Intent.ORDER,
            Modality.SPEECH,
            "alarm",
            "lunch",
        ),
        ("Did you read the menu before or after the price list?", Intent.ORDER, Modality.TEXT, "menu", "price list"),
        ("Of the kettle and the lamp, which one did you notice last?", Intent.ORDER, Modality.OBJECT, "kettle", "lamp"),
        # what was read or seen right before or after a thing, however the words before the relation go
        ("What was the next thing you read after seeing the van?", Intent.AFTER, Modality.TEXT, "", "van"),
        ("Which sign did you read right after passing the fountain?", Intent.AFTER, Modality.TEXT, "", "fountain"),
        ("What did you read just before you saw the wheelbarrow?", Intent.BEFORE, Modality.TEXT, "", "wheelbarrow"),
        ("Which object did you notice immediately after the lamp?", Intent.AFTER, Modality.OBJECT, "", "lamp"),
        ("Tell me what came into view right before the bus.", Intent.BEFORE, Modality.OBJECT, "", "bus"),
        # a count asked as a number of sightings, in a noun phrase, or in the passive
        ("Give me the total number of heron sightings.", Intent.COUNT, Modality.OBJECT, "heron", ""),
        ("What was the count of wheelbarrows?", Intent.COUNT, Modality.OBJECT, "wheelbarrows", ""),
        ("How many sightings of a heron did you have?", Intent.COUNT, Modality.OBJECT, "heron", ""),
        ("How many wheelbarrow sightings were there?", Intent.COUNT, Modality.OBJECT, "wheelbarrow", ""),
        ("How many vans were spotted?", Intent.COUNT, Modality.OBJECT, "vans", ""),
        ("How many distinct announcements were there?", Intent.COUNT, Modality.SPEECH, "", ""),
        # the robot's camera or microphone as the one that met the thing
        ("Did the camera pick up any herons?", Intent.DID, Modality.OBJECT, "herons", ""),
        ("Has the camera ever captured a wheelbarrow?", Intent.DID, Modality.OBJECT, "wheelbarrow", ""),
        ("When did your camera catch the van?", Intent.LAST, Modality.OBJECT, "van", ""),
        (
            "Did the microphone pick up anything about the boiler?",
            Intent.DID,
            Modality.SPEECH,
            "boiler",
            "",
        ),
        # how exact the answer should be, said before the question word
        ("Roughly when did you get to the workshop for the first time?", Intent.FIRST, Modality.PLACE, "workshop", ""),
        ("Exactly where did you see the heron?", Intent.WHERE, Modality.OBJECT, "heron", ""),
        ("About how long did you watch the pigeons?", Intent.DURATION, Modality.OBJECT, "pigeons", ""),
        # how long the robot's own run has lasted, asked of the run
        ("How long did your shift last?", Intent.ACTIVE, Modality.OBJECT, "", ""),
        ("What was the length of the tour?", Intent.ACTIVE, Modality.OBJECT, "", ""),
        ("How long has the patrol been going on?", Intent.ACTIVE, Modality.OBJECT, "", ""),
        # a relation said before the question it bounds
        ("After the fountain, which sign did you read next?", Intent.AFTER, Modality.TEXT, "", "fountain"),
        ("Right before the van, what did you see?", Intent.BEFORE, Modality.OBJECT, "", "van"),
        # more verbs of coming across a thing, and first or last said after it
        ("When did you come upon the wheelbarrow?", Intent.LAST, Modality.OBJECT, "wheelbarrow", ""),
        ("Did you stumble across a heron?", Intent.DID, Modality.OBJECT, "heron", ""),
        ("Where did you notice the kettle for the first time?", Intent.WHERE, Modality.OBJECT, "kettle", ""),
        ("Where did you spot the van last?", Intent.WHERE, Modality.OBJECT, "van", ""),
        # memory named as where to look is every question's scope; "is a X" asks whether there was one
        ("Is a heron anywhere in your records?", Intent.DID, Modality.OBJECT, "heron", ""),
        ("Was a wheelbarrow present in your memory?", Intent.DID, Modality.OBJECT, "wheelbarrow", ""),
        ("Were any vans around?", Intent.DID, Modality.OBJECT, "vans", ""),
        # the first thing said, asked of who said it
        ("What was the first thing anyone said to you?", Intent.FIRST, Modality.SPEECH, "", ""),
        ("What were the last words somebody told you?", Intent.LAST, Modality.SPEECH, "", ""),
        # where the first or last message was heard
        ("Where was the last announcement made?", Intent.WHERE, Modality.SPEECH, "", ""),
        ("Where did you hear the first message?", Intent.WHERE, Modality.SPEECH, "", ""),
        # the thing as the subject of coming into view; remembering having met a thing is having met it
        ("When did the heron first show up on camera?", Intent.FIRST, Modality.OBJECT, "heron", ""),
        ("When did a van last come into view?", Intent.LAST, Modality.OBJECT, "van", ""),
        ("What is the earliest thing you remember reading?", Intent.READ, Modality.TEXT, "", ""),
        ("Can you recall seeing a heron?", Intent.DID, Modality.OBJECT, "heron", ""),
        # "anything about X" names X; reading counted; anyone speaking is any message
        ("Did you read anything about a boat show?", Intent.DID, Modality.TEXT, "boat show", ""),
        ("How many times did you read STAFF ONLY?", Intent.COUNT, Modality.TEXT, "staff only", ""),
        ("When did you last hear someone speak?", Intent.LAST, Modality.SPEECH, "", ""),
        # how long a message was listened to, not a stay at a place
        (
            "How long were you listening to the message about the boiler?",
            Intent.DURATION,
            Modality.SPEECH,
            "boiler",
            "",
        ),
        ("How long were you in the workshop?", Intent.DURATION, Modality.PLACE, "workshop", ""),
        # a question word contracted with "is" or "has"
        ("What's the last thing you heard?", Intent.LAST, Modality.SPEECH, "", ""),
        ("Where's the wheelbarrow?", Intent.WHERE, Modality.OBJECT, "wheelbarrow", ""),
        ("What's been said about the boiler?", Intent.SAID, Modality.SPEECH, "boiler", ""),
        ("How long have you been out and about?", Intent.ACTIVE, Modality.OBJECT, "", ""),
        # a remark before the question, a moment asked as a point, a count asked as a number, a topic before a dash
        (
            "For the record: at what time did the robot reach the boathouse?",
            Intent.FIRST,
            Modality.PLACE,
            "boathouse",
            "",
        ),
        ("At what point in the shift did you spot the heron?", Intent.LAST, Modality.OBJECT, "heron", ""),
        (
            "Please state the number of visits the robot made to the boathouse.",
            Intent.COUNT,
            Modality.PLACE,
            "boathouse",
            "",
        ),
        ("boathouse - how many visits?", Intent.COUNT, Modality.PLACE, "boathouse", ""),
        ("The boathouse. How long were you there?", Intent.DURATION, Modality.PLACE, "boathouse", ""),
        ("How long did your second stop at the boathouse last?", Intent.DURATION, Modality.PLACE, "boathouse", ""),
        ("How long were you watching the heron?", Intent.DURATION, Modality.OBJECT, "heron", ""),
        ("The heron: how long were you looking at it?", Intent.DURATION, Modality.OBJECT, "heron", ""),
        # going past a thing is passing it
        (
            "Did you drive past a kiosk before the boiler was mentioned?",
            Intent.ORDER,
            Modality.OBJECT,
            "kiosk",
            "boiler",
        ),
        ("Have you gone past the heron yet?", Intent.DID, Modality.OBJECT, "heron", ""),
        ("When did you walk past the kiosk?", Intent.LAST, Modality.OBJECT, "kiosk", ""),
        # the last place visited before another is the one right before it; going back to a place names it
        (
            "What was the last place you visited before going to the boathouse?",
            Intent.BEFORE,
            Modality.PLACE,
            "",
            "boathouse",
        ),
        ("Which was the final room the robot entered before the kiln?", Intent.BEFORE, Modality.PLACE, "", "kiln"),
        ("What was the first spot you stopped at after the boathouse?", Intent.AFTER, Modality.PLACE, "", "boathouse"),
        # things on sale or on show somewhere were there, whatever was done with them
        ("Were there kettles on sale in the boathouse?", Intent.DID, Modality.OBJECT, "kettles in the boathouse", ""),
        ("Were there any ladders for sale at the kiln?", Intent.DID, Modality.OBJECT, "ladders at the kiln", ""),
        # leaving a place first, then where the robot went: the place right after it
        ("Once you had left the kiln room, where did you go?", Intent.AFTER, Modality.PLACE, "", "kiln room"),
        (
            "As soon as the robot had exited the boathouse, which room did it go to?",
            Intent.AFTER,
            Modality.PLACE,
            "",
            "boathouse",
        ),
        ("When you moved on from the kiln, where did you stop next?", Intent.AFTER, Modality.PLACE, "", "kiln"),
        # "anywhere you looked" bounds nothing: every place
        ("Was there a kettle anywhere you looked?", Intent.DID, Modality.OBJECT, "kettle", ""),
        ("Did you spot a ladder anywhere you went?", Intent.DID, Modality.OBJECT, "ladder", ""),
        ("Have you come across a ladder everywhere you stopped?", Intent.DID, Modality.OBJECT, "ladder", ""),
        # moving through a place is being there; a place named with no article after a verb of going
        ("Have you been through the boathouse yet?", Intent.DID, Modality.PLACE, "boathouse", ""),
        ("Had the robot already driven through the boathouse?", Intent.DID, Modality.PLACE, "boathouse", ""),
        ("When did you roll through the boathouse?", Intent.LAST, Modality.PLACE, "boathouse", ""),
        ("Did it pass through the boathouse?", Intent.DID, Modality.PLACE, "boathouse", ""),
        ("Have you been to boat storage yet?", Intent.DID, Modality.PLACE, "boat storage", ""),
        ("Did you visit dispatch?", Intent.DID, Modality.PLACE, "dispatch", ""),
        ("When did you get to boat storage?", Intent.FIRST, Modality.PLACE, "boat storage", ""),
        ("Did you go to check the kiln?", Intent.DID, Modality.OBJECT, "kiln", ""),
        # the camera kept on a thing is the robot looking at it
        ("How long did you have your camera fixed on the herons?", Intent.DURATION, Modality.OBJECT, "herons", ""),
        ("How long did the robot keep its camera trained on the heron?", Intent.DURATION, Modality.OBJECT, "heron", ""),
        ("For how long was your camera pointed at the kiln?", Intent.DURATION, Modality.OBJECT, "kiln", ""),
        # a sign, trace or hint of a thing is the thing met
        ("Any sign of a heron on the way?", Intent.DID, Modality.OBJECT, "heron", ""),
        ("Did you notice any trace of the lost kitten?", Intent.DID, Modality.OBJECT, "lost kitten", ""),
        ("Was there no sign of the courier?", Intent.DID, Modality.OBJECT, "courier", ""),
        # hearing by chance is hearing; a topic that came up in conversation was mentioned
        ("Have you overheard anything about the boiler?", Intent.DID, Modality.SPEECH, "boiler", ""),
        ("How many remarks did you overhear?", Intent.COUNT, Modality.SPEECH, "", ""),
        ("How many different things did you hear?", Intent.COUNT, Modality.SPEECH, "", ""),
        ("Did the boiler come up in conversation?", Intent.DID, Modality.SPEECH, "boiler", ""),
        ("When did the parcel come up during a discussion?", Intent.FIRST, Modality.SPEECH, "parcel", ""),
        # heard or seen by way of the robot's sensors; a request to name a thing
        ("How many messages came through your microphone?", Intent.COUNT, Modality.SPEECH, "", ""),
        ("Did anything about the boiler come over the radio?", Intent.DID, Modality.SPEECH, "boiler", ""),
        ("Name the sign you read right after the fountain.", Intent.AFTER, Modality.TEXT, "", "fountain"),
        ("Is there a moment when you came across a wheelbarrow?", Intent.DID, Modality.OBJECT, "wheelbarrow", ""),
        # the robot told or warned of a thing heard about it; something said about a thing was heard
        ("How many times were you told about the boiler?", Intent.COUNT, Modality.SPEECH, "boiler", ""),
        ("Were you warned of a flood?", Intent.DID, Modality.SPEECH, "flood", ""),
        (
            "Was anything said about the boiler before you reached the van?",
            Intent.ORDER,
            Modality.SPEECH,
            "boiler",
            "van",
        ),
        # the passive, with a count checked; signs however met, and messages however caught, counted
        ("Was the heron seen fewer than three times?", Intent.DID, Modality.OBJECT, "heron", ""),
        ("Was the boiler mentioned at all?", Intent.DID, Modality.SPEECH, "boiler", ""),
        ("Has NO ENTRY been read twice?", Intent.DID, Modality.TEXT, "no entry", ""),
        ("How many notices did you come across?", Intent.COUNT, Modality.TEXT, "", ""),
        ("How many sentences have you caught so far?", Intent.COUNT, Modality.SPEECH, "", ""),
        # the messages counted by what they were about; where the first message was heard
        ("How many different things did people talk about?", Intent.COUNT, Modality.SPEECH, "", ""),
        ("Where were you when you first heard anything?", Intent.WHERE, Modality.SPEECH, "", ""),
        # "very" before an edge of time adds nothing
        ("What was the very first thing you heard?", Intent.FIRST, Modality.SPEECH, "", ""),
        # a sign described by what it mentions is the words read on it
        ("Did you read any notice mentioning a fire door?", Intent.DID, Modality.TEXT, "fire door", ""),
        ("When did you pass the poster referring to the gym?", Intent.LAST, Modality.TEXT, "gym", ""),
        # messages named by how they came ("voice messages", "radio calls") are every message heard
        ("How many audio messages got through to you?", Intent.COUNT, Modality.SPEECH, "", ""),
        ("How many radio calls reached you in total?", Intent.COUNT, Modality.SPEECH, "", ""),
        ("How many messages were relayed to you?", Intent.COUNT, Modality.SPEECH, "", ""),
        ("How many announcements got to the robot?", Intent.COUNT, Modality.SPEECH, "", ""),
        # occasions counted are times; standing or waiting at a place is being there
        ("On how many occasions were you in the boathouse?", Intent.COUNT, Modality.PLACE, "boathouse", ""),
        ("On how many different occasions did you see a heron?", Intent.COUNT, Modality.OBJECT, "heron", ""),
        ("How many times have you stood in the boathouse?", Intent.COUNT, Modality.PLACE, "boathouse", ""),
        ("How many times did the robot wait at the boathouse?", Intent.COUNT, Modality.PLACE, "boathouse", ""),
        # a moment set before the question, by anything that happened then
        (
            "The moment the ferry horn was heard, what were your coordinates?",
            Intent.WHERE,
            Modality.SPEECH,
            "ferry horn",
            "",
        ),
        (
            "At the moment the gate alarm was mentioned, where was the robot?",
            Intent.WHERE,
            Modality.SPEECH,
            "gate alarm",
            "",
        ),
        # a report is heard
        ("Where were you when the burst pipe was reported?", Intent.WHERE, Modality.SPEECH, "burst pipe", ""),
        # the way messages came is no part of them; messages that came are messages heard
        ("How many warnings arrived via the walkie-talkie?", Intent.COUNT, Modality.SPEECH, "", ""),
        ("How many announcements came through the PA system?", Intent.COUNT, Modality.SPEECH, "", ""),
        ("How many spoken reminders have arrived so far?", Intent.COUNT, Modality.SPEECH, "", ""),
        # two messages named by what they were about
        (
            "Between the kettle message and the fuse message, which did you hear sooner?",
            Intent.ORDER,
            Modality.SPEECH,
            "kettle",
            "fuse",
        ),
        # the run's own time, asked as how far into it the robot is
        ("How far along the round are we?", Intent.ACTIVE, Modality.OBJECT, "", ""),
        ("How far through the patrol are you?", Intent.ACTIVE, Modality.OBJECT, "", ""),
        # the place before another, asked as where the robot came from
        ("Where had the robot come from before it entered the bakery?", Intent.BEFORE, Modality.PLACE, "", "bakery"),
        ("Where were you coming from as you got to the chapel?", Intent.BEFORE, Modality.PLACE, "", "chapel"),
        # how a thing lay about is no part of it; a place said first; "could you see" asks what was seen
        (
            "Were any scarves left lying about on the benches?",
            Intent.DID,
            Modality.OBJECT,
            "scarves on the benches",
            "",
        ),
        ("Did you see any bikes left unattended?", Intent.DID, Modality.OBJECT, "bikes", ""),
        ("In the car park, did you see a van?", Intent.DID, Modality.OBJECT, "van in the car park", ""),
        ("Could you see a kite over the field?", Intent.DID, Modality.OBJECT, "kite over the field", ""),
        (
            "By the pond, could you see any children running around?",
            Intent.DID,
            Modality.OBJECT,
            "children by the pond",
            "",
        ),
        (
            "Could you see people milling around inside the foyer?",
            Intent.DID,
            Modality.OBJECT,
            "people inside the foyer",
            "",
        ),
        # starting or stopping doing something: when it was first or last done
        ("When did you start looking at the aquarium?", Intent.FIRST, Modality.OBJECT, "aquarium", ""),
        ("At what time did the robot begin watching the fountain?", Intent.FIRST, Modality.OBJECT, "fountain", ""),
        ("When did you stop looking at the aquarium?", Intent.LAST, Modality.OBJECT, "aquarium", ""),
        ("What time did you start reading the price board?", Intent.FIRST, Modality.TEXT, "price", ""),
        # a stop made to look at something, and a position asked for by a request with a relative clause
        ("Where did the robot pause to look at the aquarium?", Intent.WHERE, Modality.OBJECT, "aquarium", ""),
        ("Give me the x, y where you stopped to look at the kayak.", Intent.WHERE, Modality.OBJECT, "kayak", ""),
        ("Report the coordinates at which you saw the kayak.", Intent.WHERE, Modality.OBJECT, "kayak", ""),
        ("State your position when you read the price board.", Intent.WHERE, Modality.TEXT, "price", ""),
        # the places stayed at, counted with none described
        ("How many different rooms did you go to?", Intent.COUNT, Modality.PLACE, "", ""),
        ("How many stops did the robot make?", Intent.COUNT, Modality.PLACE, "", ""),
        ("In how many locations were you?", Intent.COUNT, Modality.PLACE, "", ""),
        ("How often did you stop along the way?", Intent.COUNT, Modality.PLACE, "", ""),
    ],
)
def test_idioms_parse_to_the_plain_forms_plan(
    question: str, intent: Intent, modality: Modality, target: str, other: str, similar: SimilarityParser
) -> None:
    parsed = _read(question, similar)
    assert parsed is not None
    assert (parsed.intent, parsed.modality, parsed.target, parsed.other) == (intent, modality, target, other)


@pytest.mark.parametrize(
    "question", ["How many messages told you to lock up?", "How many calls warned the robot about ice?"]
)
def test_messages_counted_by_what_they_told_the_robot_are_not_every_message(question: str) -> None:
    parsed = parse_question(question)
    assert parsed is None or parsed.target, parsed


def test_what_was_heard_next_to_a_thing_or_before_a_clock_time_is_no_neighbour_question() -> None:
    for question in ("What did someone say after the alarm went off?", "What did you see before or after the lamp?"):
        parsed = parse_question(question)
        assert parsed is None or parsed.intent not in (Intent.BEFORE, Intent.AFTER) or parsed.other != "alarm"


@pytest.mark.parametrize(
    ("question", "window"),
    [
        ("By 2 minutes in, had you come across a cat?", Window("first", 120.0)),
        ("Up to ten minutes into the patrol, did anyone speak?", Window("first", 600.0)),
        ("Within the first 30 seconds, did you see a cup?", Window("first", 30.0)),
        ("Did you read anything in the first hour of your shift?", Window("first", 3600.0)),
        ("Did you see a cup in the last 5 minutes?", Window("last", 300.0)),
        ("Did you see a cup at all?", None),
    ],
)
def test_a_first_stretch_of_memory_is_a_window_wherever_it_is_said(question: str, window: Window | None) -> None:
    assert window_of(question) == window
    parsed = parse_question(question)
    assert parsed is None or parsed.window == window


@pytest.mark.parametrize(
    "question",
    ["How much of the shift has gone by?", "How far into the patrol are you?", "How much of your rounds has passed?"],
)
def test_how_much_of_the_patrol_has_passed_asks_how_long_the_robot_has_been_on_duty(question: str) -> None:
    parsed = parse_question(question)
    assert parsed is not None and parsed.intent is Intent.ACTIVE


@pytest.mark.parametrize(
    ("question", "negative"),
    [
        ("Did nobody mention the boiler?", True),
        ("Was there no ladder in the hall?", True),
        ("Have you never read the word EXIT?", True),
        ("Did you hear nothing about the van?", True),
        ("Didn't you see a ladder?", False),  # answered as the positive is: "yes, I did"
        ("Did you see a ladder or not?", False),
        ("Is the gate no longer open?", False),
        ("Did you read the words 'NO ENTRY' anywhere?", False),
        ('Did you see a "No smoking" sign?', False),
        ("Did nobody read out 'no entry'?", True),
        ("How many people said nothing?", False),  # not a yes/no question
    ],
)
def test_a_question_whether_something_did_not_happen_is_negated(question: str, negative: bool) -> None:
    assert asks_negated(question) is negative
    if negative:
        assert not negated(interrogative(question))  # read as the positive
    assert "no entry" in interrogative(question) or "no entry" not in question.lower()


def test_the_positive_answer_is_turned_round_for_the_negative_question() -> None:
    yes = turned_round(Answer(success=True, text="Yes, I saw a ladder at 12 s.", value=True))
    assert (yes.value, yes.text) == (False, "No: I saw a ladder at 12 s.")
    no = turned_round(Answer(success=True, text='No, I have not heard "boiler".', value=False))
    assert (no.value, no.text) == (True, 'Yes: I have not heard "boiler".')
    when = turned_round(Answer(success=True, text="At 12 s.", value=None))
    assert (when.value, when.text) == (None, "At 12 s.")


@pytest.mark.parametrize(
    ("question", "intent", "target", "ordinal"),
    [
        ("When did you see the van for the second time?", Intent.FIRST, "van", 2),
        ("Where was the ladder the third time you saw it?", Intent.WHERE, "ladder", 3),
        ("How long did you watch the fountain on your 2nd pass?", Intent.DURATION, "fountain", 2),
        ("When did you last see the van?", Intent.LAST, "van", 0),
        ("At what time did the van come into view for the second time?", Intent.FIRST, "van", 2),
        ("When did a tractor show up on camera for the first time?", Intent.FIRST, "tractor", 0),
        ("When did the heron appear, for the third time?", Intent.FIRST, "heron", 3),
    ],
)
def test_an_occasion_named_by_its_place_in_order_is_part_of_the_plan(
    question: str, intent: Intent, target: str, ordinal: int, similar: SimilarityParser
) -> None:
    parsed = _read(question, similar)
    assert parsed is not None
    assert (parsed.intent, parsed.target, parsed.ordinal) == (intent, target, ordinal)


@pytest.mark.parametrize(
    ("question", "intent", "ordinal"),
    [
        ("How long did the second sighting of the heron last?", Intent.DURATION, 2),
        ("How long was the third appearance of the van?", Intent.DURATION, 3),
        ("When was the second occurrence of the wheelbarrow?", Intent.FIRST, 2),
    ],
)
def test_an_occasion_named_by_its_order_as_a_sighting_is_that_occasion(
    question: str, intent: Intent, ordinal: int, similar: SimilarityParser
) -> None:
    parsed = _read(question, similar)
    assert parsed is not None and (parsed.intent, parsed.ordinal) == (intent, ordinal), parsed
    assert parsed.target in ("heron", "van", "wheelbarrow")


def test_where_the_first_or_the_last_message_was_heard_says_which(similar: SimilarityParser) -> None:
    last, first = (
        _read(q, similar) for q in ("Where was the last announcement made?", "Where did you hear the first message?")
    )
    assert last is not None and last.latest and first is not None and not first.latest


@pytest.mark.parametrize(
    ("question", "modality"),
    [
        ("Did hearing about the boiler come after seeing the van?", Modality.SPEECH),
        ("Was reading the menu before spotting the heron?", Modality.TEXT),
        ("Did seeing the van come before hearing about the boiler?", Modality.OBJECT),
        # A sign is read; a poster or a screen shows pictures as well, and says nothing of how it was met.
        ("Which came first, the exit sign or the van?", Modality.TEXT),
        ("Which came first, the tiger poster or the van?", None),
        ("The screen with the kayak, or the bench: which first?", None),
    ],
)
def test_a_gerund_says_how_a_thing_was_met(question: str, modality: Modality | None) -> None:
    from vidmem_ros.agent.question import modality_named

    assert modality_named(question) is modality


@pytest.mark.parametrize(
    ("question", "window"),
    [
        ("What did you hear in the last minute and a half?", Window("last", 90.0)),
        ("Did you see a heron in the past twenty-five seconds?", Window("last", 25.0)),
        ("What did you read during the first 2.5 minutes?", Window("first", 150.0)),
    ],
)
def test_a_window_may_be_any_amount_of_time_said_in_words(question: str, window: Window) -> None:
    parsed = parse_question(question)
    assert parsed is not None and parsed.window == window


@pytest.mark.parametrize(
    "question",
    [
        "What is scheduled for next Tuesday?",
        "What's happening the following week?",
        "What is booked for next month?",
        "What did they say was due on the following Monday?",
    ],
)
def test_a_date_said_with_next_or_following_is_no_neighbour_question(question: str, similar: SimilarityParser) -> None:
    parsed = _read(question, similar)
    assert parsed is None or parsed.intent not in (Intent.BEFORE, Intent.AFTER), parsed


@pytest.mark.parametrize(
    ("question", "people", "plan"),
    [
        ("How many different people did you see?", True, None),
        ("How many people did you meet, counting each encounter?", False, (Intent.COUNT, "person")),
        ("How many people did you see, repeats included?", False, (Intent.COUNT, "person")),
    ],
)
def test_people_are_counted_once_each_unless_every_occasion_is_to_count(
    question: str, people: bool, plan: tuple[Intent, str] | None, similar: SimilarityParser
) -> None:
    who = who_question(question)
    assert (who is not None and who.asked in (WhoAsked.SEEN, WhoAsked.MET)) is people
    if plan is not None:
        parsed = _read(question, similar)
        assert parsed is not None and (parsed.intent, parsed.target) == plan, parsed


@pytest.mark.parametrize(
    ("question", "modality", "target"),
    [
        ("Could you count for me how many times you saw a kite?", Modality.OBJECT, "kite"),
        ("Count up how many times the robot passed the kiosk.", Modality.OBJECT, "kiosk"),
        ("Please count the notices you read.", Modality.TEXT, ""),
        ("What is the number of times you passed the kiosk?", Modality.OBJECT, "kiosk"),
        ("Tell me the number of warnings you've picked up so far.", Modality.SPEECH, ""),
        ("What was the total number of reminders the robot received?", Modality.SPEECH, ""),
    ],
)
def test_a_count_asked_as_a_request_or_as_the_number_of_things_is_a_count(
    question: str, modality: Modality, target: str
) -> None:
    from vidmem_ros.config import LexiconConfig
    from vidmem_ros.perception import wordnet

    parsed = parse_question(direct_question(question, wordnet.load(LexiconConfig().wordnet_dir)))
    assert parsed is not None and parsed.intent is Intent.COUNT, parsed
    assert (parsed.modality, parsed.target) == (modality, target), parsed


@pytest.mark.parametrize(
    "question",
    [
        "What's the elapsed time since you started?",
        "What is the time elapsed since you began your rounds?",
        "What was the amount of time that had passed since the start of the shift?",
    ],
)
def test_the_time_gone_since_the_run_began_asked_as_a_quantity_is_the_time_active(question: str) -> None:
    parsed = parse_question(question)
    assert parsed is not None and parsed.intent is Intent.ACTIVE, parsed


@pytest.mark.parametrize(
    ("question", "said"),
    [
        (
            "I must call the caretaker. What's her number, going by the card on her door?",
            "I must call the caretaker. What's the caretaker's number, going by the card on the caretaker's door?",
        ),
        ("The gym: which room came next after it?", "The gym: which room came next after the gym?"),
        ("I'm looking for that grey kitten. When did you last see it?", None),  # resolved with its plan
        ("What is her name?", None),  # no context: nobody to point back at
        ("I was looking for the nurse. Did you see her yesterday?", None),  # "her" the object, resolved later
        # the one a relative clause says more of, not a thing named inside the clause
        (
            "The cook who runs the refectory - what's her name?",
            "The cook who runs the refectory - what's the cook's name?",
        ),
    ],
)
def test_pronouns_that_point_back_at_the_context_are_said_as_it(question: str, said: str | None) -> None:
    from vidmem_ros.agent.question import spelled_out

    assert spelled_out(question) == (said or question)


def test_a_place_said_before_a_question_moves_after_it_but_an_occasion_stays() -> None:
    from vidmem_ros.agent.idioms import plain_sentence

    assert plain_sentence("in the car park, did you see a van") == "did you see a van in the car park"
    kept = "on your second visit to the garage, were there bikes on a rack"
    assert plain_sentence(kept).startswith("on your second visit to the garage")
