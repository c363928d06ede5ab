import * as v from "valibot";
import type { PlatformClient } from "./client";
import { idString, numberish, text } from "./schemas";

const DevKeySchema = v.object({
  id: idString,
  user_id: idString,
  // One listing names the key value `key` instead of `k`.
  k: v.optional(v.string()),
  key: v.optional(v.string()),
  description: text,
  enabled: numberish,
  created_at: text,
  updated_at: text,
});

export type DevKey = {
  id: string;
  userId: string;
  key: string;
  description: string;
  enabled: boolean;
  createdAt: string;
};

function toDevKey(k: v.InferOutput<typeof DevKeySchema>): DevKey {
  return {
    id: k.id,
    userId: k.user_id,
    key: k.k ?? k.key ?? "",
    description: k.description,
    enabled: k.enabled === 1,
    createdAt: k.created_at,
  };
}

const base = (userId: string) => `/api/users/${encodeURIComponent(userId)}/dev_keys`;

export async function createDevKey(client: PlatformClient, userId: string, description = ""): Promise<DevKey> {
  return toDevKey(
    await client.request("POST", base(userId), { body: { description }, envelope: true, schema: DevKeySchema }),
  );
}

/** GET .../dev_keys — an array, or (on some versions) an envelope holding it. */
export async function listDevKeys(client: PlatformClient, userId: string): Promise<DevKey[]> {
  const rows = await client.request("GET", base(userId), {
    schema: v.union([
      v.array(DevKeySchema),
      v.pipe(
        v.object({ data: v.array(DevKeySchema) }),
        v.transform((e) => e.data),
      ),
    ]),
  });
  return rows.map(toDevKey);
}

export async function toggleDevKey(client: PlatformClient, userId: string, keyId: string): Promise<DevKey> {
  return toDevKey(
    await client.request("PUT", `${base(userId)}/${encodeURIComponent(keyId)}`, {
      body: { action: "toggle" },
      envelope: true,
      schema: DevKeySchema,
    }),
  );
}

export async function deleteDevKey(client: PlatformClient, userId: string, keyId: string): Promise<void> {
  await client.request("DELETE", `${base(userId)}/${encodeURIComponent(keyId)}`, { envelope: true, schema: idString });
}

export async function deleteAllDevKeys(client: PlatformClient, userId: string): Promise<void> {
  await client.request("DELETE", base(userId), { schema: v.object({ code: numberish, text: v.string() }) });
}
