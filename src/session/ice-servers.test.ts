import { describe, expect, it } from "vitest";
import { checkIceServer, formatIceServers, parseIceServers, toRtcIceServers } from "./ice-servers";

describe("ICE server settings", () => {
  it("reads one server per line, TURN with its user name and password", () => {
    const text =
      "  stun:stun.example.com:3478\n\nturn:turn.example.com:3478?transport=tcp alice s3cret\nturns:[2001:db8::1]:5349 bob pw\nstun:10.0.0.1\n";
    const r = parseIceServers(text);
    expect(r).toEqual({
      ok: true,
      servers: [
        { urls: "stun:stun.example.com:3478" },
        { urls: "turn:turn.example.com:3478?transport=tcp", username: "alice", credential: "s3cret" },
        { urls: "turns:[2001:db8::1]:5349", username: "bob", credential: "pw" },
        { urls: "stun:10.0.0.1" },
      ],
    });
    if (r.ok) expect(parseIceServers(formatIceServers(r.servers))).toEqual(r);
  });

  it("an empty text is no servers (host candidates only)", () => {
    expect(parseIceServers("")).toEqual({ ok: true, servers: [] });
    expect(parseIceServers(" \n \n")).toEqual({ ok: true, servers: [] });
  });

  it("says which line is wrong and how", () => {
    expect(parseIceServers("stun:ok.example.com\nhttps://stun.example.com")).toEqual({
      ok: false,
      problem: { kind: "scheme", line: 2 },
    });
    expect(parseIceServers("stun.example.com:3478")).toEqual({ ok: false, problem: { kind: "scheme", line: 1 } });
    expect(parseIceServers("stun:")).toEqual({ ok: false, problem: { kind: "host", line: 1 } });
    expect(parseIceServers("stun:bad_host.example.com")).toEqual({ ok: false, problem: { kind: "host", line: 1 } });
    expect(parseIceServers("stun:host.example.com:70000")).toEqual({ ok: false, problem: { kind: "port", line: 1 } });
    expect(parseIceServers("stun:host.example.com?transport=udp")).toEqual({
      ok: false,
      problem: { kind: "host", line: 1 },
    });
    expect(parseIceServers("turn:turn.example.com alice")).toEqual({
      ok: false,
      problem: { kind: "turn-credentials", line: 1 },
    });
    expect(parseIceServers("turn:turn.example.com alice pass word")).toEqual({
      ok: false,
      problem: { kind: "turn-credentials", line: 1 },
    });
    expect(parseIceServers("stun:stun.example.com alice pw")).toEqual({
      ok: false,
      problem: { kind: "stun-credentials", line: 1 },
    });
  });

  it("checks stored entries the same way", () => {
    expect(checkIceServer({ urls: "turn:t.example.com", username: "u", credential: "p" })).toBeUndefined();
    expect(checkIceServer({ urls: "turn:t.example.com" })).toEqual({ kind: "turn-credentials", line: 1 });
  });

  it("gives the browser RTCIceServer objects", () => {
    expect(
      toRtcIceServers([
        { urls: " stun:s.example.com " },
        { urls: "turn:t.example.com", username: "u", credential: "p" },
      ]),
    ).toEqual([{ urls: "stun:s.example.com" }, { urls: "turn:t.example.com", username: "u", credential: "p" }]);
  });
});
