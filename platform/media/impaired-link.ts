import { createSocket, type RemoteInfo, type Socket } from "node:dgram";
import { CLEAN_LEG, type LegImpairment, type LinkImpairment } from "./link-impairment";
import { LinkJitter } from "./link-jitter";

/** What a datagram on a WebRTC port is (RFC 7983 demultiplexing by the first byte). */
export type PacketKind = "stun" | "dtls" | "rtp" | "rtcp" | "other";

export function packetKind(packet: Uint8Array): PacketKind {
  const first = packet[0] ?? 255;
  if (first <= 3) return "stun";
  if (first >= 20 && first <= 63) return "dtls";
  if (first >= 128 && first <= 191) {
    // RTCP packet types 192-223 sit where RTP has marker bit and payload type (RFC 5761 §4).
    const second = packet[1] ?? 0;
    return second >= 192 && second <= 223 ? "rtcp" : "rtp";
  }
  return "other";
}

export interface LinkDirectionStats {
  /** Datagrams that arrived to be relayed. */
  packets: number;
  /** Of those, audio (RTP). */
  rtp: number;
  /** Media packets dropped as lost. */
  lost: number;
  /** Audio packets dropped by `silence`. */
  silenced: number;
}

export interface ImpairedLinkStats {
  toPhone: LinkDirectionStats;
  fromPhone: LinkDirectionStats;
  /** Phone addresses seen (one per local candidate the phone checked from). */
  mappings: number;
}

interface Address {
  address: string;
  port: number;
}

/** One phone address, as a NAT maps it: its own socket toward the peer connection. */
interface Mapping {
  outer: Socket;
  phone: Address;
  inner: Socket;
}

/** A stranger spraying the port must not make the link open sockets without end. */
const MAX_MAPPINGS = 16;

/**
 * A UDP relay in front of one leg's peer connection, through which every packet between the phone
 * and the platform passes, so that the network between them can be made worse on purpose (loss,
 * delay, jitter, silence) for tests and the demo. It works as a NAT would: the phone is told our
 * relay addresses instead of the peer connection's candidates, the peer connection is told no
 * candidates of the phone at all and learns each phone address as a peer-reflexive one through its
 * own socket here. ICE, DTLS and SRTP run end to end through it untouched; an ICE restart finds
 * the same relay.
 */
export class ImpairedLink {
  private readonly outers = new Map<string, Socket>();
  private readonly mappings = new Map<string, Mapping>();
  /** Candidates of the peer connection (all generations): the only sources let through to the phone. */
  private readonly peerAddresses = new Set<string>();
  private target: Address | undefined;
  private readonly timers = new Set<NodeJS.Timeout>();
  private closed = false;
  private readonly counters: ImpairedLinkStats = { toPhone: emptyStats(), fromPhone: emptyStats(), mappings: 0 };

  private readonly random: () => number;
  private readonly onClose: (() => void) | undefined;
  private readonly jitter: { toPhone: LinkJitter; fromPhone: LinkJitter };

  constructor(
    private readonly impairment: () => LegImpairment = () => CLEAN_LEG,
    options: { random?: () => number; onClose?: () => void } = {},
  ) {
    this.random = options.random ?? Math.random;
    this.onClose = options.onClose;
    const jitter = () =>
      new LinkJitter((ms, run) => this.later(ms, run), performance.now.bind(performance), this.random);
    this.jitter = { toPhone: jitter(), fromPhone: jitter() };
  }

  /**
   * The peer connection's SDP as the phone must see it: the relay's addresses in place of its
   * candidates (one per IPv4 address it gathered on, same foundation and priority).
   */
  async advertise(sdp: string): Promise<string> {
    const own = hostCandidates(sdp);
    for (const c of own) this.peerAddresses.add(`${c.address}:${c.port}`);
    // Loopback reaches the peer connection whatever interface the phone used.
    this.target = own.find((c) => c.address === "127.0.0.1") ?? own[0] ?? this.target;
    const ours: string[] = [];
    for (const c of own) {
      if (ours.some((line) => line.includes(` ${c.address} `))) continue;
      const port = await this.outerPort(c.address);
      ours.push(`a=candidate:${c.foundation} 1 udp ${c.priority} ${c.address} ${port} typ host generation 0`);
    }
    return replaceCandidates(sdp, ours);
  }

  /** The phone's SDP as the peer connection must see it: no way to reach the phone but through us. */
  conceal(sdp: string): string {
    return replaceCandidates(sdp, []);
  }

  stats(): ImpairedLinkStats {
    return {
      toPhone: { ...this.counters.toPhone },
      fromPhone: { ...this.counters.fromPhone },
      mappings: this.mappings.size,
    };
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    for (const m of this.mappings.values()) m.inner.close();
    for (const s of this.outers.values()) s.close();
    this.mappings.clear();
    this.outers.clear();
    this.onClose?.();
  }

