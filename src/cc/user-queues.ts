import { getUserQueueNames, type PlatformClient } from "../api";

const reads = new WeakMap<PlatformClient, Map<string, Promise<string[]>>>();

/**
 * The queues a user is on (`GET /api/users/<id>/queue/name`), read once per sign-in and shared:
 * the agent's session reads them at sign-in, and the supervisor's board, opening a moment later,
 * takes the same answer (or waits for the same request) instead of asking again. `fresh` reads
 * them anew (a retry); a read that failed is not kept.
 */
export function userQueueNames(client: PlatformClient, userId: string, o: { fresh?: boolean } = {}): Promise<string[]> {
  let ofClient = reads.get(client);
  if (!ofClient) reads.set(client, (ofClient = new Map()));
  const kept = ofClient.get(userId);
  if (kept && !o.fresh) return kept;
  const read = getUserQueueNames(client, userId);
  ofClient.set(userId, read);
  read.catch(() => {
    if (ofClient.get(userId) === read) ofClient.delete(userId);
  });
  return read;
}
