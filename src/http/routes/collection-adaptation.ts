// POST /collections/{collection_id}/adapt (issue 27 item 4): the collection's query model (kind
// queries) or whole model (kind model) fine-tuned on its own text, applied only under the tuning's
// guards (evaluation/adaptation/), in the request or as a job that GET .../adaptations/{id}
// follows. Reverted by settings.model_adaptation.enabled: false.
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "@sinclair/typebox";
import { errors, ref } from "../schemas/common.js";
import { AdaptationJobOut, AdaptationOut, AdaptationRequest } from "../schemas/benchmarks.js";
import { needs } from "../route-config.js";
import type { Adapter } from "../../evaluation/index.js";

const CollectionParams = Type.Object({ collection_id: Type.String() });
const AdaptationParams = Type.Object({ collection_id: Type.String(), adaptation_id: Type.String() });

const DESCRIPTION =
  "Collections embedded with the quarry-static profile only. Each section of the collection's documents (the chunks under one heading) becomes a pair: " +
  "its heading and its text. 30% of the pairs are held out by the hash of their id (as tuning holds out cases); " +
  "a copy of the model's vectors for the headings' words is trained with the model's contrastive loss to find each training pair's section " +
  "(its text without the heading's words, so the match needs meaning), " +
  "and is scored on the held-out pairs (each heading ranked against the text of every section) and on 5 folds (each pair scored by a copy trained without it). " +
  "With apply: true it is written to the collection (settings.model_adaptation) only when it improves the held-out nDCG@10 and does not lose out of fold; " +
  "apply.detail says what was done or why not. Only queries are embedded with it: passages keep their vectors, so nothing is re-embedded, and " +
  "settings.model_adaptation.enabled: false reverts the collection's queries to the base model at the next search. " +
  "kind: model trains the whole model instead (every word of the collection's text, new words included; on its heading pairs, inverse-cloze pairs of its sections and replayed general pairs), " +
  "scored with the held-out sections embedded by each model; applied, the collection's data sources' chunks are embedded again with it, and they cannot join another collection while it is on (409). " +
  "Kind queries runs in the request by default (seconds for a few hundred sections, about a minute for 5,000 on two busy cores); kind model, which takes minutes on a manual-sized collection, " +
  "runs as a job by default: 202 with the adaptation job (queued) and a Location header naming GET /collections/{collection_id}/adaptations/{adaptation_id}, " +
  "whose progress shows the phase and the folds done and whose result is the same answer once completed (one job at a time per server, beside tunings). " +
  "background: true or false chooses either way for either kind. " +
  "422 when the profile is not quarry-static, the collection has fewer than 40 usable sections, or (kind model) a data source is also in another collection.";

/** What this route uses, and nothing else of the runtime. */
export interface AdaptationRouteDeps {
  adapter: Adapter;
}

export const adaptationRoutes =
  ({ adapter }: AdaptationRouteDeps): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.post(
      "/collections/:collection_id/adapt",
      {
        config: needs("ingest"),
        preValidation: async (req) => {
          if (req.body === undefined || req.body === null) req.body = {};
        },
        schema: {
          tags: ["collections"],
          summary: "Adapt the collection's model to its own text",
          description: DESCRIPTION,
          params: CollectionParams,
          body: ref(AdaptationRequest),
          response: { 200: ref(AdaptationOut), 202: ref(AdaptationJobOut), ...errors(401, 403, 404, 422, 503) },
        },
      },
      async (req, reply) => {
        const answer = await adapter.adapt(req.principal!, req.params.collection_id, req.body ?? {});
        if (!answer.background) return reply.status(200).send(answer.result);
        const { collection_id, id } = answer.job;
        reply.header("location", `/collections/${encodeURIComponent(collection_id)}/adaptations/${encodeURIComponent(id)}`);
        return reply.status(202).send(answer.job);
      },
    );
    app.get(
      "/collections/:collection_id/adaptations",
      {
        config: needs("search"),
        schema: {
          tags: ["collections"],
          summary: "A collection's adaptation jobs, newest first (the 50 newest)",
          description:
            "Adaptations run as jobs: requested in the background (POST /collections/{collection_id}/adapt with background, or kind model), automatic ones (the collection reached the size) and a tuning's adapt_model in the background; trigger says which. " +
            "Adaptations answered in the request are not listed.",
          params: CollectionParams,
          response: { 200: Type.Array(ref(AdaptationJobOut)), ...errors(401, 403, 404) },
        },
      },
      async (req) => adapter.adaptations(req.principal!, req.params.collection_id),
    );
    app.get(
      "/collections/:collection_id/adaptations/:adaptation_id",
      {
        config: needs("search"),
        schema: {
          tags: ["collections"],
          summary: "An adaptation job: status, progress and, once completed, the adaptation's answer",
          params: AdaptationParams,
          response: { 200: ref(AdaptationJobOut), ...errors(401, 403, 404) },
        },
      },
      async (req) => adapter.adaptation(req.principal!, req.params.collection_id, req.params.adaptation_id),
    );
    app.post(
      "/collections/:collection_id/adaptations/:adaptation_id/cancel",
      {
        config: needs("ingest"),
        schema: {
          tags: ["collections"],
          summary: "Cancel a queued or running adaptation (the collection is left as it was)",
          description:
            "A running adaptation stops after the training it is in (each of its six takes seconds to a minute); nothing is written to the collection before its end. " +
            "A cancelled automatic adaptation is tried again only once the collection has doubled, as a refused one is. " +
            "409 once the adaptation is applying (its checks passed and the collection is being written), completed, failed or cancelled.",
          params: AdaptationParams,
          response: { 200: ref(AdaptationJobOut), ...errors(401, 403, 404, 409) },
        },
      },
      async (req) => adapter.cancel(req.principal!, req.params.collection_id, req.params.adaptation_id),
    );
  };
