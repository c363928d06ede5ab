import { afterEach, describe, expect, it, vi } from "vitest";
import type { AutoAnswerPolicy } from "./auto-answer";
import type { PhoneEventMap } from "./phone-events";
import { FakeSipServer, isResponse, type WireRecord } from "./testing/fake-sip-server";
import { ServerCall, type ServerCallOptions } from "./testing/server-call";
import { startPeer } from "./testing/peer";
import { settle, startPhone, until, untilCall, type PhoneRig } from "./testing/phone-rig";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  vi.useRealTimers();
  for (const c of cleanups.splice(0).reverse()) await c();
});

const okFromAlice = (r: WireRecord) => r.direction === "from-ua" && r.user === "1001" && isResponse(r, 200, "INVITE");

async function phoneWith(policy: AutoAnswerPolicy, sw = new FakeSipServer()) {
  const rig = await startPhone(sw, { settings: { autoAnswer: policy, keepAlive: { mode: "off" } } });
  cleanups.push(() => rig.phone.stop());
  const autoAnswers: Array<PhoneEventMap["auto-answer"]> = [];
  rig.phone.on("auto-answer", (e) => autoAnswers.push(e));
  return { sw, rig, autoAnswers };
}

async function ring(rig: PhoneRig, options: Omit<ServerCallOptions, "to">) {
  const server = new ServerCall(rig.sw, { to: "1001", ...options }).invite();
  const s = await until(rig.phone.callsStore, (s) =>
    s.calls.some((c) => c.direction === "inbound" && c.state !== "ended"),
  );
  return { server, id: s.calls.find((c) => c.direction === "inbound" && c.state !== "ended")!.id };
}

const variants: Array<[string, Omit<ServerCallOptions, "to">, string]> = [
  [
    "Call-Info answer-after=0 (FreeSWITCH sip_auto_answer)",
    { headers: ["Call-Info: <sip:10.0.0.1>;answer-after=0"], requestUriParams: ";intercom=true" },
    "call-info",
  ],
  ["intercom=true in the Request-URI", { requestUriParams: ";intercom=true" }, "intercom"],
  [
    "Alert-Info info=alert-autoanswer",
    { headers: ["Alert-Info: <http://www.notused.com>;info=alert-autoanswer;delay=0"] },
    "alert-info",
  ],
  ["Alert-Info: Auto Answer", { headers: ["Alert-Info: Auto Answer"] }, "alert-info"],
  ["Alert-Info: Ring Answer", { headers: ["Alert-Info: Ring Answer"] }, "alert-info"],
  ["Answer-Mode: Auto", { headers: ["Answer-Mode: Auto"] }, "answer-mode"],
  ["P-Auto-Answer: normal", { headers: ["P-Auto-Answer: normal"] }, "p-auto-answer"],
];

