// The stopword package ships no types; the analyzers read only its per-language word lists.
declare module "stopword" {
  const lists: Record<string, string[]>;
  export = lists;
}
