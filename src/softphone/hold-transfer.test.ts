import { afterEach, describe, expect, it, vi } from "vitest";
import { Inviter, SessionState, UserAgent, type Invitation } from "sip.js";
import { FakeSipServer, isRequest, isResponse, type RequestRecord, type WireRecord } from "./testing/fake-sip-server";
import { platformSdp, ServerCall } from "./testing/server-call";
import { withoutTrickle } from "./ice-gathering";
import { startPeer, type Peer } from "./testing/peer";
import { settle, startPhone, until, untilCall, type PhoneRig } from "./testing/phone-rig";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  vi.useRealTimers();
  for (const c of cleanups.splice(0).reverse()) await c();
});

const fromAlice =
  (method: string) =>
  (r: WireRecord): r is RequestRecord =>
    r.direction === "from-ua" && r.user === "1001" && isRequest(r, method);
const direction = (sdp: string) => /a=(sendrecv|sendonly|recvonly|inactive)/.exec(sdp)?.[1];

async function phone(sw: FakeSipServer, options: Parameters<typeof startPhone>[1] = {}) {
  const rig = await startPhone(sw, options);
  cleanups.push(() => rig.phone.stop());
  return rig;
}

async function peer(sw: FakeSipServer, user: string, delegate = {}) {
  const p = await startPeer(sw, user, delegate);
  cleanups.push(() => p.stop());
  return p;
}

/** alice (the phone) calls `who` and the peer answers. */
async function connect(alice: PhoneRig, who: Peer): Promise<{ id: string; remote: Invitation }> {
  const id = await alice.phone.call(who.user);
  const remote = await who.nextInvitation();
  await remote.accept();
  await untilCall(alice.phone, id, (c) => c.state === "active");
  return { id, remote };
}

/** The platform calls alice and she answers. */
async function platformCall(sw: FakeSipServer, alice: PhoneRig): Promise<{ id: string; server: ServerCall }> {
  const server = new ServerCall(sw, { to: "1001" }).invite();
  const s = await until(alice.phone.callsStore, (s) => s.calls.some((c) => c.state === "ringing"));
  const id = s.calls.find((c) => c.state === "ringing")!.id;
  await alice.phone.answer(id);
  await untilCall(alice.phone, id, (c) => c.state === "active");
  return { id, server };
}

