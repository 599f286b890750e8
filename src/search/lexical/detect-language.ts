// The language of a document of an "auto" collection, by franc (trigram profiles, MIT): the
// small build's profiles are enough for the languages we analyse, and restricting it to them
// keeps a Spanish text from being read as Galician or a Swedish one as Norwegian Nynorsk.
import { franc, francAll } from "franc-min";

/** franc's ISO 639-3 codes of the languages it tells apart, and our ISO 639-1 codes for them */
const FROM_639_3: Record<string, string> = {
  eng: "en",
  deu: "de",
  fra: "fr",
  spa: "es",
  ita: "it",
  por: "pt",
  nld: "nl",
  swe: "sv",
  rus: "ru",
  cmn: "zh",
  jpn: "ja",
  tha: "th",
};

const ONLY = Object.keys(FROM_639_3);
const TO_639_3 = new Map(Object.entries(FROM_639_3).map(([three, one]) => [one, three]));

/** The ISO 639-1 codes detectLanguage may answer: the only languages an "auto" collection's documents are analysed in. */
export const DETECTABLE: readonly string[] = Object.values(FROM_639_3);

/** The ISO 639-1 code of the text's language, or null when the text is too short to tell. */
export function detectLanguage(text: string): string | null {
  const code = franc(text, { only: ONLY, minLength: 10 });
  return FROM_639_3[code] ?? null;
}

/**
 * The languages (ISO 639-1, detectable ones) ordered by how likely franc finds the text in each,
 * however short: a ranking to choose among, not a detection.
 */
export function rankLanguages(text: string, among: readonly string[]): string[] {
  const only = among.flatMap((l) => TO_639_3.get(l) ?? []);
  if (only.length < 2) return [...among];
  const ranked = francAll(text, { only, minLength: 1 }).flatMap(([code]) => FROM_639_3[code] ?? []);
  return [...ranked.filter((l) => among.includes(l)), ...among.filter((l) => !ranked.includes(l))];
}
