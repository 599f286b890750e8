// Standard Webhooks signatures (https://www.standardwebhooks.com): the secret is whsec_<base64 of
// 24 random bytes>; each attempt is signed as v1,<base64 HMAC-SHA256 over "id.timestamp.body">
// keyed with the secret's decoded bytes, and sent with webhook-id and webhook-timestamp.
import { createHmac, randomBytes } from "node:crypto";

const SECRET_PREFIX = "whsec_";

export function newWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(24).toString("base64");
}

/** The headers of one attempt of message `id` with this exact body. */
export function signedHeaders(secret: string, id: string, body: string, now = new Date()): Record<string, string> {
  const timestamp = String(Math.floor(now.getTime() / 1000));
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), "base64");
  const signature = createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest("base64");
  return {
    "content-type": "application/json",
    "webhook-id": id,
    "webhook-timestamp": timestamp,
    "webhook-signature": `v1,${signature}`,
  };
}
