// The two small corpora of the adaptation tests (adaptation.test.ts, adaptation-model.test.ts):
// - "topics": six subjects whose headings name them with words their sections never use (a river
//   word heads spreadsheet text), so the collection holds a relation the base model cannot know
//   and training can learn from some headings and carry to held-out ones;
// - "unique": every heading's words belong to it alone, so nothing learnt from one heading can
//   reach a held-out one.
/** a seeded generator, so the corpora are the same every run */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), s | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const TOPICS: { heading: string[]; body: string[] }[] = [
  { heading: ["river", "lake", "stream", "pond", "creek"], body: ["spreadsheet", "cell", "formula", "column", "row", "sum", "chart", "pivot", "sheet", "total"] },
  { heading: ["violin", "piano", "guitar", "trumpet", "drum"], body: ["password", "login", "account", "security", "token", "reset", "email", "verify", "session", "lock"] },
  { heading: ["tomato", "carrot", "onion", "pepper", "garlic"], body: ["printer", "paper", "toner", "page", "margin", "print", "scan", "tray", "ink", "copy"] },
  { heading: ["castle", "tower", "bridge", "palace", "temple"], body: ["invoice", "payment", "customer", "billing", "refund", "price", "tax", "receipt", "order", "discount"] },
  { heading: ["eagle", "falcon", "sparrow", "owl", "heron"], body: ["server", "network", "port", "firewall", "router", "proxy", "address", "packet", "host", "gateway"] },
  { heading: ["winter", "summer", "autumn", "spring", "season"], body: ["font", "bold", "italic", "paragraph", "style", "heading", "indent", "underline", "text", "size"] },
];
const FILLER = ["the", "you", "can", "then", "open", "choose", "select", "when", "this", "and", "with", "for", "each", "new", "use", "from", "also", "more"];

/** 12 pages of 5 sections; a section's heading is two words of its subject's heading list, its text 40 words of its body list and filler. */
export function topicPages(): { name: string; content: string }[] {
  const r = rng(27);
  const pick = <T>(a: T[]) => a[Math.floor(r() * a.length)]!;
  const combos = TOPICS.map((t) => t.heading.flatMap((a, i) => t.heading.slice(i + 1).map((b) => `${a} ${b}`)));
  const pages: { name: string; content: string }[] = [];
  for (let p = 0; p < 12; p++) {
    const sections: string[] = [];
    for (let k = 0; k < 5; k++) {
      const topic = (p * 5 + k) % TOPICS.length;
      const heading = combos[topic]!.shift()!;
      const words = Array.from({ length: 40 }, () => (r() < 0.6 ? pick(TOPICS[topic]!.body) : pick(FILLER)));
      sections.push(`## ${heading}\n\n${words.join(" ")}.\n`);
    }
    pages.push({ name: `topics-${p}.md`, content: `# Handbook part ${p}\n\n${sections.join("\n")}` });
  }
  return pages;
}

/** 60 sections headed by one word each, a word no other heading (nor page title) has. */
export function uniquePages(): { name: string; content: string }[] {
  const words =
    "apple bread chair desk engine forest garden hammer island jacket kettle ladder magnet needle orange pencil quilt rabbit saddle table umbrella valley wagon yacht zebra anchor basket candle dolphin feather glove helmet igloo jungle kayak lemon mirror nest oyster parrot quartz rocket shovel tunnel uniform vase whistle yogurt acorn beetle cactus daisy elbow fossil goblet harbor ivory jigsaw koala lantern meadow napkin orchid pebble rhubarb scarf thimble tulip velvet walrus almond bamboo cobweb dagger emerald fiddle granite hedgehog iceberg jasmine kiwi lobster mango nutmeg otter pumpkin raisin sapphire teapot turnip vulture wombat badger canyon".split(
      " ",
    );
  const r = rng(4);
  const pick = <T>(a: T[]) => a[Math.floor(r() * a.length)]!;
  const body = TOPICS.flatMap((t) => t.body);
  const pages: { name: string; content: string }[] = [];
  let w = 0;
  for (let p = 0; p < 12; p++) {
    const sections: string[] = [];
    for (let k = 0; k < 5; k++) {
      const heading = words[w++]!;
      sections.push(`## ${heading}\n\n${Array.from({ length: 40 }, () => (r() < 0.6 ? pick(body) : pick(FILLER))).join(" ")}.\n`);
    }
    pages.push({ name: `unique-${p}.md`, content: `# ${words[60 + p]}\n\n${sections.join("\n")}` });
  }
  return pages;
}
