import type { DB } from "../db.js";
import type { ContentStore } from "../../content-store.js";
import { collectionMethods } from "./collections.js";
import { sourceMethods } from "./sources.js";
import { documentMethods } from "./documents.js";
import { documentIndexMethods } from "./document-index.js";
import { searchMethods, type SearchOptions } from "./search.js";
import { jobMethods } from "./jobs.js";
import type { VectorIndexes } from "./vector-indexes.js";

export function sqliteContent(db: DB, vectors: VectorIndexes, opts: SearchOptions = {}): ContentStore {
  return {
    ...collectionMethods(db),
    ...sourceMethods(db),
    ...documentMethods(db),
    ...documentIndexMethods(db),
    ...searchMethods(db, vectors, opts),
    ...jobMethods(db),
  };
}
