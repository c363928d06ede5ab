import { Inviter, SessionState, UserAgent, type Invitation } from "sip.js";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ENDED_CALLS_KEPT } from "./calls-store";
import { FakeSipServer, isRequest, isResponse, type RequestRecord, type WireRecord } from "./testing/fake-sip-server";
import { ServerCall } from "./testing/server-call";
import { startPeer, type Peer } from "./testing/peer";
import { FakeAudioElement } from "./testing/mock-media";
import { settle, startPhone, until, untilCall, type PhoneRig } from "./testing/phone-rig";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(options: Parameters<typeof startPhone>[1] = {}) {
  const sw = new FakeSipServer();
  const alice = await startPhone(sw, options);
  cleanups.push(() => alice.phone.stop());
  const bob = await startPeer(sw, "2000");
  cleanups.push(() => bob.stop());
  return { sw, alice, bob };
}

const fromAlice =
  (method: string) =>
  (r: WireRecord): r is RequestRecord =>
    r.direction === "from-ua" && r.user === "1001" && isRequest(r, method);
const responseFromAlice = (status: number) => (r: WireRecord) =>
  r.direction === "from-ua" && r.user === "1001" && isResponse(r, status);

/** bob calls alice; resolves with the call id in alice's store and bob's session. */
async function bobCalls(alice: PhoneRig, bob: Peer, headers: string[] = []): Promise<{ id: string; inviter: Inviter }> {
  const inviter = new Inviter(bob.ua, UserAgent.makeURI("sip:1001@pbx.test")!, {
    extraHeaders: headers,
    params: { fromDisplayName: "Bob" },
  });
  await inviter.invite();
  const s = await until(alice.phone.callsStore, (s) =>
    s.calls.some((c) => c.direction === "inbound" && c.state === "ringing"),
  );
  return { id: s.calls.find((c) => c.state === "ringing")!.id, inviter };
}

describe("outgoing calls", () => {
  it("dials, shows 180 as ringback and 183 as early media, then talks and hangs up with BYE", async () => {
    const { sw, alice, bob } = await setup();
    const id = await alice.phone.call("20-00");
    const invite = await sw.waitFor(fromAlice("INVITE"));
    expect(invite.message.ruri?.toString()).toBe("sip:2000@pbx.test");
    expect(alice.call(id)).toMatchObject({ direction: "outbound", remote: { number: "2000" } });

    const incoming = await bob.nextInvitation();
    // sip.js's peer sent 180 Ringing without SDP: the UI plays its own ringback.
    let c = await untilCall(alice.phone, id, (c) => c.progress?.status === 180);
    expect(c).toMatchObject({ state: "early", progress: { status: 180, earlyMedia: false } });
    expect(alice.audio).toHaveLength(0);

    await incoming.progress({ statusCode: 183 });
    c = await untilCall(alice.phone, id, (c) => c.progress?.status === 183);
    expect(c.progress).toMatchObject({ earlyMedia: true });
    // The far end's early audio plays through the call's audio element.
    expect(alice.audio).toHaveLength(1);
    expect(alice.audio[0]!.srcObject).toBe(alice.sdh(id).remoteMediaStream);
    expect(alice.audio[0]!.plays).toBeGreaterThan(0);

    await incoming.accept();
    c = await untilCall(alice.phone, id, (c) => c.state === "active");
    expect(c.answeredAt).toBeTypeOf("number");
    expect(alice.sdh(id).senderTrack?.enabled).toBe(true);

    const m = sw.mark();
    await alice.phone.hangup(id);
    await sw.waitFor(fromAlice("BYE"), m);
    c = await untilCall(alice.phone, id, (c) => c.state === "ended");
    expect(c.end).toEqual({ kind: "hangup", by: "local" });
    expect(incoming.state).toBe(SessionState.Terminated);
    expect(alice.phone.diagnostics()).toMatchObject({ sessions: 0, userAgentSessions: 0, audioElements: 0 });
    expect(alice.audio[0]!.srcObject).toBeNull();
  });

  it("stays active when the answer overtakes the 183's early media being set up", async () => {
    const { alice, bob } = await setup();
    const id = await alice.phone.call("2000");
    const incoming = await bob.nextInvitation();
    let applyEarlyAnswer!: () => void;
    alice.sdh(id).holdNextSetDescription = new Promise<void>((resolve) => (applyEarlyAnswer = resolve));
    await incoming.progress({ statusCode: 183 });
    await incoming.accept();
    await untilCall(alice.phone, id, (c) => c.state === "active");
    // sip.js reports the 183 only once its early answer is applied, after the 200 made the call active.
    applyEarlyAnswer();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(alice.call(id).state).toBe("active");
  });

  it("cancels a call that is still ringing", async () => {
    const { sw, alice, bob } = await setup();
    const id = await alice.phone.call("2000");
    await bob.nextInvitation();
    await untilCall(alice.phone, id, (c) => c.state === "early");
    await alice.phone.hangup(id);
    await sw.waitFor(fromAlice("CANCEL"));
    const c = await untilCall(alice.phone, id, (c) => c.state === "ended");
    expect(c.end).toMatchObject({ kind: "cancelled", by: "local" });
  });

  it("says 'busy' when the far end answers 486", async () => {
    const { alice, bob } = await setup();
    const id = await alice.phone.call("2000");
    const incoming = await bob.nextInvitation();
    await incoming.reject({ statusCode: 486 });
    const c = await untilCall(alice.phone, id, (c) => c.state === "ended");
    expect(c.end).toMatchObject({ kind: "busy", by: "remote", status: 486 });
  });

  it("refuses garbage numbers with the reason, sending nothing", async () => {
    const { sw, alice } = await setup();
    const m = sw.mark();
    await expect(alice.phone.call("call me maybe")).rejects.toMatchObject({
      kind: "invalid-number",
      detail: "letters",
    });
    expect(sw.records(fromAlice("INVITE"), m)).toEqual([]);
    expect(alice.phone.callsStore.getState().calls).toEqual([]);
  });

  it("does not dial when the microphone is refused", async () => {
    const { sw, alice } = await setup();
    alice.devices.failWith = { name: "NotAllowedError" };
    await expect(alice.phone.call("2000")).rejects.toMatchObject({ kind: "microphone", detail: "permission-denied" });
    expect(sw.records(fromAlice("INVITE"))).toEqual([]);
    expect(alice.phone.phoneStore.getState().notices.at(-1)).toMatchObject({ kind: "microphone-unavailable" });
  });
});

