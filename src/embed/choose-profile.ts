// The active embedding profile when EMBEDDING_PROFILE is not set.
//
// New deployments get USE lite with int8 dense layers (use-lite-int8): the same model's quality on
// every evaluation set, about 3x the passages a second, a query in about 1 ms, half the memory
// (docs/decisions.md, "USE lite int8 for new deployments"). Its vectors are its own, though, and a
// store keeps one profile's vectors at a time: a deployment whose chunks were embedded by the float
// model (the profile named `default`, every deployment's before 2026-11-28) keeps that profile, so
// an upgrade never turns its search lexical while every chunk is embedded again. Its log says how
// to move (EMBEDDING_PROFILE=use-lite-int8, then the backfill re-embeds).
import type { EmbeddingProfile } from "./types.js";
import { builtInProfiles, resolveActiveProfile } from "./profiles.js";

/** what a deployment with no vectors of the float model runs */
export const NEW_DEPLOYMENT_PROFILE = "use-lite-int8";
/** the float model's profile, the default of deployments made before 2026-11-28 */
export const EARLIER_DEFAULT_PROFILE = "default";

export interface ProfileChoice {
  profile: EmbeddingProfile;
  /** why this one, for the start-up log */
  reason: string;
}

export interface ChoiceFacts {
  /** the index the store's embedded chunks are in, null when none is (VectorStore.embeddedIndex) */
  embeddedIndex(): Promise<string | null>;
  /** whether onnxruntime's native binding loads here (default: onnxRuntimeLoads) */
  onnxRuntimeLoads?(): Promise<boolean>;
}

/** `requested` is EMBEDDING_PROFILE, null when unset. */
export async function chooseActiveProfile(profiles: EmbeddingProfile[], requested: string | null, facts: ChoiceFacts): Promise<ProfileChoice> {
  if (requested !== null) return { profile: resolveActiveProfile(profiles, requested), reason: "EMBEDDING_PROFILE" };
  const earlier = resolveActiveProfile(profiles, EARLIER_DEFAULT_PROFILE);
  const fresh = resolveActiveProfile(profiles, NEW_DEPLOYMENT_PROFILE);
  // A profiles file that redefines `default` (EMBEDDING_PROFILES_FILE) chose the deployment's model.
  if (earlier.index_name !== resolveActiveProfile(builtInProfiles(), EARLIER_DEFAULT_PROFILE).index_name) {
    return { profile: earlier, reason: `the profiles file defines "${EARLIER_DEFAULT_PROFILE}"` };
  }
  if ((await facts.embeddedIndex()) === earlier.index_name) {
    return {
      profile: earlier,
      reason:
        `this store's chunks have vectors from the "${EARLIER_DEFAULT_PROFILE}" profile, so it stays active; ` +
        `EMBEDDING_PROFILE=${NEW_DEPLOYMENT_PROFILE} switches to the same model with int8 layers (about 3x faster, ` +
        `half the memory), after which the backfill embeds every chunk again (chunks not yet done are found lexically only)`,
    };
  }
  if (!(await (facts.onnxRuntimeLoads ?? onnxRuntimeLoads)())) {
    // int8 runs on onnxruntime only; the float model's workers fall back to TensorFlow.js.
    return { profile: earlier, reason: `onnxruntime cannot load on this platform, and "${NEW_DEPLOYMENT_PROFILE}" needs it` };
  }
  return { profile: fresh, reason: `"${NEW_DEPLOYMENT_PROFILE}", the default of new deployments: no chunk has vectors from an earlier default` };
}

/** onnxruntime-node loads its native binding when imported; a platform without a prebuilt one throws. */
export async function onnxRuntimeLoads(): Promise<boolean> {
  try {
    await import("onnxruntime-node");
    return true;
  } catch {
    return false;
  }
}
