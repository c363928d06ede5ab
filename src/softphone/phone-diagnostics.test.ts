import { afterEach, describe, expect, it } from "vitest";
import { Md5 } from "sip.js/lib/core/messages/md5.js";
import { diagnosticSettings } from "./phone-diagnostics";
import { resolveSettings, publicSettings } from "./settings";
import { FakeSipServer } from "./testing/fake-sip-server";
import { startPeer } from "./testing/peer";
import { startPhone, untilCall } from "./testing/phone-rig";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe("the phone's diagnostic report", () => {
  it("holds the SIP messages of a registration and a call, with the digest answer redacted and no password anywhere", async () => {
    const sw = new FakeSipServer();
    const password = "ext-token-5f4dcc3b5aa7";
    sw.passwords.set("1001", password);
    const alice = await startPhone(sw, { settings: { password } });
    cleanups.push(() => alice.phone.stop());
    const bob = await startPeer(sw, "2000");
    cleanups.push(() => bob.stop());
    const id = await alice.phone.call("2000");
    const incoming = await bob.nextInvitation();
    await incoming.accept();
    await untilCall(alice.phone, id, (c) => c.state === "active");
    await alice.phone.hangup(id);
    await untilCall(alice.phone, id, (c) => c.state === "ended");

    const report = alice.phone.diagnosticReport();
    const summaries = report.sipTrace.map((m) => `${m.direction} ${m.summary}`);
    expect(summaries.slice(0, 4)).toEqual([
      "sent REGISTER sip:pbx.test SIP/2.0",
      "received SIP/2.0 401 Unauthorized",
      "sent REGISTER sip:pbx.test SIP/2.0",
      "received SIP/2.0 200 OK",
    ]);
    expect(summaries).toContain("sent INVITE sip:2000@pbx.test SIP/2.0");
    expect(summaries.some((m) => m.startsWith("sent BYE "))).toBe(true);
    const answered = report.sipTrace[2]!.text;
    expect(answered).toMatch(/Authorization: Digest .*username="1001".*response="\[redacted\]"/);
    // The digest answer the phone really sent is nowhere in the report.
    const realResponse = /response="([0-9a-f]{32})"/.exec(
      sw.wire.find((r) => r.direction === "from-ua" && /^REGISTER/.test(r.raw) && /Authorization/i.test(r.raw))!.raw,
    )![1]!;
    const everything = JSON.stringify(report);
    expect(everything).not.toContain(realResponse);
    expect(everything).not.toContain(password);
    expect(everything).not.toContain(Md5.hashStr(`1001:pbx.test:${password}`));

    expect(report.registrations.map((r) => r.status)).toEqual(
      expect.arrayContaining(["connecting", "registering", "registered"]),
    );
    expect(report.registrations.every((r) => typeof r.at === "number")).toBe(true);
    expect(report.calls.map((c) => c.state)).toEqual(["ended"]);
    expect(report.settings).toMatchObject({ server: "wss://pbx.test/sip", user: "1001" });
  });
});

describe("diagnosticSettings", () => {
  it("keeps what the phone uses but no TURN credential, REGISTER header value or secret in the server address", () => {
    const s = publicSettings(
      resolveSettings({
        server: "wss://pbx.example.com/sip?token=tk-123",
        address: "1001@pbx.example.com",
        password: "pw",
        iceServers: [
          {
            urls: ["turn:turn.example.com:3478?transport=udp"],
            username: "1700000000:1001",
            credential: "hmac-secret",
          },
          { urls: "stun:stun.example.com" },
        ],
        registerHeaders: ["X-Tenant-Token: abc123"],
      }),
    );
    const d = diagnosticSettings(s);
    expect(d.server).toBe("wss://pbx.example.com/sip?token=[redacted]");
    expect(d.iceServers).toEqual([
      { urls: ["turn:turn.example.com:3478?transport=udp"], withCredential: true },
      { urls: ["stun:stun.example.com"], withCredential: false },
    ]);
    expect(d.registerHeaders).toEqual(["X-Tenant-Token"]);
    const text = JSON.stringify(d);
    for (const secret of ["tk-123", "1700000000:1001", "hmac-secret", "abc123", '"pw"'])
      expect(text).not.toContain(secret);
  });
});