describe("incoming calls", () => {
  it("shows the caller's asserted name and number, gives the call-center layer the raw headers first", async () => {
    const { alice, bob } = await setup();
    const seen: Array<{ queue?: string; order: string }> = [];
    let names: string[] = [];
    alice.phone.setIncomingCallHandler((incoming) => {
      names = incoming.headerNames();
      seen.push({
        queue: incoming.header("X-Queue"),
        order: alice.phone.callsStore.getState().calls.length === 0 ? "before the store" : "after",
      });
      return { context: { queue: incoming.header("x-queue") ?? "?" } };
    });
    alice.phone.on("incoming-call", (e) => seen.push({ order: `event:${e.call.context.queue}` }));
    const { id } = await bobCalls(alice, bob, [
      'P-Asserted-Identity: "Customer Care" <sip:+15551234@pbx.test>',
      "X-Queue: support",
      "X-IVR-Account: 12345",
    ]);
    // The names as the server wrote them (sip.js's own parse spells this one X-Ivr-Account), once each.
    expect(names.filter((n) => n.startsWith("X-"))).toEqual(["X-Queue", "X-IVR-Account"]);
    expect(names).toContain("Via");
    expect(new Set(names.map((n) => n.toLowerCase())).size).toBe(names.length);
    expect(seen).toEqual([{ queue: "support", order: "before the store" }, { order: "event:support" }]);
    expect(alice.call(id)).toMatchObject({
      state: "ringing",
      remote: { number: "+15551234", name: "Customer Care" },
      context: { queue: "support" },
    });
    // Reading headers does not consume them (sip.js's parseHeader would delete unknown ones).
    expect(alice.phone.header(id, "X-Queue")).toBe("support");
    expect(alice.phone.header(id, "p-asserted-identity")).toBe('"Customer Care" <sip:+15551234@pbx.test>');
    expect(alice.phone.headers(id, "X-Missing")).toEqual([]);
  });

  it("answers with 200 and plays the remote audio", async () => {
    const { sw, alice, bob } = await setup();
    const { id, inviter } = await bobCalls(alice, bob);
    await alice.phone.answer(id);
    await sw.waitFor(responseFromAlice(200));
    await untilCall(alice.phone, id, (c) => c.state === "active");
    await until(
      {
        getState: () => inviter.state,
        subscribe: (l: () => void) => (inviter.stateChange.addListener(l), () => inviter.stateChange.removeListener(l)),
      } as never,
      (s) => s === SessionState.Established,
    );
    expect(alice.audio[0]?.srcObject).toBe(alice.sdh(id).remoteMediaStream);
    // The microphone the phone opened before answering is the one sent.
    expect(alice.sdh(id).senderTrack).toBe(alice.devices.opened.at(-1)?.getAudioTracks()[0]);
  });

  it("rejects with 603 Decline by default and 486 Busy on request, never 480", async () => {
    const { sw, alice, bob } = await setup();
    const first = await bobCalls(alice, bob);
    await alice.phone.reject(first.id);
    await sw.waitFor(responseFromAlice(603));
    expect((await untilCall(alice.phone, first.id, (c) => c.state === "ended")).end).toMatchObject({
      kind: "declined",
      by: "local",
      status: 603,
    });

    const second = await bobCalls(alice, bob);
    await alice.phone.reject(second.id, 486);
    await sw.waitFor(responseFromAlice(486));
    expect((await untilCall(alice.phone, second.id, (c) => c.state === "ended")).end).toMatchObject({
      kind: "busy",
      status: 486,
    });

    const third = await bobCalls(alice, bob);
    const m = sw.mark();
    await alice.phone.hangup(third.id);
    await sw.waitFor(responseFromAlice(603), m);
    expect(sw.records(responseFromAlice(480))).toEqual([]);
  });

  it("makes the answer while the call rings (microphone off, nothing sent), so that Answer only sends it", async () => {
    const { sw, alice, bob } = await setup();
    const { id } = await bobCalls(alice, bob);
    await vi.waitFor(() => expect(alice.sdh(id).answers).toHaveLength(1));
    const sdh = alice.sdh(id);
    expect(alice.devices.opened).toHaveLength(1);
    expect(sdh.senderTrack).toBe(alice.devices.opened[0]!.getAudioTracks()[0]);
    expect(sdh.senderTrack?.enabled).toBe(false);
    // The (still silent) remote stream already plays: the audio output is running when media comes.
    expect(alice.audio).toHaveLength(1);
    expect(alice.audio[0]).toMatchObject({ srcObject: sdh.remoteMediaStream, paused: false });
    expect(
      sw.records(
        (r) => r.direction === "from-ua" && r.user === "1001" && isResponse(r) && (r.message.statusCode ?? 0) >= 200,
      ),
    ).toEqual([]);

    // Answer only sends: the call goes from ringing to active in one go, and the store's listeners
    // (the screen, other tabs, a CRM) run after the 200 OK is out, not before it.
    const states: string[] = [];
    const unsubscribe = alice.phone.callsStore.subscribe((st) => {
      const state = st.calls.find((c) => c.id === id)?.state;
      if (state && state !== states.at(-1)) states.push(state);
    });
    await alice.phone.answer(id);
    unsubscribe();
    expect(states).toEqual(["active"]);
    const ok = await sw.waitFor(responseFromAlice(200));
    expect(ok.message.body).toContain(sdh.answers[0]!.split("\r\n")[1]);
    expect(sdh.answers).toHaveLength(1);
    expect(sdh.remoteDescriptions).toHaveLength(1);
    expect(alice.devices.opened).toHaveLength(1);
    expect((await untilCall(alice.phone, id, (c) => c.state === "active")).answeredAt).toBeTypeOf("number");
    expect(sdh.senderTrack?.enabled).toBe(true);
    expect(alice.audio).toHaveLength(1);
    expect(alice.audio[0]).toMatchObject({ srcObject: sdh.remoteMediaStream, paused: false });
  });

  it("turns a call away as ever while its answer is made: 603 or 486, its microphone stopped, its peer connection closed", async () => {
    const { sw, alice, bob } = await setup();
    // Turned away while the microphone opens: the stream that comes after is stopped, no handler is made.
    let release!: () => void;
    alice.devices.holdNext = new Promise((r) => (release = r));
    const first = await bobCalls(alice, bob);
    await alice.phone.reject(first.id);
    await sw.waitFor(responseFromAlice(603));
    release();
    await vi.waitFor(() => expect(alice.devices.opened).toHaveLength(1));
    await settle();
    expect(alice.devices.opened[0]!.getAudioTracks()[0]!.stopped).toBe(true);
    expect(alice.media.handlers.filter((h) => !h.closed)).toEqual([]);

    // Turned away once the answer is made: its peer connection and microphone go with the call.
    const second = await bobCalls(alice, bob);
    await vi.waitFor(() => expect(alice.sdh(second.id).answers).toHaveLength(1));
    const sdh = alice.sdh(second.id);
    await alice.phone.reject(second.id, 486);
    await sw.waitFor(responseFromAlice(486));
    await untilCall(alice.phone, second.id, (c) => c.state === "ended");
    expect(sdh.closed).toBe(true);
    expect(alice.devices.opened[1]!.getAudioTracks()[0]!.stopped).toBe(true);
    // The remote audio it played ahead of the answer stops with it.
    expect(alice.audio.at(-1)).toMatchObject({ srcObject: null, paused: true });

    // Cancelled by the caller: the same.
    const third = await bobCalls(alice, bob);
    await vi.waitFor(() => expect(alice.sdh(third.id).answers).toHaveLength(1));
    const cancelled = alice.sdh(third.id);
    await third.inviter.cancel();
    await untilCall(alice.phone, third.id, (c) => c.state === "ended");
    expect(cancelled.closed).toBe(true);
    expect(alice.devices.opened[2]!.getAudioTracks()[0]!.stopped).toBe(true);
    expect(sw.records(responseFromAlice(480))).toEqual([]);
  });

  it("tells a caller who gave up from a call answered elsewhere", async () => {
    const { alice, bob, sw } = await setup();
    const { id, inviter } = await bobCalls(alice, bob);
    await inviter.cancel();
    expect((await untilCall(alice.phone, id, (c) => c.state === "ended")).end).toMatchObject({
      kind: "cancelled",
      by: "remote",
    });

    const platform = new ServerCall(sw, { to: "1001" }).invite();
    const s = await until(alice.phone.callsStore, (s) => s.calls.some((c) => c.state === "ringing"));
    const id2 = s.calls.find((c) => c.state === "ringing")!.id;
    platform.cancel('SIP;cause=200;text="Call completed elsewhere"');
    const c = await untilCall(alice.phone, id2, (c) => c.state === "ended");
    expect(c.end).toMatchObject({
      kind: "completed-elsewhere",
      by: "remote",
      reasons: [{ protocol: "SIP", cause: 200 }],
    });
  });

  it("keeps ringing when the microphone is refused, and sends no final answer", async () => {
    const { sw, alice, bob } = await setup();
    // Refused from the start: the answer made while the call rings finds no microphone either.
    alice.devices.failWith = { name: "NotAllowedError" };
    const { id } = await bobCalls(alice, bob);
    await expect(alice.phone.answer(id)).rejects.toMatchObject({ kind: "microphone", detail: "permission-denied" });
    await settle();
    expect(alice.call(id).state).toBe("ringing");
    expect(
      sw.records(
        (r) => r.direction === "from-ua" && r.user === "1001" && isResponse(r) && (r.message.statusCode ?? 0) >= 200,
      ),
    ).toEqual([]);
    alice.devices.failWith = undefined;
    await alice.phone.answer(id);
    await untilCall(alice.phone, id, (c) => c.state === "active");
  });
});

