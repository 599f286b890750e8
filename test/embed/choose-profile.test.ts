// The profile a deployment runs when EMBEDDING_PROFILE is unset: USE lite int8 for a new store,
// the float model's `default` for a store whose chunks it embedded (deployments made before the
// int8 model became the new default keep their vectors and their vector search on upgrade).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createSource, startServer, upload, waitIndexed, type TestServer } from "../kit/index.js";
import { chooseActiveProfile } from "../../src/embed/choose-profile.js";
import { builtInProfiles, loadProfiles } from "../../src/embed/index.js";

const UNSET = { EMBEDDING_PROFILE: "" };
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "quarry-choose-profile-"));
let open: TestServer | null = null;

afterAll(async () => {
  await open?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function start(env: Record<string, string>, dir?: string): Promise<TestServer> {
  await open?.close();
  open = await startServer(env, { listen: false, dataDir: dir });
  return open;
}

const active = async (s: TestServer, key: string) => (await s.call("GET", "/embedding-profile", { key })).body.name;

describe("the embedding profile when EMBEDDING_PROFILE is unset", () => {
  it("is use-lite-int8 on a new store", async () => {
    const s = await start(UNSET);
    const key = (await s.tenant()).adminKey;
    expect(await active(s, key)).toBe("use-lite-int8");
    expect(s.rt.activeProfile.model).toBe("universal-sentence-encoder-lite-int8");
    await s.close();
    open = null;
  });

  it("stays `default` where the float model embedded the chunks, then follows an explicit switch", async () => {
    let s = await start({ EMBEDDING_PROFILE: "default" }, dataDir);
    expect(await s.rt.embedder!.whenReady()).toBe(true);
    const key = (await s.tenant()).adminKey;
    const src = await createSource(s, key, "Notes");
    expect((await upload(s, key, src, [{ name: "otters.md", content: "# Otter Field Notes\n\nIn winter river otters eat fish and crayfish under the ice." }])).status).toBe(202);
    for (const d of await waitIndexed(s, key, src)) expect(d.status).toBe("indexed");
    expect(await s.rt.store.content.countUnembedded(s.rt.activeProfile.index_name!)).toBe(0);

    s = await start(UNSET, dataDir);
    expect(await active(s, key)).toBe("default");
    expect(await s.rt.store.content.countUnembedded(s.rt.activeProfile.index_name!)).toBe(0); // nothing to embed again

    // The operator moves to int8: the backfill embeds every chunk again, and then an unset
    // EMBEDDING_PROFILE finds no float vectors left and keeps int8.
    s = await start({ EMBEDDING_PROFILE: "use-lite-int8" }, dataDir);
    const index = s.rt.activeProfile.index_name!;
    await expect.poll(() => s.rt.store.content.countUnembedded(index), { timeout: 30_000, interval: 100 }).toBe(0);
    s = await start(UNSET, dataDir);
    expect(await active(s, key)).toBe("use-lite-int8");
  }, 90_000);
});

describe("chooseActiveProfile", () => {
  const profiles = builtInProfiles();
  const empty = { embeddedIndex: async () => null };

  const floatIndex = profiles.find((p) => p.name === "default")!.index_name!;

  it("keeps the float model where the store holds its vectors", async () => {
    expect((await chooseActiveProfile(profiles, null, { embeddedIndex: async () => floatIndex })).profile.name).toBe("default");
  });

  it("takes EMBEDDING_PROFILE as given, whatever the store holds", async () => {
    // the same store as above, where an unset EMBEDDING_PROFILE keeps `default`
    const c = await chooseActiveProfile(profiles, "quarry-static", { embeddedIndex: async () => floatIndex });
    expect(c.profile.name).toBe("quarry-static");
    await expect(chooseActiveProfile(profiles, "nope", empty)).rejects.toThrow(/Unknown embedding profile "nope"/);
  });

  it("starts a new deployment on the float model where onnxruntime cannot load (int8 has no TensorFlow.js fallback)", async () => {
    const c = await chooseActiveProfile(profiles, null, { ...empty, onnxRuntimeLoads: async () => false });
    expect(c.profile.name).toBe("default");
    expect(c.reason).toMatch(/onnxruntime cannot load/);
    expect((await chooseActiveProfile(profiles, null, empty)).profile.name).toBe("use-lite-int8"); // it loads here
  });

  it("keeps a `default` that a profiles file redefines", async () => {
    const file = path.join(dataDir, "profiles.json");
    const builtIn = profiles.find((p) => p.name === "default")!;
    fs.writeFileSync(file, JSON.stringify([{ ...builtIn, model: "my-model", index_name: null }]));
    const c = await chooseActiveProfile(loadProfiles({ profilesFile: file }), null, empty);
    expect(c.profile.model).toBe("my-model");
    expect(c.reason).toMatch(/profiles file defines "default"/);
  });
});
