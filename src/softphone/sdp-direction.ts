export type MediaDirection = "sendrecv" | "sendonly" | "recvonly" | "inactive";

export interface MediaSection {
  media: string;
  port: number;
  direction: MediaDirection;
  /** `c=IN IP4 0.0.0.0`: the RFC 2543 way of putting a call on hold, still sent by old gear. */
  nullConnection: boolean;
}

/**
 * The direction of each m= section, with the session-level attribute as the default, as RFC 4566
 * says. sip.js itself only looks at the first direction attribute in the whole SDP, which is wrong
 * when a session-level `a=sendrecv` precedes a media-level `a=sendonly` (Firefox writes SDP so).
 */
export function mediaSections(sdp: string): MediaSection[] {
  const lines = sdp.split(/\r?\n/);
  let sessionDirection: MediaDirection = "sendrecv";
  let sessionNull = false;
  const sections: MediaSection[] = [];
  let current: (MediaSection & { explicitNull?: boolean }) | undefined;
  for (const line of lines) {
    if (line.startsWith("m=")) {
      const [media = "", port = "0"] = line.slice(2).split(" ");
      current = {
        media,
        port: Number.parseInt(port, 10) || 0,
        direction: sessionDirection,
        nullConnection: sessionNull,
      };
      sections.push(current);
      continue;
    }
    const direction = /^a=(sendrecv|sendonly|recvonly|inactive)\s*$/.exec(line)?.[1] as MediaDirection | undefined;
    if (direction) {
      if (current) current.direction = direction;
      else sessionDirection = direction;
      continue;
    }
    if (line.startsWith("c=")) {
      const isNull = /^c=IN IP4 0\.0\.0\.0\s*$/.test(line);
      if (current) current.nullConnection = isNull;
      else sessionNull = isNull;
    }
  }
  return sections;
}

/**
 * Whether an offer from the other side puts us on hold: every live audio stream (port not 0) is
 * one they only send on, or not at all, or has a null connection address. An offer without
 * audio is judged on its other streams.
 */
export function isHoldOffer(sdp: string): boolean {
  const live = mediaSections(sdp).filter((s) => s.port !== 0);
  const audio = live.filter((s) => s.media === "audio");
  const judged = audio.length > 0 ? audio : live;
  if (judged.length === 0) return false;
  return judged.every((s) => s.nullConnection || s.direction === "sendonly" || s.direction === "inactive");
}