describe("in a call", () => {
  async function talking() {
    const env = await setup();
    const id = await env.alice.phone.call("2000");
    const incoming: Invitation = await env.bob.nextInvitation();
    await incoming.accept();
    await untilCall(env.alice.phone, id, (c) => c.state === "active");
    return { ...env, id, incoming };
  }

  it("mutes by silencing the microphone track, without signalling", async () => {
    const { sw, alice, id } = await talking();
    const m = sw.mark();
    alice.phone.setMuted(id, true);
    expect(alice.sdh(id).senderTrack?.enabled).toBe(false);
    expect(alice.call(id).muted).toBe(true);
    alice.phone.setMuted(id, false);
    expect(alice.sdh(id).senderTrack?.enabled).toBe(true);
    await settle();
    expect(sw.records((r) => r.direction === "from-ua" && r.user === "1001", m)).toEqual([]);
  });

  it("sends DTMF as RFC 4733 by default, through the media", async () => {
    const { sw, alice, id } = await talking();
    const m = sw.mark();
    await alice.phone.sendDtmf(id, "12#");
    expect(alice.sdh(id).dtmf).toEqual([{ tones: "12#", options: { duration: 100, interToneGap: 70 } }]);
    await settle();
    expect(sw.records(fromAlice("INFO"), m)).toEqual([]);
    expect(alice.call(id).dtmf).toEqual({ sent: "12#", mode: "rfc4733" });
  });

  it("keeps the tones still waiting to be played when another key is pressed (insertDTMF replaces them)", async () => {
    const { alice, id } = await talking();
    await alice.phone.sendDtmf(id, "1");
    // The sender is still playing "1" with "59" queued behind it when "#" is pressed.
    alice.sdh(id).senders[0]!.dtmf.toneBuffer = "59";
    await alice.phone.sendDtmf(id, "#");
    expect(alice.sdh(id).dtmf.map((d) => d.tones)).toEqual(["1", "59#"]);
    expect(alice.call(id).dtmf.sent).toBe("1#");
  });

  it("sends DTMF as SIP INFO application/dtmf-relay when so configured, one request per tone", async () => {
    const { sw, alice, id } = await talking();
    alice.phone.updateSettings({ dtmfMode: "info", dtmfDurationMs: 160 });
    await alice.phone.sendDtmf(id, "5*");
    const infos = sw.records(fromAlice("INFO"));
    expect(infos.map((r) => r.message.body)).toEqual(["Signal=5\r\nDuration=160", "Signal=*\r\nDuration=160"]);
    expect(infos[0]?.message.getHeader("Content-Type")).toBe("application/dtmf-relay");
    expect(alice.sdh(id).dtmf).toEqual([]);
  });

  it("falls back to SIP INFO when RFC 4733 is not possible", async () => {
    const { sw, alice, id } = await talking();
    alice.sdh(id).dtmfWorks = false;
    await alice.phone.sendDtmf(id, "9");
    expect(sw.records(fromAlice("INFO")).map((r) => r.message.body)).toEqual(["Signal=9\r\nDuration=100"]);
    expect(alice.call(id).dtmf.mode).toBe("info");
    expect(alice.phone.phoneStore.getState().notices.at(-1)).toMatchObject({ kind: "dtmf-fallback", callId: id });
  });

  it("refuses DTMF that is not DTMF", async () => {
    const { alice, id } = await talking();
    await expect(alice.phone.sendDtmf(id, "12x")).rejects.toMatchObject({ kind: "invalid-dtmf" });
  });

  it("knows who hung up", async () => {
    const { alice, id, incoming } = await talking();
    await incoming.bye();
    expect((await untilCall(alice.phone, id, (c) => c.state === "ended")).end).toEqual({
      kind: "hangup",
      by: "remote",
    });
  });
});

