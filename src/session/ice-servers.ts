/**
 * STUN and TURN servers as the user types them in the settings: one server per line,
 *   stun:stun.example.com:3478
 *   turn:turn.example.com:3478?transport=udp alice s3cret
 * (a TURN server needs its user name and password after the URL). There is no public default:
 * an empty list means host candidates only, which is right on a LAN and never waits on a
 * far-away STUN server.
 */
export interface IceServerSetting {
  urls: string;
  username?: string;
  credential?: string;
}

export type IceServerProblem =
  | { kind: "scheme"; line: number }
  | { kind: "host"; line: number }
  | { kind: "port"; line: number }
  | { kind: "turn-credentials"; line: number }
  | { kind: "stun-credentials"; line: number };

export type IceServersParse = { ok: true; servers: IceServerSetting[] } | { ok: false; problem: IceServerProblem };

/** RFC 7064/7065: scheme, host (name, IPv4 or [IPv6]), optional port, TURN's optional transport. */
const ICE_URL =
  /^(stuns?|turns?):(\[[0-9a-f:.]+\]|[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?)(?::(\d{1,5}))?(\?transport=(?:udp|tcp))?$/i;

/** Checks one server; `line` is only used to say where a problem is. */
export function checkIceServer(server: IceServerSetting, line = 1): IceServerProblem | undefined {
  const url = server.urls.trim();
  const scheme = /^([a-z]+):/i.exec(url)?.[1]?.toLowerCase();
  if (scheme !== "stun" && scheme !== "stuns" && scheme !== "turn" && scheme !== "turns")
    return { kind: "scheme", line };
  const m = ICE_URL.exec(url);
  if (!m) return { kind: "host", line };
  if (m[3] !== undefined && (Number(m[3]) < 1 || Number(m[3]) > 65535)) return { kind: "port", line };
  const isTurn = scheme.startsWith("turn");
  if (!isTurn && m[4]) return { kind: "host", line };
  if (isTurn && (!server.username || !server.credential)) return { kind: "turn-credentials", line };
  if (!isTurn && (server.username || server.credential)) return { kind: "stun-credentials", line };
  return undefined;
}

export function parseIceServers(text: string): IceServersParse {
  const servers: IceServerSetting[] = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const words = (lines[i] ?? "").trim().split(/\s+/).filter(Boolean);
    if (words.length === 0) continue;
    const [urls = "", username, credential, ...rest] = words;
    const server: IceServerSetting = { urls, ...(username ? { username } : {}), ...(credential ? { credential } : {}) };
    // Spaces inside a password are not supported: a fourth word is a mistake to point at.
    const problem = rest.length ? { kind: "turn-credentials" as const, line: i + 1 } : checkIceServer(server, i + 1);
    if (problem) return { ok: false, problem };
    servers.push(server);
  }
  return { ok: true, servers };
}

export function formatIceServers(servers: readonly IceServerSetting[]): string {
  return servers.map((s) => [s.urls, s.username, s.credential].filter(Boolean).join(" ")).join("\n");
}

/** For the phone: the browser's RTCIceServer shape. */
export function toRtcIceServers(servers: readonly IceServerSetting[]): RTCIceServer[] {
  return servers.map((s) => ({
    urls: s.urls.trim(),
    ...(s.username ? { username: s.username, credential: s.credential ?? "" } : {}),
  }));
}
