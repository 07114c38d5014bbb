/**
 * Synthetic memories for the benches: first-person notes an assistant might keep about its user, made from
 * templates and word lists with a seeded PRNG, so that every run stores the same corpus and asks the same
 * questions without downloading anything. Words are drawn with a skew (a few common, many rare), as in real
 * text, which gives the vector index the clusters and near-duplicates it meets in practice.
 */

/** mulberry32: small, fast and good enough to pick words; seeded so that runs are repeatable. */
export class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** Uniform pick. */
  pick<T>(list: readonly T[]): T {
    return list[this.int(list.length)]!;
  }

  /** Skewed pick: early entries come up far more often than late ones (roughly Zipf-like). */
  skewed<T>(list: readonly T[]): T {
    return list[Math.floor(list.length * this.next() ** 2.2)]!;
  }

  chance(p: number): boolean {
    return this.next() < p;
  }
}

const NAMES = [
  "Anna", "Ben", "Carla", "David", "Elena", "Farid", "Grace", "Hiro", "Ines", "Jonas", "Kofi", "Lena", "Marco", "Nadia",
  "Omar", "Priya", "Quentin", "Rosa", "Sam", "Tara", "Umar", "Vera", "Wei", "Ximena", "Yusuf", "Zoe", "Aiko", "Bruno",
  "Chloe", "Dmitri", "Esther", "Felix", "Greta", "Hamid", "Irene", "Jasper", "Kira", "Luis", "Maya", "Nils", "Olga",
  "Pablo", "Rania", "Stefan", "Tomas", "Ursula", "Viktor", "Wanda", "Yara", "Zain", "Amara", "Bilal", "Cora", "Dario",
];
const RELATIONS = [
  "sister", "brother", "mother", "father", "friend", "colleague", "manager", "neighbour", "cousin", "partner",
  "daughter", "son", "aunt", "uncle", "flatmate", "mentor", "dentist", "doctor", "landlord", "coach",
];
const PLACES = [
  "Lisbon", "Berlin", "Kyoto", "Toronto", "Nairobi", "Oslo", "Lima", "Seoul", "Dublin", "Porto", "Vienna", "Austin",
  "Marseille", "Krakow", "Hanoi", "Cape Town", "Reykjavik", "Bologna", "Tbilisi", "Montreal", "Istanbul", "Edinburgh",
  "Valencia", "Prague", "Mexico City", "Helsinki", "Melbourne", "Bangalore", "Zurich", "Seville",
];
const SPOTS = [
  "the lake", "the old harbour", "the farmers market", "the climbing gym", "the public library", "the night market",
  "the botanical garden", "the coworking space", "the train station", "the river path", "the jazz bar", "the bakery",
  "the community garden", "the swimming pool", "the bookshop", "the museum", "the stadium", "the ski resort",
  "the hospital", "the office", "the cinema", "the ramen place", "the vineyard", "the beach",
];
const FOODS = [
  "sushi", "pad thai", "dark chocolate", "sourdough bread", "green tea", "espresso", "lentil soup", "ramen", "tacos",
  "falafel", "blueberries", "oat milk", "spicy curry", "pistachio ice cream", "kimchi", "grilled salmon", "mushroom risotto",
  "cheesecake", "mango lassi", "black coffee", "pho", "dumplings", "paella", "goat cheese", "hummus", "peanut butter",
  "croissants", "miso soup", "lemon tart", "sparkling water",
];
const ACTIVITIES = [
  "running", "bouldering", "swimming", "playing chess", "baking bread", "painting watercolours", "cycling to work",
  "learning Portuguese", "playing the cello", "hiking", "yoga", "birdwatching", "woodworking", "knitting", "surfing",
  "gardening", "photography", "playing tennis", "writing poetry", "cooking Thai food", "skiing", "pottery",
  "reading science fiction", "salsa dancing", "volunteering at the shelter", "rowing", "learning the piano",
  "playing board games", "kayaking", "meditating",
];
const TOPICS = [
  "machine learning", "medieval history", "climate policy", "urban gardening", "jazz improvisation", "sleep science",
  "personal finance", "marine biology", "game design", "stoic philosophy", "typography", "astronomy", "nutrition",
  "open source licensing", "architecture", "behavioural economics", "mountain ecology", "film noir", "cryptography",
  "language learning", "public speaking", "productivity", "bird migration", "renewable energy", "sourdough chemistry",
];
const PROJECTS = [
  "the billing migration", "the mobile app redesign", "the quarterly report", "the search feature", "the data pipeline",
  "the onboarding flow", "the kitchen renovation", "the wedding planning", "the grant application", "the thesis draft",
  "the marketing launch", "the security audit", "the garden shed", "the conference talk", "the photo book",
  "the tax return", "the move to the new flat", "the API rewrite", "the hiring round", "the charity run",
];
const THINGS = [
  "bike", "laptop", "passport", "umbrella", "car keys", "headphones", "camera", "running shoes", "winter coat", "guitar",
  "notebook", "phone charger", "backpack", "water bottle", "sunglasses", "tent", "coffee grinder", "e-reader",
];
const FEELINGS = [
  "excited", "tired", "nervous", "relieved", "proud", "frustrated", "curious", "overwhelmed", "calm", "grateful",
  "anxious", "happy", "bored", "motivated",
];
const DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"];
const MONTHS = [
  "January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December",
];
const WHEN = [
  "last weekend", "yesterday", "this morning", "last summer", "two weeks ago", "over the holidays", "on Friday night",
  "every Sunday", "most evenings", "before work", "after lunch", "last year", "in the spring", "during the trip",
];
const REASONS = [
  "because it helps me relax", "since it is cheaper", "because my knee hurts", "to save time", "for my health",
  "because the weather was bad", "since the deadline moved", "to meet new people", "because it reminds me of home",
  "to keep my budget in check", "because I sleep better", "since the kids started school",
];
const TAGS = ["work", "family", "health", "travel", "food", "hobby", "finance", "friends", "home", "learning", "urgent", "ideas"];
const TYPES = ["observation", "preference", "journal", "task", "insight"] as const;

