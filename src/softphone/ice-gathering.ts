import type { SessionDescriptionHandler, SessionDescriptionHandlerFactory } from "sip.js";

export type CandidateType = "host" | "srflx" | "prflx" | "relay";

export interface IceConfiguration {
  iceServers: readonly RTCIceServer[];
  iceTransportPolicy: RTCIceTransportPolicy;
}

/**
 * Whether the candidates gathered so far are enough to stop waiting for the rest. sip.js does not
 * trickle ICE: the offer or answer leaves only when gathering completes or times out. A relay
 * candidate works through any NAT, so with TURN configured the first one is enough; with STUN
 * only, the first server-reflexive one. With no servers there is nothing to wait for beyond the
 * host candidates, which the browser reports as complete on its own almost at once.
 */
export function candidateSetIsUsable(types: readonly CandidateType[], config: IceConfiguration): boolean {
  const urls = config.iceServers.flatMap((s) => (Array.isArray(s.urls) ? s.urls : [s.urls]));
  const hasTurn = urls.some((u) => /^turns?:/i.test(u));
  const hasStun = urls.some((u) => /^stuns?:/i.test(u));
  if (hasTurn || config.iceTransportPolicy === "relay") return types.includes("relay");
  if (hasStun) return types.includes("srflx") || types.includes("relay");
  return false;
}

export function candidateType(
  candidate: { type?: string | null; candidate?: string } | null | undefined,
): CandidateType | undefined {
  if (!candidate) return undefined;
  const t = candidate.type ?? / typ (host|srflx|prflx|relay)/.exec(candidate.candidate ?? "")?.[1];
  return t === "host" || t === "srflx" || t === "prflx" || t === "relay" ? t : undefined;
}

/** The parts of sip.js's Web SessionDescriptionHandler this needs. */
interface GatheringHandler extends Pick<SessionDescriptionHandler, "getDescription"> {
  peerConnectionDelegate:
    | { onicecandidate?: (e: RTCPeerConnectionIceEvent) => void; onicegatheringstatechange?: (e: Event) => void }
    | undefined;
  peerConnection: RTCPeerConnection | undefined;
  iceGatheringComplete(): void;
}

function isGatheringHandler(x: unknown): x is GatheringHandler {
  return (
    !!x &&
    typeof (x as GatheringHandler).iceGatheringComplete === "function" &&
    typeof (x as GatheringHandler).getDescription === "function" &&
    "peerConnectionDelegate" in (x as object)
  );
}

/**
 * Removes the `trickle` ICE option (RFC 8840) from a description. Browsers announce it, but the
 * phone sends its candidates inside the offer or answer and never trickles more afterwards; a peer
 * that believed the announcement could wait for candidates that never come.
 */
export function withoutTrickle(sdp: string): string {
  return sdp.replace(/^a=ice-options:([^\r\n]*)\r?\n/gm, (_line, options: string) => {
    const rest = options.split(/\s+/).filter((o) => o && o !== "trickle");
    return rest.length ? `a=ice-options:${rest.join(" ")}\r\n` : "";
  });
}

/**
 * Wraps a session description handler factory so that every handler stops waiting for ICE as soon
 * as `candidateSetIsUsable` says so, instead of waiting for the whole gathering or the time-out,
 * and its descriptions do not announce trickle ICE.
 */
export function withEarlyIceCompletion(
  factory: SessionDescriptionHandlerFactory,
  config: IceConfiguration,
): SessionDescriptionHandlerFactory {
  return (session, options) => {
    const sdh = factory(session, options);
    if (!isGatheringHandler(sdh)) return sdh;
    const getDescription = sdh.getDescription.bind(sdh);
    sdh.getDescription = async (opts, modifiers) => {
      const description = await getDescription(opts, modifiers);
      return { ...description, body: withoutTrickle(description.body) };
    };
    let types: CandidateType[] = [];
    const previous = sdh.peerConnectionDelegate;
    sdh.peerConnectionDelegate = {
      ...previous,
      onicegatheringstatechange: (e) => {
        // An ICE restart gathers afresh: forget the candidates of the previous round.
        if (sdh.peerConnection?.iceGatheringState === "gathering") types = [];
        previous?.onicegatheringstatechange?.(e);
      },
      onicecandidate: (e) => {
        const t = candidateType(e.candidate);
        if (t) {
          types.push(t);
          if (candidateSetIsUsable(types, config)) sdh.iceGatheringComplete();
        }
        previous?.onicecandidate?.(e);
      },
    };
    return sdh;
  };
}