  private async outerPort(address: string): Promise<number> {
    let socket = this.outers.get(address);
    if (!socket) {
      if (this.closed) throw new Error("the link is closed");
      const s = createSocket("udp4");
      s.on("error", () => undefined);
      s.on("message", (packet, from) => this.fromPhone(s, packet, from));
      await new Promise<void>((resolve, reject) => {
        s.once("error", reject);
        s.bind(0, address, () => {
          s.off("error", reject);
          resolve();
        });
      });
      this.outers.set(address, s);
      socket = s;
    }
    return socket.address().port;
  }

  private fromPhone(outer: Socket, packet: Buffer, from: RemoteInfo): void {
    const key = `${outer.address().port}|${from.address}:${from.port}`;
    let mapping = this.mappings.get(key);
    if (!mapping) {
      // A path starts with a connectivity check; anything else from an unknown address is noise.
      if (packetKind(packet) !== "stun" || this.mappings.size >= MAX_MAPPINGS || this.closed) return;
      const inner = createSocket("udp4");
      const m: Mapping = { outer, phone: { address: from.address, port: from.port }, inner };
      inner.on("error", () => undefined);
      inner.on("message", (reply, source) => {
        if (this.peerAddresses.has(`${source.address}:${source.port}`)) this.toPhone(m, reply);
      });
      this.mappings.set(key, m);
      mapping = m;
    }
    const inner = mapping.inner;
    this.relay(packet, this.impairment().fromPhone, this.counters.fromPhone, this.jitter.fromPhone, () => {
      const target = this.target;
      if (target && !this.closed) inner.send(packet, target.port, target.address, ignore);
    });
  }

  private toPhone(m: Mapping, packet: Buffer): void {
    this.relay(packet, this.impairment().toPhone, this.counters.toPhone, this.jitter.toPhone, () => {
      if (!this.closed) m.outer.send(packet, m.phone.port, m.phone.address, ignore);
    });
  }

  private relay(
    packet: Buffer,
    impairment: LinkImpairment,
    stats: LinkDirectionStats,
    jitter: LinkJitter,
    send: () => void,
  ): void {
    const kind = packetKind(packet);
    stats.packets++;
    if (kind === "rtp") stats.rtp++;
    if (impairment.silence && kind === "rtp") {
      stats.silenced++;
      return;
    }
    if (
      (kind === "rtp" || kind === "rtcp") &&
      impairment.lossPercent > 0 &&
      this.random() * 100 < impairment.lossPercent
    ) {
      stats.lost++;
      return;
    }
    // The delay comes after the jitter, the same for every packet, so it keeps their order.
    const delayed = impairment.delayMs < 1 ? send : () => this.later(impairment.delayMs, send);
    if (impairment.jitterMs > 0) jitter.pass(impairment.jitterMs, kind === "rtp", delayed);
    else delayed();
  }

  private later(ms: number, run: () => void): void {
    if (this.closed) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      run();
    }, ms);
    this.timers.add(timer);
  }
}

function ignore(): void {
  // A datagram that cannot be sent is a lost datagram.
}

function emptyStats(): LinkDirectionStats {
  return { packets: 0, rtp: 0, lost: 0, silenced: 0 };
}

interface HostCandidate {
  foundation: string;
  priority: string;
  address: string;
  port: number;
}

/** The IPv4 UDP host candidates of an SDP, in order. */
export function hostCandidates(sdp: string): HostCandidate[] {
  const out: HostCandidate[] = [];
  const re = /^a=candidate:(\S+) 1 udp (\d+) (\d{1,3}(?:\.\d{1,3}){3}) (\d+) typ host\b/gim;
  for (const m of sdp.matchAll(re))
    out.push({ foundation: m[1]!, priority: m[2]!, address: m[3]!, port: Number(m[4]) });
  return out;
}

/**
 * The SDP with every media section's candidates replaced by `candidates`; its default address
 * (m= port, c=) follows the first of them, or is the "no address yet" of trickle ICE (port 9,
 * 0.0.0.0) when there are none, which makes no path of its own.
 */
export function replaceCandidates(sdp: string, candidates: string[]): string {
  const eol = sdp.includes("\r\n") ? "\r\n" : "\n";
  const first = candidates[0] ? / (\S+) (\d+) typ /.exec(candidates[0]) : null;
  const address = first?.[1] ?? "0.0.0.0";
  const port = first?.[2] ?? "9";
  const out: string[] = [];
  let inMedia = false;
  let placed = false;
  for (const line of sdp.split(eol)) {
    if (line.startsWith("m=")) {
      inMedia = true;
      placed = false;
      out.push(line.replace(/^(m=\S+ )\d+/, `$1${port}`));
      continue;
    }
    if (!inMedia) {
      out.push(line);
      continue;
    }
    if (line.startsWith("c=IN IP")) {
      out.push(`c=IN IP4 ${address}`);
      continue;
    }
    if (line.startsWith("a=candidate:")) continue;
    // Attributes come last in a media section: ours go before its first one.
    if (line.startsWith("a=") && !placed) {
      out.push(...candidates);
      placed = true;
    }
    out.push(line);
  }
  return out.join(eol);
}
