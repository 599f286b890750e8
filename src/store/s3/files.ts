// Originals in S3-compatible object storage (FILE_STORE_URL=s3://bucket/prefix): AWS S3, R2,
// MinIO, Ceph and the like. Placed files are <prefix>files/<tenant>/<document>; staged versions
// <prefix>staged/<tenant>/<document>.<tag>, apart so start-up recovery lists only those. A PUT is
// atomic (an object appears whole or not at all), so a writer killed mid-upload leaves nothing;
// placing is a server-side copy then a delete of the staged object, both safe to repeat.
import fs from "node:fs";
import fsp from "node:fs/promises";
import {
  CopyObjectCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  type _Object,
} from "@aws-sdk/client-s3";
import type { FileStore, StagedFile, StoredFile } from "../files.js";
import { tempArea } from "../files.js";

export interface S3FileStoreSettings {
  bucket: string;
  /** key prefix, "" or ending in "/" */
  prefix: string;
  /** null: AWS itself */
  endpoint: string | null;
  region: string;
  /** null: the SDK's own credential chain (AWS_* variables, instance roles) */
  accessKeyId: string | null;
  secretAccessKey: string | null;
  forcePathStyle: boolean;
}

const SEGMENT = /^[A-Za-z0-9_-]+$/;
const safe = (s: string) => {
  if (!SEGMENT.test(s)) throw new Error(`unsafe key segment '${s}'`);
  return s;
};

const isMissing = (err: unknown) => {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e?.name === "NoSuchKey" || e?.name === "NotFound" || e?.$metadata?.httpStatusCode === 404;
};

export function s3Client(s: S3FileStoreSettings): S3Client {
  return new S3Client({
    region: s.region,
    ...(s.endpoint ? { endpoint: s.endpoint } : {}),
    forcePathStyle: s.forcePathStyle,
    ...(s.accessKeyId && s.secretAccessKey ? { credentials: { accessKeyId: s.accessKeyId, secretAccessKey: s.secretAccessKey } } : {}),
    // checksums only where the API requires them: many S3-compatible servers refuse the
    // chunked checksum trailers the SDK would otherwise add to every upload
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
  });
}

export function s3FileStore(s: S3FileStoreSettings, tempDir: string, client: S3Client = s3Client(s)): FileStore {
  const tempPath = tempArea(tempDir);
  const Bucket = s.bucket;
  const placedKey = (t: string, d: string) => `${s.prefix}files/${safe(t)}/${safe(d)}`;
  const stagedKey = (t: string, d: string, tag: string) => `${s.prefix}staged/${safe(t)}/${safe(d)}.${safe(tag)}`;

  async function* objects(prefix: string): AsyncIterable<_Object> {
    let ContinuationToken: string | undefined;
    do {
      const page = await client.send(new ListObjectsV2Command({ Bucket, Prefix: prefix, ContinuationToken }));
      yield* page.Contents ?? [];
      ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (ContinuationToken);
  }

  const upload = async (Key: string, temp: string) => {
    const { size } = await fsp.stat(temp);
    await client.send(new PutObjectCommand({ Bucket, Key, Body: fs.createReadStream(temp), ContentLength: size }));
    await fsp.rm(temp, { force: true }); // moved, as a rename would have
  };

  const removeAll = async (prefix: string) => {
    let keys: { Key: string }[] = [];
    const flush = async () => {
      if (keys.length) await client.send(new DeleteObjectsCommand({ Bucket, Delete: { Objects: keys, Quiet: true } }));
      keys = [];
    };
    for await (const o of objects(prefix)) {
      keys.push({ Key: o.Key! });
      if (keys.length === 1000) await flush();
    }
    await flush();
  };

  return {
    describe: `S3-compatible storage s3://${Bucket}/${s.prefix}${s.endpoint ? ` at ${s.endpoint}` : ""}`,
    put: (t, d, temp) => upload(placedKey(t, d), temp),
    stage: (t, d, tag, temp) => upload(stagedKey(t, d, tag), temp),
    async place(t, stagedAs, tag, d) {
      const from = stagedKey(t, stagedAs, tag);
      await client.send(new CopyObjectCommand({ Bucket, Key: placedKey(t, d), CopySource: `${Bucket}/${encodeURIComponent(from).replace(/%2F/g, "/")}` }));
      await client.send(new DeleteObjectCommand({ Bucket, Key: from }));
    },
    async discardStaged(t, d, tag) {
      await client.send(new DeleteObjectCommand({ Bucket, Key: stagedKey(t, d, tag) }));
    },
    async staged(): Promise<StagedFile[]> {
      const out: StagedFile[] = [];
      const now = Date.now();
      for await (const o of objects(`${s.prefix}staged/`)) {
        const m = /^([A-Za-z0-9_-]+)\/([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)$/.exec(o.Key!.slice(`${s.prefix}staged/`.length));
        if (m) out.push({ tenantId: m[1], documentId: m[2], tag: m[3], ageMs: now - (o.LastModified?.getTime() ?? now) });
      }
      return out;
    },
    async read(t, d) {
      try {
        const r = await client.send(new GetObjectCommand({ Bucket, Key: placedKey(t, d) }));
        return Buffer.from(await r.Body!.transformToByteArray());
      } catch (err) {
        if (isMissing(err)) return null;
        throw err;
      }
    },
    async remove(t, d) {
      await client.send(new DeleteObjectCommand({ Bucket, Key: placedKey(t, d) }));
    },
    async removeTenant(t) {
      await removeAll(`${s.prefix}files/${safe(t)}/`);
      await removeAll(`${s.prefix}staged/${safe(t)}/`);
    },
    async *list(): AsyncIterable<StoredFile> {
      for await (const o of objects(`${s.prefix}files/`)) {
        const m = /^([A-Za-z0-9_-]+)\/([A-Za-z0-9_-]+)$/.exec(o.Key!.slice(`${s.prefix}files/`.length));
        if (m) yield { tenantId: m[1], documentId: m[2], size: o.Size ?? 0 };
      }
    },
    tempPath,
  };
}
