// Every schema with an $id, registered once so routes and the OpenAPI document can $ref them.
import type { TSchema } from "@sinclair/typebox";
import { ErrorOut, ValidationErrorOut } from "./common.js";
import * as identity from "./identity.js";
import * as content from "./content.js";
import * as search from "./search.js";
import * as searchControls from "./search-controls.js";
import * as crawl from "./crawl.js";
import * as benchmarks from "./benchmarks.js";
import * as account from "./account.js";
import * as agents from "./agents.js";
import * as webhooks from "./webhooks.js";
import * as schedules from "./schedules.js";
import * as analytics from "./analytics.js";

export const SHARED_SCHEMAS: TSchema[] = [ErrorOut, ValidationErrorOut, ...[identity, content, search, searchControls, crawl, benchmarks, account, agents, webhooks, schedules, analytics]
  .flatMap((m) => Object.values(m) as TSchema[])
  .filter((s) => typeof s === "object" && s !== null && "$id" in s)];