type Template = (r: Rng) => string;
const day = (r: Rng) => `${r.pick(DAYS)} ${r.pick(MONTHS)} ${1 + r.int(28)}`;
const clause = (r: Rng) => (r.chance(0.35) ? ` ${r.pick(REASONS)}` : "");

const FACT_TEMPLATES: Template[] = [
  (r) => `My ${r.skewed(RELATIONS)} ${r.skewed(NAMES)} moved to ${r.skewed(PLACES)} ${r.pick(WHEN)}${clause(r)}.`,
  (r) => `${r.skewed(NAMES)} and I went ${r.skewed(ACTIVITIES)} near ${r.skewed(SPOTS)} ${r.pick(WHEN)}.`,
  (r) => `I met ${r.skewed(NAMES)} at ${r.skewed(SPOTS)} in ${r.skewed(PLACES)} and we talked about ${r.skewed(TOPICS)}.`,
  (r) => `${r.skewed(NAMES)} recommended a book about ${r.skewed(TOPICS)}; I should read it before ${r.pick(DAYS)}.`,
  (r) => `I left my ${r.skewed(THINGS)} at ${r.skewed(SPOTS)} ${r.pick(WHEN)} and ${r.skewed(NAMES)} kept it for me.`,
  (r) => `The meeting about ${r.skewed(PROJECTS)} with ${r.skewed(NAMES)} moved to ${day(r)} at ${8 + r.int(10)}:${r.pick(["00", "15", "30", "45"])}.`,
  (r) => `${r.skewed(NAMES)} owns the ${r.skewed(TOPICS)} part of ${r.skewed(PROJECTS)}, due on ${day(r)}.`,
  (r) => `We are planning a trip to ${r.skewed(PLACES)} in ${r.pick(MONTHS)} to visit my ${r.skewed(RELATIONS)}.`,
  (r) => `My ${r.skewed(RELATIONS)} ${r.skewed(NAMES)} has a birthday on ${day(r)} and loves ${r.skewed(FOODS)}.`,
  (r) => `I spent ${2 + r.int(40)} euros on ${r.skewed(FOODS)} at ${r.skewed(SPOTS)} ${r.pick(WHEN)}.`,
];
const PREFERENCE_TEMPLATES: Template[] = [
  (r) => `I prefer ${r.skewed(FOODS)} over ${r.skewed(FOODS)}${clause(r)}.`,
  (r) => `I really enjoy ${r.skewed(ACTIVITIES)} ${r.pick(WHEN)}${clause(r)}.`,
  (r) => `I don't like ${r.skewed(ACTIVITIES)} much, but ${r.skewed(NAMES)} keeps inviting me.`,
  (r) => `My favourite place to eat ${r.skewed(FOODS)} is ${r.skewed(SPOTS)} in ${r.skewed(PLACES)}.`,
  (r) => `I am allergic to ${r.skewed(FOODS)} and avoid it when eating out.`,
  (r) => `I like reading about ${r.skewed(TOPICS)} and ${r.skewed(TOPICS)} in the evenings.`,
];
const JOURNAL_TEMPLATES: Template[] = [
  (r) => `Felt ${r.pick(FEELINGS)} after ${r.skewed(ACTIVITIES)} with ${r.skewed(NAMES)} ${r.pick(WHEN)}.`,
  (r) => `Today I was ${r.pick(FEELINGS)} about ${r.skewed(PROJECTS)}${clause(r)}.`,
  (r) => `Long day in ${r.skewed(PLACES)}: ${r.skewed(ACTIVITIES)} in the morning, ${r.skewed(FOODS)} for dinner.`,
];
const TASK_TEMPLATES: Template[] = [
  (r) => `Remember to call my ${r.skewed(RELATIONS)} ${r.skewed(NAMES)} about ${r.skewed(PROJECTS)} before ${r.pick(DAYS)}.`,
  (r) => `Buy ${r.skewed(FOODS)} and a new ${r.skewed(THINGS)} before the trip to ${r.skewed(PLACES)}.`,
  (r) => `Send ${r.skewed(NAMES)} the notes on ${r.skewed(TOPICS)} by ${day(r)}.`,
];
const INSIGHT_TEMPLATES: Template[] = [
  (r) => `I work best on ${r.skewed(PROJECTS)} ${r.pick(WHEN)}${clause(r)}.`,
  (r) => `${r.skewed(ACTIVITIES)} makes me feel ${r.pick(FEELINGS)}, so I plan it ${r.pick(WHEN)}.`,
];
const TEMPLATES: Record<(typeof TYPES)[number], Template[]> = {
  observation: FACT_TEMPLATES,
  preference: PREFERENCE_TEMPLATES,
  journal: JOURNAL_TEMPLATES,
  task: TASK_TEMPLATES,
  insight: INSIGHT_TEMPLATES,
};