describe("hold and resume", () => {
  it("holds with a sendonly re-INVITE and a silenced microphone, resumes with sendrecv", async () => {
    const sw = new FakeSipServer();
    const alice = await phone(sw);
    const bob = await peer(sw, "2000");
    const { id, remote } = await connect(alice, bob);
    const m = sw.mark();

    // The microphone is off by the time the hold offer leaves, not only once it is answered.
    let sendingWhenOffered: boolean | undefined;
    void sw.waitFor(
      (r) => fromAlice("INVITE")(r) && ((sendingWhenOffered = alice.sdh(id).senderTrack?.enabled), true),
      m,
    );
    await alice.phone.hold(id);
    expect(sendingWhenOffered).toBe(false);
    const [holdInvite] = sw.records(fromAlice("INVITE"), m);
    expect(direction(holdInvite!.message.body)).toBe("sendonly");
    expect(alice.call(id)).toMatchObject({ state: "held", held: true, holdPending: false });
    expect(alice.sdh(id).senderTrack?.enabled).toBe(false);
    expect(direction(bob.media.of(remote).answers.at(-1)!)).toBe("recvonly");

    await alice.phone.resume(id);
    const [, resumeInvite] = sw.records(fromAlice("INVITE"), m);
    expect(direction(resumeInvite!.message.body)).toBe("sendrecv");
    expect(alice.call(id)).toMatchObject({ state: "active", held: false });
    expect(alice.sdh(id).senderTrack?.enabled).toBe(true);
  });

  it("keeps a muted call muted across hold and resume", async () => {
    const sw = new FakeSipServer();
    const alice = await phone(sw);
    const { id } = await connect(alice, await peer(sw, "2000"));
    alice.phone.setMuted(id, true);
    await alice.phone.hold(id);
    await alice.phone.resume(id);
    expect(alice.sdh(id).senderTrack?.enabled).toBe(false);
  });

  it("serialises re-INVITEs: hold and resume pressed together go out one after the other", async () => {
    const sw = new FakeSipServer();
    const alice = await phone(sw);
    const { id } = await connect(alice, await peer(sw, "2000"));
    const m = sw.mark();
    const hold = alice.phone.hold(id);
    const resume = alice.phone.resume(id);
    await Promise.all([hold, resume]);
    expect(sw.records(fromAlice("INVITE"), m).map((r) => direction(r.message.body))).toEqual(["sendonly", "sendrecv"]);
    expect(alice.call(id)).toMatchObject({ held: false, state: "active" });
  });

  it("shows the truth when the hold re-INVITE fails: not held, microphone back on", async () => {
    const sw = new FakeSipServer();
    const alice = await phone(sw);
    const { id, server } = await platformCall(sw, alice);
    server.reinviteStatus = 488;
    await expect(alice.phone.hold(id)).rejects.toMatchObject({ kind: "sip", status: 488 });
    expect(alice.call(id)).toMatchObject({ held: false, holdPending: false, state: "active" });
    expect(alice.sdh(id).senderTrack?.enabled).toBe(true);
    expect(alice.phone.phoneStore.getState().notices.at(-1)).toMatchObject({
      kind: "hold-failed",
      callId: id,
      error: { status: 488 },
    });

    // The failed attempt's hold option must not stick: the next offer from the platform gets sendrecv.
    server.reinvite(platformSdp("sendrecv"));
    await sw.waitFor((r) => r.direction === "from-ua" && isResponse(r, 200, "INVITE") && (r.message.cseq ?? 0) > 1);
    expect(direction(alice.sdh(id).answers.at(-1)!)).toBe("sendrecv");
  });

  it("shows the truth when resuming fails: still held", async () => {
    const sw = new FakeSipServer();
    const alice = await phone(sw);
    const { id, server } = await platformCall(sw, alice);
    await alice.phone.hold(id);
    server.reinviteStatus = 500;
    await expect(alice.phone.resume(id)).rejects.toMatchObject({ kind: "sip", status: 500 });
    expect(alice.call(id)).toMatchObject({ held: true, state: "held" });
    expect(alice.sdh(id).senderTrack?.enabled).toBe(false);
  });

  it("retries a re-INVITE that met glare (491) after the RFC 3261 wait", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"] });
    const sw = new FakeSipServer();
    const alice = await phone(sw, { env: { random: () => 0.5 }, settings: { keepAlive: { mode: "off" } } });
    const { id, server } = await platformCall(sw, alice);
    server.nextReinviteStatuses.push(491);
    const m = sw.mark();
    const holding = alice.phone.hold(id);
    await sw.waitFor((r) => r.direction === "to-ua" && isResponse(r, 491), m);
    await settle();
    expect(sw.records(fromAlice("INVITE"), m)).toHaveLength(1);
    // Not the owner of the Call-ID (the platform called): 0-2 s, here 1 s.
    await vi.advanceTimersByTimeAsync(999);
    expect(sw.records(fromAlice("INVITE"), m)).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    await holding;
    expect(sw.records(fromAlice("INVITE"), m).map((r) => direction(r.message.body))).toEqual(["sendonly", "sendonly"]);
    expect(alice.call(id).held).toBe(true);
  });

  it("shows remote hold when the other side sends sendonly or inactive, and its end", async () => {
    const sw = new FakeSipServer();
    const alice = await phone(sw);
    const { id, server } = await platformCall(sw, alice);
    server.reinvite(platformSdp("sendonly"));
    let c = await untilCall(alice.phone, id, (c) => c.remoteHeld);
    expect(c.state).toBe("remote-held");
    expect(direction(alice.sdh(id).answers.at(-1)!)).toBe("recvonly");
    server.reinvite(platformSdp("sendrecv"));
    c = await untilCall(alice.phone, id, (c) => !c.remoteHeld);
    expect(c.state).toBe("active");
    server.reinvite(platformSdp("inactive"));
    await untilCall(alice.phone, id, (c) => c.remoteHeld);
    server.reinvite(platformSdp("sendrecv", "0.0.0.0"));
    c = await untilCall(alice.phone, id, (c) => c.state === "remote-held");
    expect(c.remoteHeld).toBe(true);
  });
});

