"""Words and sentence templates for synthetic messages.

Three disjoint pools make the lexical signal real: everyday filler shared by
every message, fact words planted in the messages a profile claim cites, and
episode words planted once in an earlier exchange and echoed by the probe that
calls back to it. BM25 can therefore find an episode from its callback while a
recency window cannot, and a callback written without the episode's words
("how did that go in the end?") defeats both.
"""
from __future__ import annotations

FILLER_USER = [
    "Long day today, mostly meetings and a quick lunch.",
    "I slept badly again, woke up around four.",
    "Made coffee and watched the rain for a while.",
    "Not much happening, just tired after work.",
    "Went for a short walk before dinner.",
    "The bus was late again this morning.",
    "I think I need a quiet weekend.",
    "Cooked pasta tonight, nothing special.",
    "Work was fine, a bit boring honestly.",
    "Feeling okay, a little restless maybe.",
    "Had a call with my sister earlier.",
    "Cleaned the kitchen and finally sat down.",
    "It is cold outside, stayed in most of the day.",
    "Listening to some music while I wait.",
]
FILLER_COMPANION = [
    "That sounds like a lot. How are you feeling now?",
    "I am glad you took a moment for yourself.",
    "Do you want to tell me more about it?",
    "That makes sense. Rest sounds like a good idea.",
    "I am here if you want to talk it through.",
    "Small things like that can help a day feel lighter.",
    "What would make tomorrow a bit easier?",
    "Thanks for sharing that with me.",
]
OPENERS = ["Hey, are you there?", "Hi again.", "Good morning!", "Evening. Got a minute?", "Hello hello."]

# fact words: (profile field, persona slot, value, user sentence, claim text)
FACTS = [
    ("occupation", "occupation", "{w}", "I started working as a {w} last year.", "Works as a {w}."),
    ("education", "education", "{w}", "I studied {w} at university.", "Studied {w}."),
    ("relationships", "friends", "{name}", "My friend {name} called me about the weekend.", "Has a close friend called {name}."),
    ("relationships", "partner", "{name}", "{name} and I have been together for two years.", "Is in a relationship with {name}."),
    ("health", "fears", "{w}", "My {w} has been bothering me again.", "Deals with recurring {w}."),
    ("routines", "daily_rhythm", "{w}", "Every morning I do {w} before anything else.", "Does {w} every morning."),
    ("preferences", "media_favorites", "{w}", "Honestly {w} is my favourite thing to watch.", "Prefers watching {w}."),
    ("interests", "interests", "{w}", "I have been really into {w} lately.", "Is interested in {w}."),
    ("goals", "aspirations", "{w}", "One day I want to try {w} properly.", "Wants to pursue {w}."),
    ("emotional_state", "coping_style", "{w}", "When I get anxious I usually turn to {w}.", "Copes with anxiety through {w}."),
    ("life_events", "places", "{place}", "We finally moved to {place} this month.", "Moved to {place}."),
    ("identity", "nationality", "{place}", "I grew up near {place}, you know.", "Grew up near {place}."),
    ("identity", "pets", "{name}", "My cat {name} knocked over a plant again.", "Has a cat called {name}."),
]
FACT_WORDS = [
    "nurse", "architect", "welder", "pharmacist", "librarian", "electrician", "botany", "geology", "linguistics",
    "astronomy", "migraines", "insomnia", "asthma", "yoga", "stretching", "journaling", "documentaries", "anime",
    "sitcoms", "climbing", "baking", "chess", "painting", "gardening", "sailing", "surfing", "meditation",
    "running", "knitting", "photography", "calligraphy", "birdwatching", "origami", "beekeeping", "fencing",
]
NAMES = [
    "Marta", "Jonas", "Priya", "Tomasz", "Ines", "Kofi", "Lena", "Mateo", "Yuki", "Farah", "Oskar", "Nadia",
    "Rafael", "Signe", "Omar", "Clara", "Dmitri", "Amara", "Pavel", "Selin",
]
PLACES = [
    "Lisbon", "Porto", "Krakow", "Tallinn", "Valencia", "Ghent", "Bergen", "Lyon", "Trieste", "Utrecht",
    "Seville", "Gdansk", "Graz", "Turku", "Bilbao", "Aarhus",
]
EPISODE_WORDS = [
    "pottery", "kiln", "glaze", "marathon", "blister", "audition", "violin", "cello", "interview", "portfolio",
    "wedding", "bouquet", "passport", "visa", "thesis", "defense", "tattoo", "sketch", "hackathon", "laptop",
    "festival", "tent", "aquarium", "goldfish", "sourdough", "starter", "bicycle", "puncture", "dentist",
    "filling", "concert", "tickets", "camping", "lantern", "exam", "chemistry", "museum", "mosaic", "rooftop",
    "telescope", "kayak", "harbour", "lottery", "raffle", "quilt", "embroidery", "scooter", "helmet", "recital",
    "piano", "vineyard", "harvest", "lighthouse", "ferry", "podcast", "microphone", "carnival", "mask",
]
EPISODE_USER = "Big news: the {a} {b} thing with {name} is happening on Saturday, wish me luck."
EPISODE_COMPANION = "I will remind you about the {a} {b} plan with {name} next time, I promise."
CALLBACK_LEXICAL = [
    "Remember the {a} {b} thing with {name}? It finally happened.",
    "So about that {a} {b} plan with {name} from before, guess what.",
]
CALLBACK_BLIND = ["So how did that go in the end?", "Anyway, you know what I told you about back then?"]
CALLBACK_COMPANION = "You said you would remind me about the {a} {b} thing with {name}."
CALLBACK_PROFILE = "Still thinking about what I said about {w}."
GOLD = {
    "basic": "That sounds tiring; maybe an early night would help?",
    "profile": "Given how much {w} means to you, that makes sense.",
    "episode": "You were so nervous about the {a} {b} plan with {name} - how did it feel?",
    "edge": "With the {a} {b} plan done and {w} on your mind, you have had quite a stretch.",
}