describe("auto-answer on the wire", () => {
  it.each(variants)("answers a platform leg marked with %s", async (_name, options, source) => {
    const { sw, rig, autoAnswers } = await phoneWith("platform");
    const { id } = await ring(rig, options);
    await sw.waitFor(okFromAlice);
    const c = await untilCall(rig.phone, id, (c) => c.state === "active");
    expect(c.autoAnswer).toMatchObject({ decidedBy: "policy", afterSec: 0, marker: { source } });
    expect(autoAnswers).toEqual([
      expect.objectContaining({ callId: id, afterSec: 0, marker: expect.objectContaining({ source }) }),
    ]);
  });

  it("'platform' answers a marked leg of the platform behind a proxy (two Vias, the bottom one the media server's)", async () => {
    const { sw, rig, autoAnswers } = await phoneWith("platform");
    const { id } = await ring(rig, {
      vias: "behind-proxy",
      headers: ["Call-Info: <sip:10.0.0.5>;answer-after=0"],
      requestUriParams: ";intercom=true",
    });
    await sw.waitFor(okFromAlice);
    const c = await untilCall(rig.phone, id, (c) => c.state === "active");
    expect(c.autoAnswer).toMatchObject({ decidedBy: "policy", marker: { source: "call-info" } });
    expect(autoAnswers).toHaveLength(1);
  });

  it("is answered within one settle(), so the checks below that a call was not answered wait long enough", async () => {
    const { sw, rig } = await phoneWith("platform");
    const m = sw.mark();
    const { id } = await ring(rig, { headers: ["Call-Info: <sip:10.0.0.1>;answer-after=0"] });
    await settle();
    expect(sw.records(okFromAlice, m)).toHaveLength(1);
    expect(rig.call(id).state).toBe("active");
  });

  it("'platform' lets a marked call relayed from a peer ring", async () => {
    const { sw, rig, autoAnswers } = await phoneWith("platform");
    const { id } = await ring(rig, { vias: 2, headers: ["Call-Info: <sip:10.0.0.1>;answer-after=0"] });
    await settle();
    expect(rig.call(id).state).toBe("ringing");
    expect(rig.call(id).autoAnswer).toBeUndefined();
    expect(sw.records(okFromAlice)).toEqual([]);
    expect(autoAnswers).toEqual([]);
  });

  it("'platform' also ignores a marker a peer wrote through a real proxy hop", async () => {
    const { sw, rig } = await phoneWith("platform");
    const peer = await startPeer(sw, "2000");
    cleanups.push(() => peer.stop());
    const { Inviter, UserAgent } = await import("sip.js");
    await new Inviter(peer.ua, UserAgent.makeURI("sip:1001@pbx.test;intercom=true")!, {
      extraHeaders: ["Call-Info: <sip:evil>;answer-after=0"],
    }).invite();
    await until(rig.phone.callsStore, (s) => s.calls.some((c) => c.state === "ringing"));
    await settle();
    expect(rig.phone.callsStore.getState().calls[0]?.state).toBe("ringing");
    expect(sw.records(okFromAlice)).toEqual([]);
  });

  it("'always' answers a marked call from anyone", async () => {
    const { sw, rig } = await phoneWith("always");
    const { id } = await ring(rig, { vias: 2, headers: ["Answer-Mode: Auto"] });
    await sw.waitFor(okFromAlice);
    await untilCall(rig.phone, id, (c) => c.state === "active");
  });

  it("'never' lets every call ring", async () => {
    const { sw, rig } = await phoneWith("never");
    const { id } = await ring(rig, {
      headers: ["Call-Info: <sip:10.0.0.1>;answer-after=0"],
      requestUriParams: ";intercom=true",
    });
    await settle();
    expect(rig.call(id).state).toBe("ringing");
    expect(sw.records(okFromAlice)).toEqual([]);
  });

  it("never answers an unmarked call by itself", async () => {
    const { sw, rig } = await phoneWith("always");
    const { id } = await ring(rig, {});
    await settle();
    expect(rig.call(id).state).toBe("ringing");
    expect(sw.records(okFromAlice)).toEqual([]);
  });

  it("waits answer-after seconds, announcing it first so the UI can play a cue", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"] });
    const { sw, rig, autoAnswers } = await phoneWith("platform");
    const t0 = Date.now();
    const { id } = await ring(rig, { headers: ["Call-Info: <sip:10.0.0.1>;answer-after=3"] });
    expect(autoAnswers).toEqual([expect.objectContaining({ callId: id, afterSec: 3 })]);
    expect(rig.call(id).autoAnswer?.answerAt).toBe(t0 + 3000);
    await vi.advanceTimersByTimeAsync(2999);
    expect(sw.records(okFromAlice)).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    await sw.waitFor(okFromAlice);
  });

  it("does not answer a call the caller gave up on during the delay", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"] });
    const { sw, rig } = await phoneWith("platform");
    const { id, server } = await ring(rig, { headers: ["Call-Info: <sip:10.0.0.1>;answer-after=5"] });
    server.cancel();
    await untilCall(rig.phone, id, (c) => c.state === "ended");
    await vi.advanceTimersByTimeAsync(10_000);
    expect(sw.records(okFromAlice)).toEqual([]);
  });

  it("lets a marked call ring while another call is talking, and says why", async () => {
    const { sw, rig } = await phoneWith("platform");
    const bob = await startPeer(sw, "2000");
    cleanups.push(() => bob.stop());
    const talking = await rig.phone.call("2000");
    await (await bob.nextInvitation()).accept();
    await untilCall(rig.phone, talking, (c) => c.state === "active");
    const { id } = await ring(rig, { headers: ["Call-Info: <sip:10.0.0.1>;answer-after=0"] });
    await settle();
    expect(rig.call(id).state).toBe("ringing");
    expect(rig.phone.phoneStore.getState().notices.at(-1)).toMatchObject({
      kind: "auto-answer-skipped",
      callId: id,
      reason: "busy",
    });
  });
});