describe("call waiting", () => {
  it("rings a second call during a call, holds the first on answer, and swaps between them", async () => {
    const sw = new FakeSipServer();
    const alice = await phone(sw);
    const bob = await peer(sw, "2000");
    const carol = await peer(sw, "3000");
    const { id: bobCall } = await connect(alice, bob);

    await new Inviter(carol.ua, UserAgent.makeURI("sip:1001@pbx.test")!).invite();
    const s = await until(alice.phone.callsStore, (s) => s.calls.some((c) => c.state === "ringing"));
    const carolCall = s.calls.find((c) => c.state === "ringing")!.id;
    expect(alice.call(bobCall).state).toBe("active");

    const m = sw.mark();
    await alice.phone.answer(carolCall);
    await untilCall(alice.phone, carolCall, (c) => c.state === "active");
    expect(alice.call(bobCall).state).toBe("held");
    expect(direction(sw.records(fromAlice("INVITE"), m)[0]!.message.body)).toBe("sendonly");

    await alice.phone.swap(bobCall);
    expect(alice.call(bobCall).state).toBe("active");
    expect(alice.call(carolCall).state).toBe("held");
    expect(alice.sdh(carolCall).senderTrack?.enabled).toBe(false);
    expect(alice.sdh(bobCall).senderTrack?.enabled).toBe(true);
  });

  it("answers 486 Busy to a call beyond maxCalls", async () => {
    const sw = new FakeSipServer();
    const alice = await phone(sw, { settings: { maxCalls: 1 } });
    const bob = await peer(sw, "2000");
    const carol = await peer(sw, "3000");
    await connect(alice, bob);
    await new Inviter(carol.ua, UserAgent.makeURI("sip:1001@pbx.test")!).invite();
    await sw.waitFor((r) => r.direction === "from-ua" && r.user === "1001" && isResponse(r, 486));
    expect(alice.phone.callsStore.getState().calls).toHaveLength(1);
    expect(alice.phone.phoneStore.getState().notices.at(-1)).toMatchObject({ kind: "incoming-refused-busy" });
  });
});

