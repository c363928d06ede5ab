import * as v from "valibot";
import { DEFAULT_CALL_DATA, MAX_CALL_DATA_PATTERNS, callDataPatternProblem } from "./call-data";
import { SCOPES, type Scope } from "./embed-scopes";

/**
 * Which host pages may embed the app and drive it, from the deployment's `config.json` (next to
 * the app's index.html; the local platform serves the same list as CSP `frame-ancestors`):
 *
 * ```json
 * { "embed": { "hosts": [
 *   { "origin": "https://crm.example.com", "scopes": ["dial", "call-control", "status", "caller-data"],
 *     "destinations": "\\+?1[0-9]{10}|[0-9]{4}" }
 * ] } }
 * ```
 *
 * - `origin`: exactly `scheme://host[:port]` as browsers write it (no path, no default port). A
 *   wildcard subdomain (`https://*.example.com`) is refused unless `"wildcards": true` is set
 *   beside `hosts`: any page on any subdomain would then be trusted with the agent's phone.
 * - `scopes`: what that host may do (see `Scope`).
 * - `destinations` (optional): a regular expression every `dial` and `transfer` destination of
 *   that host must match in full, after the dial pad's clean-up (`+15551234567`, `sip:bob@host`).
 *
 * Beside `hosts`, `callData` (optional) lists the headers of a call's INVITE that are its data
 * (an IVR's input), by name or by prefix ending in `*`; hosts with `caller-data` get them with the
 * call. Without it: `X-IVR-*`; `[]` takes none.
 *
 * The host page can change none of it, nor anything else of the app's configuration.
 */
export interface EmbedHostRule {
  origin: string;
  scopes: ReadonlySet<Scope>;
  destinations: RegExp | null;
}

export interface EmbedConfig {
  hosts: EmbedHostRule[];
  /** The headers that are a call's data: names, or prefixes ending in `*`. */
  callData: readonly string[];
}

export const NO_HOSTS: EmbedConfig = { hosts: [], callData: DEFAULT_CALL_DATA };

const hostSchema = v.strictObject({
  origin: v.string(),
  scopes: v.pipe(
    v.array(v.picklist(SCOPES)),
    v.check((list) => new Set(list).size === list.length, "lists a scope twice"),
  ),
  destinations: v.optional(v.string()),
});

const embedSchema = v.strictObject({
  hosts: v.array(hostSchema),
  wildcards: v.optional(v.boolean(), false),
  callData: v.optional(
    v.pipe(
      v.array(v.string()),
      v.maxLength(MAX_CALL_DATA_PATTERNS, `lists more than ${MAX_CALL_DATA_PATTERNS} headers`),
    ),
  ),
});

// Other parts of config.json belong to other parts of the app; `embed` is checked strictly.
const configSchema = v.object({ embed: v.optional(embedSchema) });

export type ParsedConfig = { ok: true; config: EmbedConfig } | { ok: false; problem: string };

/** Reads the `embed` part of config.json; any mistake refuses the whole list (no host is allowed then). */
export function parseEmbedConfig(json: unknown): ParsedConfig {
  const parsed = v.safeParse(configSchema, json);
  if (!parsed.success) {
    const issue = parsed.issues[0]!;
    const path = issue.path?.map((p) => String(p.key)).join(".") ?? "";
    return { ok: false, problem: `config.json ${path ? `${path}: ` : ""}${issue.message}` };
  }
  const embed = parsed.output.embed;
  if (!embed) return { ok: true, config: NO_HOSTS };
  for (const [i, p] of (embed.callData ?? []).entries()) {
    const problem = callDataPatternProblem(p);
    if (problem) return { ok: false, problem: `config.json embed.callData.${i}: ${problem}` };
  }
  const hosts: EmbedHostRule[] = [];
  for (const [i, h] of embed.hosts.entries()) {
    const where = `config.json embed.hosts.${i}`;
    const problem = originProblem(h.origin, embed.wildcards);
    if (problem) return { ok: false, problem: `${where}.origin: ${problem}` };
    let destinations: RegExp | null = null;
    if (h.destinations !== undefined) {
      try {
        destinations = new RegExp(`^(?:${h.destinations})$`, "u");
      } catch (e) {
        return { ok: false, problem: `${where}.destinations: not a regular expression (${(e as Error).message})` };
      }
    }
    hosts.push({ origin: h.origin, scopes: new Set(h.scopes), destinations });
  }
  return { ok: true, config: { hosts, callData: embed.callData ?? DEFAULT_CALL_DATA } };
}

function originProblem(origin: string, wildcards: boolean): string | undefined {
  const wildcard = /^(https?:\/\/)\*\.(.+)$/.exec(origin);
  if (wildcard && !wildcards) return `'${origin}' is a wildcard: set "wildcards": true beside "hosts" to allow it`;
  const concrete = wildcard ? `${wildcard[1]}x.${wildcard[2]}` : origin;
  let url: URL;
  try {
    url = new URL(concrete);
  } catch {
    return `'${origin}' is not an origin (scheme://host[:port])`;
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return `'${origin}' must start with https:// or http://`;
  if (url.origin !== concrete)
    return `'${origin}' must be written exactly as scheme://host[:port], as browsers send it (${url.origin})`;
  return undefined;
}

/** The rule for a page of `origin`, or undefined: the origin is not allowed. */
export function hostRuleFor(config: EmbedConfig, origin: string): EmbedHostRule | undefined {
  return config.hosts.find((h) => originMatches(h.origin, origin));
}

function originMatches(rule: string, origin: string): boolean {
  if (rule === origin) return true;
  const wildcard = /^(https?:\/\/)\*(\..+)$/.exec(rule);
  if (!wildcard) return false;
  // `https://*.example.com` is any subdomain of example.com (not example.com itself), same
  // scheme and port, as CSP reads it.
  const [, scheme, rest] = wildcard;
  const port = /:\d+$/.exec(rest!)?.[0] ?? "";
  const domain = rest!.slice(0, rest!.length - port.length);
  if (!origin.startsWith(scheme!) || !origin.endsWith(domain + port)) return false;
  const host = origin.slice(scheme!.length, origin.length - port.length);
  return host.length > domain.length && !host.includes(":") && /^[a-z0-9.-]+$/.test(host);
}

/** The CSP `frame-ancestors` value for these hosts: the app's own origin and theirs. */
export function frameAncestors(config: EmbedConfig): string {
  return ["'self'", ...config.hosts.map((h) => h.origin)].join(" ");
}
