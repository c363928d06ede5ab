import { existsSync, readFileSync } from "node:fs";
import { frameAncestors, parseEmbedConfig } from "../shared/embed-config";
import type { Scope } from "../shared/embed-scopes";

/** A host page allowed to embed the app, as `config.json` writes it (docs/embedding.md). */
export interface EmbedHostEntry {
  origin: string;
  scopes: Scope[];
  destinations?: string;
}

export interface AppConfig {
  /** The app's `config.json` as served at `/config.json`. */
  json: Record<string, unknown>;
  /** The CSP `frame-ancestors` of the app's pages: its own origin and the allowed hosts'. */
  frameAncestors: string;
}

/**
 * The app's `config.json` (`file`: the deployment's, or the one built into `dist/` from
 * `public/config.json`) with the hosts this platform adds (`embedHosts`: AGENTBAR_EMBED_HOSTS,
 * the demo CRM, a test's host page), read at start. The
 * same list is the app's allowlist and the pages' `frame-ancestors`, so the two cannot disagree.
 * A file or an entry the app would refuse stops the start, naming the mistake.
 */
export function loadAppConfig(file: string, embedHosts: readonly EmbedHostEntry[]): AppConfig {
  let json: Record<string, unknown> = {};
  if (existsSync(file)) {
    try {
      json = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
    } catch (e) {
      throw new Error(`${file} is not JSON: ${(e as Error).message}`);
    }
  }
  const embed = (json.embed ?? {}) as { hosts?: unknown[] };
  const merged = {
    ...json,
    embed: { ...embed, hosts: [...(Array.isArray(embed.hosts) ? embed.hosts : []), ...embedHosts] },
  };
  const parsed = parseEmbedConfig(merged);
  if (!parsed.ok) throw new Error(parsed.problem);
  return { json: merged, frameAncestors: frameAncestors(parsed.config) };
}
