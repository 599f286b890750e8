// Questions almost no collection answers (everyday life, travel, sport, cooking), for a collection's
// own calibration (tuning-calibration.ts). A benchmark suite holds only questions its collection
// answers, so a model fitted on it alone never sees a query without an answer, and it rated the
// best hits of such queries 0.6 on the documentation set, where /retrieve then kept up to 8 contexts
// for "cheap flights to Lisbon". Their hits are the fit's examples of "nothing here is relevant".
// Kept apart from the questions the labs measure off-topic behaviour with (src/evaluation/labs/relevance-lab.ts),
// so that measurement is not of the fit's own examples.
export const OFF_TOPIC_PROBES: readonly string[] = [
  "how do I reset my wifi router password",
  "best pizza dough recipe with dry yeast",
  "who won the football world cup final in 2018",
  "cheap flights from london to new york in december",
  "how to change a flat tyre on a bicycle",
  "lyrics of a famous beatles song",
  "how many players are on a basketball team",
  "return policy for online shoe orders",
  "how to knit a scarf for beginners",
  "train timetable from paris to lyon",
  "what time does the supermarket close on sunday",
  "history of the roman empire and its emperors",
  "how to grow tomatoes on a balcony",
  "best strategy for chess openings",
  "how do I file my income tax return",
  "wedding speech ideas for the best man",
  "how to paint a wooden fence",
  "what should I pack for a week of skiing",
];

/**
 * A probe whose best hit the calibration in effect rates at least this is taken to be on-topic for
 * the collection (a cooking site answers the pizza question) and left out of the fit.
 */
export const ON_TOPIC_RELEVANCE = 0.5;