export interface GeneratedMemory {
  content: string;
  type: string;
  tags: string[];
}

export const MEMORY_TYPES: readonly string[] = TYPES;
export const MEMORY_TAGS: readonly string[] = TAGS;

// observations dominate a real store; preferences are a minority the profile path reads
const TYPE_WEIGHTS: [(typeof TYPES)[number], number][] = [
  ["observation", 0.45],
  ["preference", 0.15],
  ["journal", 0.15],
  ["task", 0.15],
  ["insight", 0.1],
];

function pickType(r: Rng): (typeof TYPES)[number] {
  let x = r.next();
  for (const [type, weight] of TYPE_WEIGHTS) if ((x -= weight) < 0) return type;
  return "observation";
}

const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/**
 * `count` distinct memories. Distinct because identical texts have identical vectors, and ties at the k-th
 * place would make recall against the exact scan depend on tie-breaking rather than on the index.
 */
export function generateMemories(count: number, seed = 1): GeneratedMemory[] {
  const r = new Rng(seed);
  const seen = new Set<string>();
  const out: GeneratedMemory[] = [];
  while (out.length < count) {
    const type = pickType(r);
    let content = capitalised(r.pick(TEMPLATES[type])(r));
    // the templates' space is large but finite: a short suffix keeps a repeat distinct without changing its topic
    if (seen.has(content)) content = `${content} (${r.skewed(NAMES)} ${r.pick(WHEN)})`;
    if (seen.has(content)) continue;
    seen.add(content);
    const tags = [r.skewed(TAGS), r.skewed(TAGS)].slice(0, r.int(3));
    out.push({ content, type, tags: [...new Set(tags)] });
  }
  return out;
}

/**
 * The texts a chat application writes, a memory per turn: the corpus' memories in turn, each call the next one
 * (wrapping after `count`), for write benches whose creates should each hold a text of their own.
 */
export function chatTurns(count = 20_000): () => string {
  const texts = generateMemories(count, 7).map((memory) => memory.content);
  let turn = 0;
  return () => texts[turn++ % texts.length]!;
}

/**
 * Search-style queries: half a few content words of a memory-like sentence (what a user types), half a whole
 * new sentence from the same templates (what an agent passes on), so that both short and long queries are timed.
 */
export function generateQueries(count: number, seed = 2): string[] {
  const r = new Rng(seed);
  const queries: string[] = [];
  const all = Object.values(TEMPLATES).flat();
  while (queries.length < count) {
    if (r.chance(0.5)) {
      queries.push(r.pick(all)(r));
    } else {
      const parts = [
        () => r.skewed(NAMES),
        () => r.skewed(FOODS),
        () => r.skewed(ACTIVITIES),
        () => r.skewed(PLACES),
        () => r.skewed(TOPICS),
        () => r.skewed(PROJECTS),
        () => r.skewed(THINGS),
      ];
      const words = Array.from({ length: 2 + r.int(3) }, () => r.pick(parts)());
      queries.push(r.chance(0.5) ? `what about ${words.join(" and ")}?` : words.join(" "));
    }
  }
  return queries;
}

/** Questions about the user themself, which recall answers from preferences (its profile path). */
export function generateProfileQueries(count: number, seed = 3): string[] {
  const r = new Rng(seed);
  const forms: Template[] = [
    () => "what do I like?",
    () => "what should you know about me?",
    () => "tell me about my preferences",
    (q) => `what food do I like? maybe ${q.skewed(FOODS)}`,
    (q) => `what do I enjoy doing, like ${q.skewed(ACTIVITIES)}?`,
    (q) => `my favourites in ${q.skewed(PLACES)}`,
    (q) => `what do I prefer to drink, ${q.skewed(FOODS)}?`,
  ];
  return Array.from({ length: count }, () => r.pick(forms)(r));
}
