"""Varied chat text for the speed benchmark (``bench retrieval``): life events told in
chat style (with the facts an extractor would keep about them), near-miss distractors
and small talk, and questions about the events in a user's words.

Only the benchmark's timing uses it: word frequencies like a chat's make the full-text
queries cost what they cost in real profiles. Retrieval quality is measured on real
conversations (``eval retrieval`` on a LoCoMo-format file), never on this text.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

_NAME_LIST = (
    "Caroline Melanie Jon Gina Ana Tomas Priya Wei Nate Joanna Deborah Jolene Evan Sam "
    "Calvin Dave Maria John Audrey Andrew James Tim Leah Omar Ines Kofi Hana Lucas"
)
NAMES = tuple(_NAME_LIST.split())


@dataclass(frozen=True)
class Event:
    """A life event one speaker tells; ``{S}`` is that speaker, ``{O}`` the other."""

    key: str
    slots: dict[str, tuple[str, ...]]
    tells: tuple[str, ...]  # the evidence turn (one is picked)
    reaction: tuple[str, ...]  # the other speaker's reply
    detail: str  # a second evidence turn with more detail
    observation: str
    detail_observation: str
    # (question, answer, category, evidence: "tell" | "detail" | "both")
    questions: tuple[tuple[str, str, int, str], ...]
    hobby: bool = False


E = Event
EVENTS: tuple[Event, ...] = (
    E(
        "dog",
        {
            "breed": ("beagle", "golden retriever", "corgi", "border collie"),
            "pet": ("Max", "Biscuit", "Luna", "Pepper"),
        },
        (
            "Guess what, we finally adopted a {breed} puppy last weekend! We called him {pet}.",
            "Big news at home: a little {breed} joined the family, his name is {pet}.",
        ),
        ("Aww, congratulations! How is he settling in?", "No way, a puppy! Send pictures!"),
        "{pet} is doing great, he sleeps at the foot of my bed and goes crazy at the park.",
        "{S} adopted a {breed} puppy named {pet}.",
        "{S}'s puppy {pet} sleeps at the foot of the bed and loves the park.",
        (
            ("What breed of pet did {S} bring home?", "{breed}", 4, "tell"),
            ("What is the name of {S}'s dog?", "{pet}", 4, "tell"),
            ("When did {S} get a new animal?", "the weekend before {date}", 2, "tell"),
            ("Where does {S}'s pet rest at night?", "at the foot of the bed", 4, "detail"),
            ("What is the name of {O}'s dog?", "not mentioned", 5, "tell"),
        ),
    ),
    E(
        "job",
        {
            "company": (
                "a small design studio",
                "the city hospital",
                "a solar energy startup",
                "a public library",
            ),
            "role": ("project manager", "nurse", "data analyst", "archivist"),
        },
        (
            "I start my new job next Monday, I'll be a {role} at {company}!",
            "So I accepted the offer, I'm going to work as a {role} at {company}.",
        ),
        ("That's huge, congrats! Are you nervous?", "Wow, a new chapter! How do you feel?"),
        "A bit nervous, honestly. The commute is long but the team seemed really kind.",
        "{S} got a new job as a {role} at {company}.",
        "{S} is nervous about the new job; the commute is long but the team is kind.",
        (
            ("What position was {S} hired for?", "{role}", 4, "tell"),
            ("Where is {S} employed now?", "{company}", 4, "tell"),
            ("How did {S} feel before the first day at work?", "nervous", 4, "detail"),
            ("When did {S} change careers?", "around {date}", 2, "tell"),
        ),
    ),
    E(
        "move",
        {
            "city": ("Lisbon", "Denver", "Osaka", "Montreal"),
            "reason": (
                "to be closer to my mom",
                "because the rent here got crazy",
                "for my partner's work",
            ),
        },
        (
            "We're packing boxes, we're moving to {city} {reason}.",
            "Did I tell you? We decided to relocate to {city} {reason}.",
        ),
        ("Oh wow, that's a big change!", "Moving is so stressful, good luck with it."),
        "The new apartment in {city} has a tiny balcony where I can grow herbs.",
        "{S} is moving to {city} {reason}.",
        "{S}'s new apartment in {city} has a small balcony for growing herbs.",
        (
            ("Which city is {S} relocating to?", "{city}", 4, "tell"),
            ("Why did {S} decide to leave the old place?", "{reason}", 4, "tell"),
            ("What can {S} grow at the new home?", "herbs", 1, "both"),
            ("When was {S} packing for the relocation?", "{date}", 2, "tell"),
        ),
    ),
    E(
        "marathon",
        {
            "race": ("the Boston marathon", "a half marathon by the river", "a 10k charity run"),
            "time": ("under four hours", "just over two hours", "in 52 minutes"),
        },
        (
            "I did it, I finished {race} this morning, {time}!",
            "My legs are dead, I ran {race} today and crossed the line {time}.",
        ),
        ("You're amazing! How long did you train?", "That's incredible, so proud of you!"),
        "I trained for five months, mostly early runs before work, and my knees survived.",
        "{S} ran {race} and finished {time}.",
        "{S} trained for five months with early morning runs before work.",
        (
            ("What race did {S} complete?", "{race}", 4, "tell"),
            ("How long did {S} prepare for the race?", "five months", 4, "detail"),
            ("Is {S} a fit and athletic person?", "yes, runs races", 3, "tell"),
            ("When did {S} run the race?", "{date}", 2, "tell"),
        ),
        hobby=True,
    ),
    E(
        "painting",
        {
            "subject": (
                "a sunset over the lake",
                "my grandmother's garden",
                "a field of sunflowers",
            ),
            "medium": ("watercolors", "acrylics", "oil paints"),
        },
        (
            "I finally finished a painting I love, it's {subject}, done with {medium}.",
            "Look, my new piece! {subject}, painted in {medium}.",
        ),
        ("That's beautiful, you should frame it!", "The colors are so calm, I love it."),
        "Painting is my way to unwind after a long week, it clears my head.",
        "{S} painted {subject} using {medium}.",
        "{S} paints to relax after a long week.",
        (
            ("What did {S} depict in the latest artwork?", "{subject}", 4, "tell"),
            ("What art supplies does {S} use?", "{medium}", 4, "tell"),
            ("Why does {S} make art?", "to unwind", 4, "detail"),
            ("What creative hobbies does {S} have?", "painting", 1, "both"),
        ),
        hobby=True,
    ),
    E(
        "pottery",
        {"item": ("a lopsided mug", "a set of bowls", "a vase for my desk")},
        (
            "I signed up for a pottery workshop and made {item} on the wheel!",
            "Clay everywhere! My first ceramics class, and I came home with {item}.",
        ),
        ("Haha, I bet it's charming though.", "I always wanted to try that!"),
        "The teacher says my centering is getting better, I go every Thursday evening.",
        "{S} took a pottery class and made {item}.",
        "{S} goes to pottery class every Thursday evening.",
        (
            ("What did {S} create in ceramics?", "{item}", 4, "tell"),
            ("Which evening does {S} have the clay class?", "Thursday", 4, "detail"),
            ("What crafts has {S} tried?", "pottery", 1, "both"),
        ),
        hobby=True,
    ),
    E(
        "camping",
        {
            "place": ("Yosemite", "the Scottish Highlands", "a lake near the border"),
            "mishap": (
                "a raccoon stole our snacks",
                "it rained all night",
                "the tent pole snapped",
            ),
        },
        (
            "We just got back from camping at {place}, and {mishap}!",
            "Our weekend in a tent at {place} was wild, {mishap}.",
        ),
        ("Haha, nature always wins.", "Oh no! Did you still have fun?"),
        "Still the best trip, the kids saw the Milky Way for the first time.",
        "{S} went camping at {place}; {mishap}.",
        "On the camping trip {S}'s kids saw the Milky Way for the first time.",
        (
            ("Where did {S} sleep outdoors?", "{place}", 4, "tell"),
            ("What went wrong on {S}'s outdoor trip?", "{mishap}", 4, "tell"),
            ("What did {S}'s children see in the night sky?", "the Milky Way", 4, "detail"),
            ("Would {S} enjoy a nature retreat?", "likely yes", 3, "tell"),
        ),
    ),
    E(
        "concert",
        {"band": ("Coldplay", "a local jazz trio", "Taylor Swift", "an orchestra playing Mahler")},
        (
            "Last night I saw {band} live, I'm still buzzing!",
            "I got tickets to {band} and the show was unreal.",
        ),
        ("Jealous! Who did you go with?", "That must have been loud, haha."),
        "I went with my brother, we sang until we lost our voices.",
        "{S} saw {band} live in concert.",
        "{S} went to the concert with a brother and they sang a lot.",
        (
            ("Which musicians did {S} watch perform?", "{band}", 4, "tell"),
            ("Who accompanied {S} to the show?", "a brother", 4, "detail"),
            ("What kind of music does {S} like?", "{band}", 3, "tell"),
        ),
    ),
    E(
        "cooking",
        {
            "dish": (
                "a spicy lentil curry",
                "homemade ramen",
                "my aunt's lasagna",
                "sourdough bread",
            )
        },
        (
            "I spent all Sunday in the kitchen making {dish} from scratch.",
            "New recipe success: {dish}, and the family asked for seconds.",
        ),
        ("Yum, save me some!", "You have to send me the recipe."),
        "The secret is patience, I let it simmer for three hours.",
        "{S} cooked {dish}.",
        "{S} says the secret of the recipe is letting it simmer for three hours.",
        (
            ("What meal did {S} prepare?", "{dish}", 4, "tell"),
            ("What is {S}'s tip for the recipe?", "patience, simmer three hours", 4, "detail"),
            ("Does {S} enjoy being in the kitchen?", "yes", 3, "tell"),
        ),
        hobby=True,
    ),
    E(
        "book",
        {
            "book": (
                "'Becoming' by Michelle Obama",
                "a mystery novel by Agatha Christie",
                "'Sapiens'",
                "a book about octopus intelligence",
            )
        },
        (
            "I couldn't put it down, I read {book} in two days.",
            "Currently obsessed with {book}, it's so good.",
        ),
        ("Ooh, should I read it?", "I love a good book recommendation."),
        "It made me rethink a lot of things, I underlined half of it.",
        "{S} read {book}.",
        "{S} found the book thought-provoking.",
        (
            ("What has {S} been reading lately?", "{book}", 4, "tell"),
            ("How did the novel affect {S}?", "made them rethink things", 4, "detail"),
        ),
        hobby=True,
    ),
    E(
        "guitar",
        {
            "instrument": ("the guitar", "the violin", "the piano", "the ukulele"),
            "song": ("Wonderwall", "a Bach minuet", "Hallelujah"),
        },
        (
            "I've started taking lessons, I'm learning {instrument}! First song is {song}.",
            "My fingers hurt, I practice {instrument} every day now, working on {song}.",
        ),
        ("Play something for me next time!", "That's so cool, music is good for the soul."),
        "My teacher is a retired jazz musician, he's patient with my mistakes.",
        "{S} is learning to play {instrument}, starting with {song}.",
        "{S}'s music teacher is a retired jazz musician.",
        (
            ("Which instrument is {S} practicing?", "{instrument}", 4, "tell"),
            ("What tune is {S} working on?", "{song}", 4, "tell"),
            ("Who teaches {S}?", "a retired jazz musician", 4, "detail"),
            ("Does {S} play music?", "yes", 3, "tell"),
        ),
        hobby=True,
    ),
    E(
        "volunteer",
        {
            "place": ("the animal shelter", "a food bank", "a youth center"),
            "task": ("walking the dogs", "sorting donations", "tutoring kids in math"),
        },
        (
            "I've been volunteering at {place} on weekends, mostly {task}.",
            "Spent Saturday at {place} again, {task}. It feels so good to help.",
        ),
        ("You're such a good person.", "I should do that too."),
        "It reminds me why community matters, some of those people have nobody else.",
        "{S} volunteers at {place}, {task}.",
        "{S} thinks volunteering shows why community matters.",
        (
            ("Where does {S} help out for free?", "{place}", 4, "tell"),
            ("What does {S} do as a volunteer?", "{task}", 4, "tell"),
            ("Does {S} care about the community?", "yes", 3, "both"),
            ("What charity work has {S} done?", "{place}", 1, "tell"),
        ),
    ),
    E(
        "birthday",
        {
            "kid": ("Mia", "Leo", "Sofia", "Noah"),
            "age": ("five", "seven", "ten"),
            "theme": ("dinosaur", "space", "mermaid", "pirate"),
        },
        (
            "{kid} turned {age} yesterday, we threw a {theme} party in the backyard.",
            "Party chaos: {kid}'s {age}th birthday, {theme} theme, twenty kids screaming.",
        ),
        ("Happy birthday to {kid}!", "Haha, I hope you survived."),
        "The cake was shaped like a {theme} and it collapsed right before we served it.",
        "{S}'s child {kid} turned {age} with a {theme} themed party.",
        "The {theme} cake at {kid}'s party collapsed before it was served.",
        (
            ("How old is {S}'s kid now?", "{age}", 4, "tell"),
            ("What was the motif of the celebration for {S}'s child?", "{theme}", 4, "tell"),
            ("What happened to the dessert at the party?", "it collapsed", 4, "detail"),
            ("When was {kid}'s party?", "the day before {date}", 2, "tell"),
        ),
    ),
    E(
        "trip",
        {
            "country": ("Japan", "Peru", "Italy", "Iceland"),
            "sight": ("Mount Fuji", "Machu Picchu", "the Colosseum", "the northern lights"),
        },
        (
            "Back from two weeks in {country}! Seeing {sight} was a dream come true.",
            "Our holiday in {country} was magical, especially {sight}.",
        ),
        ("I'm so jealous, what was the food like?", "Bucket list stuff!"),
        "The food was amazing, I ate way too much and gained three kilos.",
        "{S} traveled to {country} and saw {sight}.",
        "{S} ate a lot of food on the trip.",
        (
            ("Which country did {S} visit on vacation?", "{country}", 4, "tell"),
            ("What landmark impressed {S} abroad?", "{sight}", 4, "tell"),
            ("When did {S} go abroad?", "before {date}", 2, "tell"),
            ("What places has {S} traveled to?", "{country}", 1, "tell"),
        ),
    ),
    E(
        "garden",
        {"plant": ("tomatoes", "roses", "strawberries", "chili peppers")},
        (
            "My backyard project is paying off, the {plant} are finally growing!",
            "I've been digging in the dirt all week, planting {plant}.",
        ),
        ("Green thumb!", "Homegrown is the best."),
        "Slugs ate half of them, so now I go out at night with a flashlight.",
        "{S} grows {plant} in the garden.",
        "Slugs ate half of {S}'s plants.",
        (
            ("What is {S} cultivating outside?", "{plant}", 4, "tell"),
            ("What pest damaged {S}'s crops?", "slugs", 4, "detail"),
            ("What outdoor hobbies does {S} have?", "gardening", 1, "tell"),
        ),
        hobby=True,
    ),
    E(
        "car",
        {
            "problem": (
                "the transmission died",
                "someone hit it in the parking lot",
                "the battery kept failing",
            )
        },
        (
            "Ugh, my car is in the shop again, {problem}.",
            "Worst week: {problem}, so the car is out for repairs.",
        ),
        ("That's the worst, do you need a ride?", "Cars are money pits."),
        "I'm taking the bus for now, which honestly isn't so bad, I read on the way.",
        "{S}'s car needed repairs because {problem}.",
        "{S} is taking the bus while the car is repaired.",
        (
            ("What was wrong with {S}'s vehicle?", "{problem}", 4, "tell"),
            ("How is {S} commuting meanwhile?", "by bus", 4, "detail"),
        ),
    ),
    E(
        "yoga",
        {"style": ("hot yoga", "pilates", "tai chi in the park")},
        (
            "I joined a {style} class, my back pain is almost gone.",
            "Three weeks of {style} now and I sleep so much better.",
        ),
        ("Good for you!", "I need that kind of routine."),
        "The class is at 6 am, so I'm in bed by ten like a grandma.",
        "{S} started {style}.",
        "{S}'s {style} class is at 6 am.",
        (
            ("What exercise routine did {S} pick up?", "{style}", 4, "tell"),
            ("What time is {S}'s workout session?", "6 am", 4, "detail"),
            ("What health benefit did {S} notice?", "less back pain / better sleep", 4, "tell"),
        ),
        hobby=True,
    ),
    E(
        "support",
        {"group": ("an LGBTQ support group", "a grief support circle", "a new parents group")},
        (
            "Yesterday I went to {group} for the first time, it was so powerful.",
            "I finally went to {group}, everyone was so welcoming.",
        ),
        ("I'm really glad you went.", "That takes courage."),
        "Hearing their stories made me feel less alone, I'll go back next month.",
        "{S} attended {group}.",
        "{S} felt less alone after hearing others' stories at the group.",
        (
            ("What meeting did {S} attend for emotional help?", "{group}", 4, "tell"),
            ("How did {S} feel after sharing with others?", "less alone", 4, "detail"),
            ("When did {S} first go to the group?", "the day before {date}", 2, "tell"),
        ),
    ),
    E(
        "photo",
        {
            "subject": ("street portraits", "birds in the wetlands", "old buildings downtown"),
            "camera": ("a secondhand Nikon", "a vintage film camera"),
        },
        (
            "I bought {camera} and I've been shooting {subject}.",
            "New obsession: photography. Got {camera}, mostly taking pictures of {subject}.",
        ),
        ("Show me your best shot!", "You have a good eye."),
        "One of my photos got picked for a small exhibition at the community center.",
        "{S} took up photography with {camera}, shooting {subject}.",
        "A photo by {S} was selected for an exhibition at the community center.",
        (
            ("What gear did {S} buy for the new hobby?", "{camera}", 4, "tell"),
            ("What does {S} like to capture?", "{subject}", 4, "tell"),
            ("What recognition did {S}'s pictures get?", "an exhibition", 4, "detail"),
        ),
        hobby=True,
    ),
    E(
        "injury",
        {"part": ("my ankle", "my wrist", "my knee")},
        (
            "I slipped on the stairs and sprained {part}, six weeks of rest, the doctor said.",
            "Guess who's on crutches: I hurt {part} playing basketball.",
        ),
        ("Oh no, get well soon!", "Ouch, take it easy."),
        "Physical therapy twice a week is slowly helping.",
        "{S} injured {part}.",
        "{S} goes to physical therapy twice a week.",
        (
            ("What body part did {S} hurt?", "{part}", 4, "tell"),
            ("How often does {S} see the physiotherapist?", "twice a week", 4, "detail"),
            ("Why couldn't {S} exercise for a while?", "an injury", 3, "tell"),
        ),
    ),
    E(
        "anniversary",
        {
            "years": ("five", "ten", "fifteen"),
            "place": ("a cabin by the sea", "Paris", "a vineyard"),
        },
        (
            "My husband and I celebrated {years} years of marriage with a weekend at {place}.",
            "{years} years married! We escaped to {place} to celebrate.",
        ),
        ("Congrats to you both!", "So romantic."),
        "He surprised me with the same song from our wedding day.",
        "{S} celebrated a {years}-year wedding anniversary at {place}.",
        "{S}'s husband surprised her with their wedding song.",
        (
            ("How long has {S} been married?", "{years} years", 4, "tell"),
            ("Where did {S} go for the anniversary?", "{place}", 4, "tell"),
            ("What surprise did {S} get from her spouse?", "their wedding song", 4, "detail"),
        ),
    ),
    E(
        "podcast",
        {"topic": ("urban legends", "sustainable living", "indie video games")},
        (
            "I launched a podcast about {topic}, the first episode is out!",
            "My little show about {topic} has its first episode online now.",
        ),
        ("I'll listen on my commute!", "You're so creative."),
        "We already have two hundred listeners, mostly friends of friends.",
        "{S} started a podcast about {topic}.",
        "{S}'s podcast has about two hundred listeners.",
        (
            ("What subject does {S}'s audio show cover?", "{topic}", 4, "tell"),
            ("How big is {S}'s audience?", "two hundred listeners", 4, "detail"),
        ),
        hobby=True,
    ),
)

SMALL_TALK = (
    "Hey! How have you been?",
    "Good to hear from you again!",
    "Work has been crazy lately, I barely had time to breathe.",
    "Honestly I just need a nap.",
    "That sounds amazing!",
    "I totally get that.",
    "Haha, same here.",
    "Anyway, what's new with you?",
    "Not much, just the usual.",
    "Talk soon, take care!",
    "I know what you mean, life gets busy.",
    "The weather has been so gloomy this week.",
    "Thanks for listening, it means a lot.",
    "I'm proud of you, really.",
    "Let's catch up properly next week.",
)

# Turns that share words with an event without answering its questions.
DISTRACTORS = (
    "My neighbor's dog barks all night, it's driving me crazy.",
    "I saw a painting at the museum that I didn't understand at all.",
    "My cousin is thinking about moving abroad but she can't decide.",
    "I watched a documentary about marathon runners, they're a different species.",
    "There's a new ramen place downtown, have you tried it?",
    "My coworker quit her job to travel, wild.",
    "I keep meaning to read more books but I end up scrolling.",
    "The camping store had a huge sale on tents.",
    "I heard a guitar player on the subway, he was so good.",
    "My sister had a birthday party for her cat, don't ask.",
    "Someone at work keeps talking about yoga retreats.",
    "I saw an ad for a photography course and thought of you.",
    "My dad's car is older than me and still runs.",
    "Gardening videos are weirdly relaxing to watch.",
    "A friend of mine volunteers at a hospital, she loves it.",
    "I almost bought concert tickets but they sold out in minutes.",
    "Podcasts keep me sane during the commute.",
    "My knee hurts when it rains, I'm getting old.",
)


def _fill(template: str, values: dict) -> str:
    return template.format(**values)


def memory_texts(count: int, *, seed: int = 11) -> list[str]:
    """``count`` varied chat-memory texts (turns, observations, small talk) for benchmarks."""
    rng = random.Random(seed)
    texts: list[str] = []
    while len(texts) < count:
        event = rng.choice(EVENTS)
        speaker, other = rng.sample(NAMES, 2)
        values = {slot: rng.choice(options) for slot, options in event.slots.items()}
        values.update(S=speaker, O=other, date=f"{rng.randint(1, 28)} May 2023")
        choice = rng.random()
        if choice < 0.35:
            text = f"{speaker}: " + _fill(rng.choice(event.tells), values)
        elif choice < 0.55:
            text = f"{speaker}: " + _fill(event.detail, values)
        elif choice < 0.75:
            text = _fill(rng.choice((event.observation, event.detail_observation)), values)
        elif choice < 0.88:
            text = f"{speaker}: " + rng.choice(DISTRACTORS)
        else:
            text = f"{speaker}: " + rng.choice(SMALL_TALK)
        texts.append(text)
    return texts
