// A language bench set (issue 28 Targets, languages): 20 one-sentence documents and 10 questions,
// question i asking for document i in other inflected forms (plurals, verb forms) than the text
// uses, or for Chinese, Japanese and Thai in words the document's sentence holds without spaces.
// Written for this bench, not taken from anywhere; documents 10 to 19 are distractors.

export interface LanguageSet {
  /** ISO 639-1 */
  language: string;
  docs: string[];
  /** questions[i] is answered by docs[i] */
  questions: string[];
}
