import type { DB } from "../db.js";
import type { ContentStore } from "../../content-types.js";
import { collectionMethods } from "./collections.js";
import { sourceMethods } from "./sources.js";
import { documentMethods } from "./documents.js";
import { searchMethods } from "./search.js";
import { jobMethods } from "./jobs.js";

export function sqliteContent(db: DB): ContentStore {
  return {
    ...collectionMethods(db),
    ...sourceMethods(db),
    ...documentMethods(db),
    ...searchMethods(db),
    ...jobMethods(db),
  };
}
