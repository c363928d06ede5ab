export type MediaDirection = "sendrecv" | "sendonly" | "recvonly" | "inactive";

/**
 * The direction of the audio stream an SDP describes, read from the audio media section first
 * (Firefox and some servers put a session-level a=sendrecv before a media-level a=sendonly; the
 * media level wins), then the session level. `c=0.0.0.0` is the RFC 2543 way of holding.
 */
export function audioDirection(sdp: string): MediaDirection {
  const start = sdp.search(/^m=audio /m);
  if (start < 0) return "inactive";
  const session = sdp.slice(0, sdp.search(/^m=/m));
  const rest = sdp.slice(start + 1);
  const next = rest.search(/^m=/m);
  const media = next >= 0 ? sdp.slice(start, start + 1 + next) : sdp.slice(start);
  if (/^c=IN IP4 0\.0\.0\.0\s*$/m.test(media) || (!/^c=/m.test(media) && /^c=IN IP4 0\.0\.0\.0\s*$/m.test(session))) {
    return "sendonly";
  }
  const attr = /^a=(sendrecv|sendonly|recvonly|inactive)\s*$/m;
  const found = attr.exec(media) ?? attr.exec(session);
  return (found?.[1] as MediaDirection | undefined) ?? "sendrecv";
}

/** Whether the side that sent this SDP has put the call on hold. */
export function isHoldDirection(direction: MediaDirection): boolean {
  return direction === "sendonly" || direction === "inactive";
}
