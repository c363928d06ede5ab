import type { NetworkInterfaceInfo } from "node:os";
import { describe, expect, it } from "vitest";
import { HostCandidates } from "./host-candidates";

const info = (address: string, family: "IPv4" | "IPv6"): NetworkInterfaceInfo =>
  ({ address, family, netmask: "", mac: "", internal: false, cidr: null, scopeid: 0 }) as NetworkInterfaceInfo;

/** A machine like a developer's: loopback, a LAN card with IPv4, two global IPv6 addresses and a link-local one. */
const machine = {
  lo: [info("127.0.0.1", "IPv4"), info("::1", "IPv6")],
  eth0: [
    info("192.168.1.20", "IPv4"),
    info("2001:db8::20", "IPv6"),
    info("2001:db8::b1f3:9a2e", "IPv6"),
    info("fe80::fc:ff:fe00:1", "IPv6"),
  ],
};

const udp = (address: string, port = 50000) =>
  `candidate:3229573512 1 udp 2122194687 ${address} ${port} typ host generation 0 ufrag uPJT network-id 1`;
const tcp = (address: string) =>
  `candidate:2398920056 1 tcp 1518214911 ${address} 40289 typ host tcptype passive generation 0 ufrag uPJT network-id 1`;

describe("HostCandidates", () => {
  it("is complete once every network (interface and family) has a UDP host candidate, link-local aside", () => {
    const hosts = new HostCandidates(machine);
    expect(hosts.add(udp("2001:db8::b1f3:9a2e"))).toBe(false);
    expect(hosts.add(udp("192.168.1.20"))).toBe(false);
    expect(hosts.add(udp("::1"))).toBe(false);
    // One of eth0's IPv6 addresses is enough: libwebrtc gathers on one address of a network.
    expect(hosts.add(udp("127.0.0.1"))).toBe(true);
    expect(hosts.complete()).toBe(true);
  });

  it("counts neither TCP candidates, nor server-reflexive ones, nor addresses the machine does not have", () => {
    const hosts = new HostCandidates({ eth0: [info("192.168.1.20", "IPv4")] });
    expect(hosts.add(tcp("192.168.1.20"))).toBe(false);
    expect(hosts.add("candidate:1 1 udp 1686052607 203.0.113.9 50000 typ srflx raddr 192.168.1.20 rport 50000")).toBe(
      false,
    );
    expect(hosts.add(udp("192.168.1.99"))).toBe(false);
    expect(hosts.add(udp("192.168.1.20"))).toBe(true);
  });

  it("is never complete on a machine that lists no address (the whole gathering is waited for)", () => {
    const hosts = new HostCandidates({});
    expect(hosts.add(udp("127.0.0.1"))).toBe(false);
  });

  it("starts over after reset (an ICE restart)", () => {
    const hosts = new HostCandidates({ lo: [info("127.0.0.1", "IPv4")] });
    expect(hosts.add(udp("127.0.0.1"))).toBe(true);
    hosts.reset();
    expect(hosts.complete()).toBe(false);
    expect(hosts.add(udp("127.0.0.1", 50002))).toBe(true);
  });
});
