import { networkInterfaces, type NetworkInterfaceInfo } from "node:os";

/**
 * When the platform's ICE candidates are enough to send its offer or answer. sip.js does not
 * trickle: a description leaves once gathering completes. libwebrtc gathers a UDP host candidate
 * on every network at once (within a millisecond or two), then its TCP host candidates one
 * allocation step later (about 100 ms), and only then says complete. FreeSWITCH offers its UDP
 * RTP addresses alone, at once; so does the platform: it stops waiting when every network it has
 * (an interface's IPv4 or IPv6 addresses, IPv6 link-local aside, as libwebrtc skips them) has a
 * UDP host candidate. A network libwebrtc leaves out (or any surprise) only means waiting for the
 * complete gathering, as before.
 */
export class HostCandidates {
  private readonly networks: Map<string, string>;
  private readonly seen = new Set<string>();

  /** `interfaces`: the machine's, as os.networkInterfaces() gives them. */
  constructor(interfaces: NodeJS.Dict<NetworkInterfaceInfo[]> = networkInterfaces()) {
    this.networks = networksOf(interfaces);
  }

  /** Notes a gathered candidate (its a=candidate value); true once every network has a UDP host candidate. */
  add(candidate: string): boolean {
    const m = /^(?:candidate:)?\S+ \d+ udp \d+ (\S+) \d+ typ host\b/i.exec(candidate);
    const network = m ? this.networks.get(normalized(m[1]!)) : undefined;
    if (network) this.seen.add(network);
    return this.complete();
  }

  complete(): boolean {
    return this.networks.size > 0 && new Set(this.networks.values()).size === this.seen.size;
  }

  /** Starts over (an ICE restart gathers afresh). */
  reset(): void {
    this.seen.clear();
  }
}

/** Each address libwebrtc may gather on, with its network: the interface and the address family. */
function networksOf(interfaces: NodeJS.Dict<NetworkInterfaceInfo[]>): Map<string, string> {
  const out = new Map<string, string>();
  for (const [name, infos] of Object.entries(interfaces)) {
    for (const info of infos ?? []) {
      if (info.family === "IPv6" && /^fe[89ab]/i.test(info.address)) continue;
      out.set(normalized(info.address), `${name} ${info.family}`);
    }
  }
  return out;
}

const normalized = (address: string) => address.toLowerCase().replace(/%.*$/, "");