describe("audio playback", () => {
  it("says when the browser blocks autoplay, and plays again on resumeAudio() from a click", async () => {
    let allowed = false;
    const elements: FakeAudioElement[] = [];
    const { alice, bob } = await setup({
      env: {
        createAudioElement: () => {
          const e = new FakeAudioElement();
          const play = e.play.bind(e);
          e.play = () =>
            allowed ? play() : Promise.reject(Object.assign(new Error("autoplay"), { name: "NotAllowedError" }));
          elements.push(e);
          return e;
        },
      },
    });
    const id = await alice.phone.call("2000");
    await (await bob.nextInvitation()).accept();
    await untilCall(alice.phone, id, (c) => c.state === "active");
    await until(alice.phone.phoneStore, (s) => s.notices.some((n) => n.kind === "audio-blocked" && n.callId === id));
    expect(elements[0]!.paused).toBe(true);
    allowed = true;
    alice.phone.resumeAudio();
    await settle();
    expect(elements[0]!.paused).toBe(false);
  });
});

describe("resources", () => {
  // Forty calls: on a busy machine this takes longer than the default five seconds.
  it("lets go of every session, listener and audio element after many calls", async () => {
    const { alice, bob } = await setup();
    for (let i = 0; i < 40; i++) {
      const id = await alice.phone.call("2000");
      const incoming = await bob.nextInvitation();
      if (i % 3 === 0) {
        await incoming.reject({ statusCode: 486 });
      } else {
        await incoming.accept();
        await untilCall(alice.phone, id, (c) => c.state === "active");
        if (i % 3 === 1) await alice.phone.hangup(id);
        else await incoming.bye();
      }
      await untilCall(alice.phone, id, (c) => c.state === "ended");
    }
    expect(alice.phone.diagnostics()).toEqual({ sessions: 0, userAgentSessions: 0, audioElements: 0, listeners: 0 });
    expect(alice.phone.callsStore.getState().calls.length).toBe(ENDED_CALLS_KEPT);
    expect(alice.media.handlers.every((h) => h.closed && h.remoteMediaStream.listenerCount === 0)).toBe(true);
    expect(alice.devices.opened.every((s) => s.getTracks().every((t) => t.stopped))).toBe(true);
  }, 60_000);
});