describe("blind transfer", () => {
  it("REFERs, follows the NOTIFYs and hangs up after the 2xx one (platform as transferee)", async () => {
    const sw = new FakeSipServer();
    const alice = await phone(sw);
    const { id, server } = await platformCall(sw, alice);
    server.onRefer = (req) => {
      server.respond(req, 202);
      server.notifyRefer("SIP/2.0 100 Trying", false);
      server.notifyRefer("SIP/2.0 200 OK", true);
    };
    const m = sw.mark();
    await alice.phone.transfer(id, "3000");
    const [refer] = sw.records(fromAlice("REFER"), m);
    expect(refer!.message.getHeader("Refer-To")).toBe("<sip:3000@pbx.test>");
    await sw.waitFor(fromAlice("BYE"), m);
    const c = await untilCall(alice.phone, id, (c) => c.state === "ended");
    expect(c.transfer).toMatchObject({ kind: "blind", state: "succeeded", status: 200 });
    expect(c.end).toMatchObject({ kind: "transferred", by: "local" });
  });

  it("transfers between real user agents: bob follows the REFER to carol", async () => {
    const sw = new FakeSipServer();
    const alice = await phone(sw);
    const bob = await peer(sw, "2000");
    const carol = await peer(sw, "3000");
    const { id } = await connect(alice, bob);
    const transferred = alice.phone.transfer(id, "3000");
    const atCarol = await carol.nextInvitation();
    expect(atCarol.request.getHeader("Referred-By")).toContain("sip:1001@pbx.test");
    await atCarol.accept();
    await transferred;
    await sw.waitFor(fromAlice("BYE"));
    expect((await untilCall(alice.phone, id, (c) => c.state === "ended")).end?.kind).toBe("transferred");
  });

  it("reports a failed transfer and keeps the call", async () => {
    const sw = new FakeSipServer();
    const alice = await phone(sw);
    const bob = await peer(sw, "2000");
    const carol = await peer(sw, "3000");
    const { id } = await connect(alice, bob);
    const transferred = alice.phone.transfer(id, "3000");
    const atCarol = await carol.nextInvitation();
    await atCarol.reject({ statusCode: 486 });
    await expect(transferred).rejects.toMatchObject({ kind: "sip", status: 486 });
    expect(alice.call(id)).toMatchObject({ state: "active", transfer: { state: "failed", status: 486 } });
    expect(sw.records(fromAlice("BYE"))).toEqual([]);
    expect(alice.phone.phoneStore.getState().notices.at(-1)).toMatchObject({ kind: "transfer-failed", callId: id });
  });

  it("reports a refused REFER", async () => {
    const sw = new FakeSipServer();
    const alice = await phone(sw);
    const { id, server } = await platformCall(sw, alice);
    server.onRefer = (req) => server.respond(req, 403);
    await expect(alice.phone.transfer(id, "3000")).rejects.toMatchObject({ kind: "sip", status: 403 });
    expect(alice.call(id).state).toBe("active");
  });
});

