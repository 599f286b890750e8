// Queue job rows as SQLite returns them, and the small conversions every job statement needs.
import type { JobRow } from "../../content-types.js";
import { toJobRow } from "./json.js";

export type RawJob = Omit<JobRow, "payload" | "id"> & { id: number; payload: string };
export const toJob = (r: RawJob): JobRow => toJobRow(r);
export const kindsJson = (kinds: string[]) => JSON.stringify(kinds);
/** ids are opaque strings outside; a string that is not one of ours matches nothing */
export const rowId = (id: string) => (/^\d+$/.test(id) ? Number(id) : -1);
