// The language of a document of an "auto" collection, by franc (trigram profiles, MIT): the
// small build's profiles are enough for the languages we analyse, and restricting it to them
// keeps a Spanish text from being read as Galician or a Swedish one as Norwegian Nynorsk.
import { franc } from "franc-min";

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

/** The ISO 639-1 code of the text's language, or null when the text is too short to tell. */
export function detectLanguage(text: string): string | null {
  const code = franc(text, { only: ONLY, minLength: 10 });
  return FROM_639_3[code] ?? null;
}