describe("attended transfer", () => {
  it("consults on a second line, then REFERs with Replaces and ends both legs", async () => {
    const sw = new FakeSipServer();
    const alice = await phone(sw);
    const bob = await peer(sw, "2000");
    const carol = await peer(sw, "3000");
    const { id, remote: atBob } = await connect(alice, bob);

    const consulting = alice.phone.startConsult(id, "3000");
    const atCarol = await carol.nextInvitation();
    const consultId = await consulting;
    expect(alice.call(id)).toMatchObject({ state: "held", consultCallId: consultId });
    expect(alice.call(consultId)).toMatchObject({ consultForCallId: id });
    await atCarol.accept();
    await untilCall(alice.phone, consultId, (c) => c.state === "active");

    const m = sw.mark();
    const completing = alice.phone.completeConsult(consultId);
    const refer = await sw.waitFor(fromAlice("REFER"), m);
    const rawReferTo = refer.message.getHeader("Refer-To") ?? "";
    // Bracketed, with no display name; the contact's ;transport=ws stays a URI parameter.
    expect(rawReferTo).toMatch(/^<sip:[^"]+;transport=ws\?Replaces=[^>]+>$/);
    const referTo = decodeURIComponent(rawReferTo);
    // Refer-To names carol's leg and the consult dialog it replaces.
    const consultInvite = sw.records(fromAlice("INVITE")).find((r) => r.message.ruri?.user === "3000")!;
    expect(referTo).toContain(`Replaces=${consultInvite.message.callId}`);
    expect(referTo).toMatch(/to-tag=[^;>]+;from-tag=[^;>]+/);
    expect(refer.message.callId).toBe(
      sw.records(fromAlice("INVITE")).find((r) => r.message.ruri?.user === "2000")!.message.callId,
    );

    // bob follows: an INVITE with Replaces reaches carol, who takes over (sip.js BYEs alice's consult leg).
    const replacing = await carol.nextInvitation();
    expect(replacing.request.getHeader("Replaces")).toContain(consultInvite.message.callId);
    await replacing.accept();
    await completing;
    await untilCall(alice.phone, id, (c) => c.state === "ended");
    await untilCall(alice.phone, consultId, (c) => c.state === "ended");
    expect(alice.call(id).end?.kind).toBe("transferred");
    expect(alice.call(consultId).end).toMatchObject({ kind: "transferred", by: "remote" });
    expect(alice.call(id).transfer).toMatchObject({ kind: "attended", state: "succeeded" });
    expect(atBob.state).toBe(SessionState.Terminated);
    expect(atCarol.state).toBe(SessionState.Terminated);
    expect(replacing.state).toBe(SessionState.Established);
    expect(alice.phone.diagnostics()).toMatchObject({ sessions: 0, userAgentSessions: 0 });
  });

  it("cancelling hangs up the consultation and resumes the first call", async () => {
    const sw = new FakeSipServer();
    const alice = await phone(sw);
    const bob = await peer(sw, "2000");
    const carol = await peer(sw, "3000");
    const { id } = await connect(alice, bob);
    const consulting = alice.phone.startConsult(id, "3000");
    const atCarol = await carol.nextInvitation();
    const consultId = await consulting;
    await atCarol.accept();
    await untilCall(alice.phone, consultId, (c) => c.state === "active");
    const m = sw.mark();
    await alice.phone.cancelConsult(id);
    await untilCall(alice.phone, consultId, (c) => c.state === "ended");
    expect(alice.call(id)).toMatchObject({ state: "active", held: false });
    expect(alice.call(id).consultCallId).toBeUndefined();
    expect(sw.records(fromAlice("BYE"), m)).toHaveLength(1);
    expect(direction(sw.records(fromAlice("INVITE"), m)[0]!.message.body)).toBe("sendrecv");
  });
});

describe("a call handed over to us", () => {
  it("takes over a call named by INVITE/Replaces at once, without holding the call it replaces", async () => {
    const sw = new FakeSipServer();
    const alice = await phone(sw);
    const bob = await peer(sw, "2000");
    const carol = await peer(sw, "3000");
    const { id } = await connect(alice, bob);
    const invite = sw.records(fromAlice("INVITE"))[0]!.message;
    const answer = sw.records((r) => r.direction === "to-ua" && r.user === "1001" && isResponse(r, 200, "INVITE"))[0]!
      .message;
    const m = sw.mark();
    // What bob's attended transfer would make carol send: our dialog with bob, as seen by us.
    const replaces = `Replaces: ${invite.callId};to-tag=${invite.fromTag};from-tag=${answer.toTag}`;
    await new Inviter(carol.ua, UserAgent.makeURI("sip:1001@pbx.test")!, { extraHeaders: [replaces] }).invite();
    const s = await until(alice.phone.callsStore, (s) => s.calls.some((c) => c.id !== id && c.state === "active"));
    const takeover = s.calls.find((c) => c.id !== id)!;
    expect(takeover.remote.number).toBe("3000");
    const old = await untilCall(alice.phone, id, (c) => c.state === "ended");
    expect(old.end).toMatchObject({ kind: "replaced" });
    expect(sw.records(fromAlice("INVITE"), m).filter((r) => r.message.callId === invite.callId)).toEqual([]);
    expect(sw.records(fromAlice("BYE"), m).map((r) => r.message.callId)).toEqual([invite.callId]);
  });
});

describe("REFER received", () => {
  it("refuses it with 603 by default, dials nothing, and tells the UI", async () => {
    const sw = new FakeSipServer();
    const alice = await phone(sw);
    const { id, server } = await platformCall(sw, alice);
    const events: unknown[] = [];
    alice.phone.on("refer-request", (e) => events.push(e));
    const m = sw.mark();
    server.sendInDialog("REFER", ["Refer-To: <sip:4000@pbx.test>", "Referred-By: <sip:5550100@pbx.test>"]);
    await sw.waitFor((r) => r.direction === "from-ua" && isResponse(r, 603, "REFER"), m);
    await settle();
    expect(sw.records(fromAlice("INVITE"), m)).toEqual([]);
    expect(alice.call(id).referRequest).toMatchObject({ target: "sip:4000@pbx.test", state: "rejected" });
    expect(events).toEqual([
      expect.objectContaining({ callId: id, target: "sip:4000@pbx.test", decision: "rejected" }),
    ]);
    expect(alice.phone.phoneStore.getState().notices.at(-1)).toMatchObject({ kind: "refer-refused", callId: id });
  });

  it("follows it when the policy accepts: 202, hold, INVITE to the target, NOTIFYs back", async () => {
    const sw = new FakeSipServer();
    const alice = await phone(sw, { settings: { referPolicy: "accept" } });
    const dave = await peer(sw, "4000");
    const { id, server } = await platformCall(sw, alice);
    const m = sw.mark();
    server.sendInDialog("REFER", ["Refer-To: <sip:4000@pbx.test>"]);
    const atDave = await dave.nextInvitation();
    await atDave.accept();
    await sw.waitFor((r) => r.direction === "from-ua" && isResponse(r, 202, "REFER"), m);
    const notify = await sw.waitFor((r) => fromAlice("NOTIFY")(r) && /^SIP\/2\.0 200/.test(r.message.body), m);
    expect(notify.message.callId).toBe(server.callId);
    const followId = alice.call(id).referRequest?.followCallId;
    expect(followId).toBeDefined();
    await untilCall(alice.phone, followId!, (c) => c.state === "active");
    expect(alice.call(followId!)).toMatchObject({ referredFromCallId: id, remote: { number: "4000" } });
    expect(alice.call(id).held).toBe(true);
  });

  it("asks when the policy says so, and follows only once accepted", async () => {
    const sw = new FakeSipServer();
    const alice = await phone(sw, { settings: { referPolicy: "ask" } });
    const dave = await peer(sw, "4000");
    const { id, server } = await platformCall(sw, alice);
    const m = sw.mark();
    server.sendInDialog("REFER", ["Refer-To: <sip:4000@pbx.test>"]);
    await untilCall(alice.phone, id, (c) => c.referRequest?.state === "pending");
    await settle();
    expect(sw.records((r) => r.direction === "from-ua" && isResponse(r, undefined, "REFER"), m)).toEqual([]);
    const following = alice.phone.acceptRefer(id);
    await (await dave.nextInvitation()).accept();
    const followId = await following;
    await untilCall(alice.phone, followId, (c) => c.state === "active");
  });

  it("refuses a pending REFER nobody answered in time", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"] });
    const sw = new FakeSipServer();
    const alice = await phone(sw, {
      settings: { referPolicy: "ask", referAskTimeoutSec: 30, keepAlive: { mode: "off" } },
    });
    const { id, server } = await platformCall(sw, alice);
    server.sendInDialog("REFER", ["Refer-To: <sip:4000@pbx.test>"]);
    await untilCall(alice.phone, id, (c) => c.referRequest?.state === "pending");
    await vi.advanceTimersByTimeAsync(30_000);
    await sw.waitFor((r) => r.direction === "from-ua" && isResponse(r, 603, "REFER"));
    expect(alice.call(id).referRequest?.state).toBe("rejected");
  });
});

describe("when the media path breaks", () => {
  it("renegotiates with an ICE restart when a call's ICE connection fails, the socket being fine", async () => {
    const sw = new FakeSipServer();
    const alice = await phone(sw);
    const { id } = await connect(alice, await peer(sw, "2000"));
    const m = sw.mark();
    alice.sdh(id).setIceConnectionState("disconnected");
    await settle();
    expect(sw.records(fromAlice("INVITE"), m)).toEqual([]);
    alice.sdh(id).setIceConnectionState("failed");
    const reinvite = await sw.waitFor(fromAlice("INVITE"), m);
    expect(reinvite.message.body).toContain("a=ice-ufrag:gen2");
    expect(direction(reinvite.message.body)).toBe("sendrecv");
  });
});

describe("after a reconnection", () => {
  it("ends the calls not answered yet when the socket drops (the server fails them), and keeps the answered one", async () => {
    const sw = new FakeSipServer();
    const alice = await phone(sw, { settings: { maxCalls: 3, keepAlive: { mode: "off" } } });
    const { id: talking } = await connect(alice, await peer(sw, "2000"));
    const carol = await peer(sw, "3000");
    const dialling = await alice.phone.call("3000");
    await carol.nextInvitation();
    await untilCall(alice.phone, dialling, (c) => c.state === "early");
    new ServerCall(sw, { to: "1001" }).invite();
    const ringing = (await until(alice.phone.callsStore, (s) => s.calls.some((c) => c.state === "ringing"))).calls.find(
      (c) => c.state === "ringing",
    )!.id;

    sw.refuseConnections = true;
    sw.drop("1001");
    // No CANCEL and no final answer will come for these: they end at once, and say why.
    for (const id of [dialling, ringing]) {
      expect(await untilCall(alice.phone, id, (c) => c.state === "ended")).toMatchObject({
        end: { kind: "connection-lost", by: "system" },
      });
    }
    expect(alice.call(talking).state).toBe("held");
    expect(alice.phone.diagnostics()).toMatchObject({ sessions: 1, userAgentSessions: 1 });
  });

  it("sends an ICE-restart re-INVITE for each established call, keeping hold", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"] });
    const sw = new FakeSipServer();
    const alice = await phone(sw, { env: { random: () => 0 }, settings: { keepAlive: { mode: "off" } } });
    const bob = await peer(sw, "2000");
    const carol = await peer(sw, "3000");
    const { id: first } = await connect(alice, bob);
    const { id: second } = await connect(alice, carol);
    expect(alice.call(first).held).toBe(true);
    const before = { first: alice.sdh(first).offers.length, second: alice.sdh(second).offers.length };

    sw.drop("1001");
    await until(alice.phone.phoneStore, (s) => s.registration.status === "reconnecting");
    expect(alice.call(first).state).toBe("held");
    expect(alice.call(second).state).toBe("active");
    const m = sw.mark();
    await vi.advanceTimersByTimeAsync(1000);
    await until(alice.phone.phoneStore, (s) => s.registration.status === "registered");
    await untilCall(alice.phone, first, () => sw.records(fromAlice("INVITE"), m).length === 2);
    const reinvites = sw.records(fromAlice("INVITE"), m);
    // Registered first, so that the server routes the re-INVITEs' answers over the new socket.
    expect(sw.records((r) => r.direction === "from-ua" && isRequest(r, "REGISTER"), m)[0]!.seq).toBeLessThan(
      reinvites[0]!.seq,
    );
    for (const r of reinvites) expect(r.message.body).toContain("a=ice-ufrag:gen2");
    expect(
      alice
        .sdh(first)
        .offers.slice(before.first)
        .map((o) => o.options?.offerOptions?.iceRestart),
    ).toEqual([true]);
    expect(
      alice
        .sdh(second)
        .offers.slice(before.second)
        .map((o) => o.options?.offerOptions?.iceRestart),
    ).toEqual([true]);
    const byCall = (id: string) =>
      reinvites.find((r) => r.message.body === withoutTrickle(alice.sdh(id).offers.at(-1)!.sdp))!;
    expect(direction(byCall(first).message.body)).toBe("sendonly");
    expect(direction(byCall(second).message.body)).toBe("sendrecv");
    await settle();
    expect(alice.call(first)).toMatchObject({ state: "held" });
    expect(alice.call(second)).toMatchObject({ state: "active" });

    // The restart is not sticky: the next hold is an ordinary offer.
    await alice.phone.hold(second);
    expect(alice.sdh(second).offers.at(-1)!.options?.offerOptions?.iceRestart).toBeUndefined();
  });
});