describe("the call-center layer's say", () => {
  it("can answer an unmarked call, veto a marked one, or turn one away with 486", async () => {
    const { sw, rig, autoAnswers } = await phoneWith("platform");
    rig.phone.setIncomingCallHandler((incoming) => {
      const queue = incoming.header("X-CC-Queue");
      if (queue === "sales") return { context: { queue }, autoAnswer: true };
      if (queue === "support") return { autoAnswer: false };
      if (queue === "closed") return { reject: 486 };
    });
    const sales = await ring(rig, { headers: ["X-CC-Queue: sales"] });
    await untilCall(rig.phone, sales.id, (c) => c.state === "active");
    expect(rig.call(sales.id)).toMatchObject({ context: { queue: "sales" }, autoAnswer: { decidedBy: "handler" } });
    expect(autoAnswers.map((e) => e.callId)).toEqual([sales.id]);
    await rig.phone.hangup(sales.id);

    const support = await ring(rig, { headers: ["X-CC-Queue: support", "Call-Info: <sip:10.0.0.1>;answer-after=0"] });
    await settle();
    expect(rig.call(support.id).state).toBe("ringing");
    await rig.phone.reject(support.id);

    const closed = await ring(rig, { headers: ["X-CC-Queue: closed"] });
    await sw.waitFor((r) => r.direction === "from-ua" && isResponse(r, 486));
    expect((await untilCall(rig.phone, closed.id, (c) => c.state === "ended")).end).toMatchObject({
      kind: "busy",
      status: 486,
    });
  });

  it("can have a call start muted (a call given back that the user had muted): nothing is sent from the answer on", async () => {
    const { rig } = await phoneWith("platform");
    rig.phone.setIncomingCallHandler(() => ({ autoAnswer: true, muted: true }));
    const { id } = await ring(rig, {});
    const c = await untilCall(rig.phone, id, (c) => c.state === "active");
    expect(c.muted).toBe(true);
    expect(rig.sdh(id).senderTrack?.enabled).toBe(false);
    rig.phone.setMuted(id, false);
    expect(rig.sdh(id).senderTrack?.enabled).toBe(true);
  });
});

describe("a microphone opened ahead of a leg (warmMicrophone)", () => {
  const marked = { headers: ["Call-Info: <sip:10.0.0.1>;answer-after=0"], requestUriParams: ";intercom=true" };

  it("is the one the leg answered by itself takes: the answer does not wait for the browser to open one", async () => {
    const { sw, rig } = await phoneWith("platform");
    rig.phone.warmMicrophone(20_000);
    await vi.waitFor(() => expect(rig.devices.opened).toHaveLength(1));
    // From here on the browser would never open another: an answer that asked for one would hang.
    rig.devices.holdNext = new Promise(() => {});
    const { id } = await ring(rig, marked);
    await sw.waitFor(okFromAlice);
    await untilCall(rig.phone, id, (c) => c.state === "active");
    expect(rig.devices.opened).toHaveLength(1);
    expect(rig.devices.opened[0]!.getAudioTracks()[0]!.stopped).toBe(false);
  });

  it("is stopped at once when the call is given up", async () => {
    const { rig } = await phoneWith("platform");
    const giveUp = rig.phone.warmMicrophone(20_000);
    await vi.waitFor(() => expect(rig.devices.opened).toHaveLength(1));
    giveUp();
    await vi.waitFor(() => expect(rig.devices.opened[0]!.getAudioTracks()[0]!.stopped).toBe(true));
  });

  it("is stopped when no call takes it in time, and the next call opens its own", async () => {
    const { sw, rig } = await phoneWith("platform");
    rig.phone.warmMicrophone(30);
    await vi.waitFor(() => expect(rig.devices.opened[0]?.getAudioTracks()[0]?.stopped).toBe(true));
    const { id } = await ring(rig, marked);
    await sw.waitFor(okFromAlice);
    await untilCall(rig.phone, id, (c) => c.state === "active");
    expect(rig.devices.opened).toHaveLength(2);
    expect(rig.devices.opened[1]!.getAudioTracks()[0]!.stopped).toBe(false);
  });
});
