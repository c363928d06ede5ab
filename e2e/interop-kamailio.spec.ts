import { chromium, expect, test, type Browser, type Page } from "@playwright/test";
import { chromiumLaunchOptions } from "./chromium";
import { startKamailio, type Kamailio } from "./kamailio/kamailio";
import { servePhonePage, type PhonePage } from "./kamailio/phone-page";
import { addAudioProbe, expectHears } from "./phone-support";
import { startRawSipServer } from "./raw-sip-server";
import { toneWav } from "./tone-wav";
import type * as Softphone from "../src/softphone";
import type { DtmfDetector } from "../platform/media/dtmf-detector";

// The phone against a SIP server that is not ours: Kamailio (Debian's package, config in
// e2e/kamailio/) as registrar and proxy on loopback, three browser phones (the app's
// src/softphone in a bare page, each microphone playing its own tone) registering with digest
// authentication through it. Kamailio relays signalling only; the media goes browser to browser.

type Call = {
  id: string;
  state: string;
  held: boolean;
  remoteHeld: boolean;
  autoAnswer?: unknown;
  end?: { kind: string; by: string };
  dtmf: { sent: string; mode?: string };
};

interface Phone {
  user: string;
  tone: number;
  page: Page;
  browser: Browser;
  /** SIP messages on the page's WebSocket, in order. */
  frames: Array<{ sent: boolean; text: string }>;
}

const PASSWORDS: Record<string, string> = {
  alice: "alice-interop-secret",
  bob: "bob-interop-secret",
  carol: "carol-interop-secret",
};

let kamailio: Kamailio;
let phonePage: PhonePage;

test.beforeAll(async () => {
  [kamailio, phonePage] = await Promise.all([startKamailio(), servePhonePage()]);
});

test.afterAll(async () => {
  await kamailio?.stop();
  await phonePage?.close();
});

/**
 * Runs in the page before anything else: while the gate is closed, every SIP message that arrives
 * stays on the page's WebSocket, in order, not yet handed to the phone, until `release()`. Two
 * phones that both close their gates and both send a re-INVITE each have theirs out before
 * anything of the other's reaches them: a real crossing, whatever the timing of the two pages.
 */
function installSipGate() {
  const held: Array<{ text: string; deliver: () => void }> = [];
  const gate = {
    closed: false,
    held: () => held.map((m) => m.text),
    release() {
      gate.closed = false;
      for (const m of held.splice(0)) m.deliver();
    },
  };
  (window as unknown as { sipGate: typeof gate }).sipGate = gate;
  const addEventListener = WebSocket.prototype.addEventListener;
  WebSocket.prototype.addEventListener = function (
    this: WebSocket,
    type: string,
    listener: EventListenerOrEventListenerObject,
    options?: boolean | AddEventListenerOptions,
  ) {
    if (type !== "message" || typeof listener !== "function")
      return addEventListener.call(this, type, listener, options);
    const gated = (event: Event) => {
      const data = (event as MessageEvent).data;
      if (gate.closed && typeof data === "string") held.push({ text: data, deliver: () => listener.call(this, event) });
      else listener.call(this, event);
    };
    return addEventListener.call(this, type, gated, options);
  } as typeof WebSocket.prototype.addEventListener;
}

/**
 * Runs in the page once its call is up: decodes the keypad tones in what the page receives (a
 * browser plays out received RFC 4733 events as tones), with the local platform's DTMF receiver.
 */
async function listenForDtmf(p: Phone): Promise<void> {
  await p.page.evaluate(async () => {
    const w = window as unknown as {
      PhonePage: { DtmfDetector: typeof DtmfDetector };
      __agentbarTest: { playing(): MediaStreamTrack[] };
      dtmfHeard: () => string;
    };
    const ctx = new AudioContext({ sampleRate: 48000 });
    const tapSource = `registerProcessor("tap", class extends AudioWorkletProcessor {
      process(inputs) { const x = inputs[0] && inputs[0][0]; if (x) this.port.postMessage(x.slice()); return true; }
    });`;
    await ctx.audioWorklet.addModule(URL.createObjectURL(new Blob([tapSource], { type: "text/javascript" })));
    const tap = new AudioWorkletNode(ctx, "tap");
    const detector = new w.PhonePage.DtmfDetector();
    let frame = new Int16Array(480);
    let n = 0;
    tap.port.onmessage = (e: MessageEvent<Float32Array>) => {
      for (const v of e.data) {
        frame[n++] = Math.max(-32768, Math.min(32767, Math.round(v * 32767)));
        if (n < frame.length) continue;
        detector.push(frame);
        frame = new Int16Array(480);
        n = 0;
      }
    };
    for (const track of w.__agentbarTest.playing()) ctx.createMediaStreamSource(new MediaStream([track])).connect(tap);
    // Pulled by the destination (it writes nothing there).
    tap.connect(ctx.destination);
    w.dtmfHeard = () => detector.digits;
  });
}

async function openPhone(user: string, tone: number, server = kamailio.url): Promise<Phone> {
  const browser = await chromium.launch({
    ...chromiumLaunchOptions,
    args: [...chromiumLaunchOptions.args, `--use-file-for-fake-audio-capture=${toneWav(tone)}`],
  });
  const page = await (await browser.newContext()).newPage();
  page.on("console", (m) => m.type() === "error" && console.log(`${user} console: ${m.text()}`));
  const frames: Phone["frames"] = [];
  page.on("websocket", (ws) => {
    ws.on("framesent", (f) => typeof f.payload === "string" && frames.push({ sent: true, text: f.payload }));
    ws.on("framereceived", (f) => typeof f.payload === "string" && frames.push({ sent: false, text: f.payload }));
  });
  await addAudioProbe(page);
  await page.addInitScript(installSipGate);
  await page.goto(phonePage.url);
  await page.evaluate(
    async ({ server, user, password }) => {
      const { Phone } = (window as unknown as { PhonePage: { Softphone: typeof Softphone } }).PhonePage.Softphone;
      const phone = new Phone();
      (window as unknown as { phone: InstanceType<typeof Phone> }).phone = phone;
      await phone.start({
        server,
        address: `${user}@127.0.0.1`,
        password,
        referPolicy: "accept",
        registerExpiresSec: 60,
      });
    },
    { server, user, password: PASSWORDS[user]! },
  );
  return { user, tone, page, browser, frames };
}

/** What each peer connection of the page negotiated, sends and receives: for a failure's report. */
function mediaReport(p: Phone): Promise<unknown> {
  return p.page.evaluate(async () => {
    const pcs = (
      window as unknown as { __agentbarTest: { peerConnections(): RTCPeerConnection[] } }
    ).__agentbarTest.peerConnections();
    return Promise.all(
      pcs.map(async (pc) => {
        const stats: Record<string, unknown>[] = [];
        (await pc.getStats()).forEach((s: Record<string, unknown>) => {
          if (s.type === "inbound-rtp" || s.type === "outbound-rtp")
            stats.push({
              type: s.type,
              packetsSent: s.packetsSent,
              packetsReceived: s.packetsReceived,
              audioLevel: s.audioLevel,
              totalSamplesReceived: s.totalSamplesReceived,
            });
        });
        const track = (t: MediaStreamTrack | null) =>
          t && { enabled: t.enabled, muted: t.muted, readyState: t.readyState };
        return {
          signalingState: pc.signalingState,
          connectionState: pc.connectionState,
          transceivers: pc.getTransceivers().map((t) => ({
            mid: t.mid,
            direction: t.direction,
            currentDirection: t.currentDirection,
            sender: track(t.sender.track),
            receiver: track(t.receiver.track),
          })),
          stats,
        };
      }),
    );
  });
}

/** Runs `fn(phone)` in the page, with `phone` the page's Phone. */
function inPage<T, A>(p: Phone, fn: (phone: Softphone.Phone, arg: A) => T | Promise<T>, arg: A): Promise<T> {
  return p.page.evaluate(
    ([source, a]) => {
      const f = new Function(`return (${source})`)() as (phone: unknown, arg: unknown) => unknown;
      return f((window as unknown as { phone: unknown }).phone, a);
    },
    [fn.toString(), arg] as const,
  ) as Promise<T>;
}

const registration = (p: Phone) => inPage(p, (phone) => phone.phoneStore.getState().registration.status, null);
const calls = (p: Phone) => inPage(p, (phone) => phone.callsStore.getState().calls as unknown as Call[], null);
const call = async (p: Phone, id: string) => (await calls(p)).find((c) => c.id === id);

async function untilCall(p: Phone, id: string, pred: (c: Call) => boolean, what: string): Promise<Call> {
  await expect
    .poll(
      async () => {
        const c = await call(p, id);
        return c && pred(c) ? "yes" : JSON.stringify(c);
      },
      { message: `${p.user}: ${what}` },
    )
    .toBe("yes");
  return (await call(p, id))!;
}

async function ringing(p: Phone): Promise<Call> {
  await expect
    .poll(async () => (await calls(p)).some((c) => c.state === "ringing"), { message: `${p.user}: a call rings` })
    .toBe(true);
  return (await calls(p)).find((c) => c.state === "ringing")!;
}

const cseqOf = (text: string) => /^(?:CSeq):\s*(\d+)\s+(\w+)/im.exec(text);
const isReinvite = (text: string) => text.startsWith("INVITE ") && /^(To|t):[^\r\n]*;\s*tag=/im.test(text);
const statusOf = (text: string) => (text.startsWith("SIP/2.0 ") ? Number(text.slice(8, 11)) : 0);

/** One line a SIP message: what it is, its CSeq, the direction its SDP asks for. */
const wireLine = (f: { sent: boolean; text: string }) =>
  `${f.sent ? ">" : "<"} ${f.text.split("\r\n")[0]} | ${/^CSeq:[^\r\n]*/im.exec(f.text)?.[0] ?? ""} ${(f.text.match(/^a=(sendrecv|sendonly|recvonly|inactive)/gm) ?? []).join(" ")}`;

/**
 * Both phones act at once and their re-INVITEs cross: each phone's gate holds what reaches it
 * until both have the other's re-INVITE in hand, so both are out before either is seen. Then, on
 * the wire: each side refused the other's re-INVITE with 491, its own first one got 491, and its
 * retry got 200.
 */
async function crossReinvites(a: Phone, b: Phone, act: (p: Phone) => Promise<void>, what: string): Promise<void> {
  const both = [a, b];
  for (const p of both)
    await p.page.evaluate(() => ((window as unknown as { sipGate: { closed: boolean } }).sipGate.closed = true));
  const marks = both.map((p) => p.frames.length);
  const acting = both.map(act);
  for (const p of both) {
    await expect
      .poll(
        async () =>
          (await p.page.evaluate(() => (window as unknown as { sipGate: { held(): string[] } }).sipGate.held())).filter(
            isReinvite,
          ).length,
        {
          message: `${p.user}: the other side's re-INVITE has arrived`,
        },
      )
      .toBe(1);
  }
  await Promise.all(
    both.map((p) => p.page.evaluate(() => (window as unknown as { sipGate: { release(): void } }).sipGate.release())),
  );
  await Promise.all(acting);
  both.forEach((p, i) => {
    const frames = p.frames.slice(marks[i]);
    const finalAnswer = (cseq: string) =>
      frames.find(
        (f) => !f.sent && statusOf(f.text) >= 200 && cseqOf(f.text)?.[1] === cseq && cseqOf(f.text)?.[2] === "INVITE",
      );
    const outcomes = frames
      .filter((f) => f.sent && isReinvite(f.text))
      .map((f) => statusOf(finalAnswer(cseqOf(f.text)![1]!)?.text ?? ""));
    expect(outcomes[0], `${what}: ${p.user}'s first re-INVITE is refused with 491 Request Pending`).toBe(491);
    expect(outcomes.length, `${what}: ${p.user} sent its re-INVITE again`).toBeGreaterThan(1);
    expect(outcomes.at(-1), `${what}: ${p.user}'s last re-INVITE is accepted`).toBe(200);
    expect(
      frames.filter((f) => f.sent && statusOf(f.text) === 491 && cseqOf(f.text)?.[2] === "INVITE").length,
      `${what}: ${p.user} refused the other side's re-INVITE with 491`,
    ).toBeGreaterThan(0);
  });
}

test("two browser phones through Kamailio: digest registration, call with tones both ways, crossed holds, DTMF, blind transfer, hang-up, unregistration", async () => {
  test.setTimeout(240_000);
  const alice = await openPhone("alice", 440);
  const bob = await openPhone("bob", 1000);
  const carol = await openPhone("carol", 700);
  const phones = [alice, bob, carol];
  try {
    // Registered with digest authentication: a 401 challenge, then an answer that Kamailio takes.
    for (const p of phones) {
      await expect.poll(() => registration(p), { message: `${p.user} registers` }).toBe("registered");
      expect(p.frames.some((f) => !f.sent && statusOf(f.text) === 401 && cseqOf(f.text)?.[2] === "REGISTER")).toBe(
        true,
      );
      expect(
        p.frames.some(
          (f) => f.sent && f.text.startsWith("REGISTER ") && /^Authorization: Digest .*username="\w+"/m.test(f.text),
        ),
      ).toBe(true);
    }
    expect(await kamailio.registeredUsers()).toEqual(["alice", "bob", "carol"]);

    // An auto-answer marker written by another phone is refused: the call rings.
    const forged = await inPage(
      bob,
      (phone) => phone.call("sip:alice@127.0.0.1", { extraHeaders: ["Call-Info: <sip:127.0.0.1>;answer-after=0"] }),
      null,
    );
    const forgedAtAlice = await ringing(alice);
    expect(forgedAtAlice.autoAnswer).toBeUndefined();
    await inPage(bob, (phone, id) => phone.hangup(id), forged);
    await untilCall(alice, forgedAtAlice.id, (c) => c.state === "ended", "the forged call ends unanswered");

    // alice calls bob; each hears the other's tone.
    const a = await inPage(alice, (phone) => phone.call("sip:bob@127.0.0.1"), null);
    const b = (await ringing(bob)).id;
    await inPage(bob, (phone, id) => phone.answer(id), b);
    await untilCall(alice, a, (c) => c.state === "active", "alice's call is up");
    await expectHears(alice.page, 1000, "alice hears bob");
    await expectHears(bob.page, 440, "bob hears alice");

    // Both hold at once (the re-INVITEs cross, 491 both ways), then both resume at once.
    const hold = (id: string) => (p: Phone) => inPage(p, (phone, x) => phone.hold(x), id);
    const resume = (id: string) => (p: Phone) => inPage(p, (phone, x) => phone.resume(x), id);
    const idOf = (p: Phone) => (p === alice ? a : b);
    await crossReinvites(alice, bob, (p) => hold(idOf(p))(p), "crossed holds");
    await untilCall(alice, a, (c) => c.held && c.remoteHeld && c.state === "held", "alice's call is held both ways");
    await untilCall(bob, b, (c) => c.held && c.remoteHeld && c.state === "held", "bob's call is held both ways");
    await crossReinvites(alice, bob, (p) => resume(idOf(p))(p), "crossed resumes");
    await untilCall(alice, a, (c) => !c.held && !c.remoteHeld && c.state === "active", "alice's call is resumed");
    await untilCall(bob, b, (c) => !c.held && !c.remoteHeld && c.state === "active", "bob's call is resumed");
    await expectHears(alice.page, 1000, "alice hears bob again");
    await expectHears(bob.page, 440, "bob hears alice again");

    // DTMF: RFC 4733 (telephone-event negotiated between the two browsers: bob hears the keypad
    // tones), then SIP INFO (bob's phone receives the requests and accepts them).
    await listenForDtmf(bob);
    await inPage(alice, (phone, id) => phone.sendDtmf(id, "1#"), a);
    expect((await call(alice, a))?.dtmf).toEqual({ sent: "1#", mode: "rfc4733" });
    await expect
      .poll(() => bob.page.evaluate(() => (window as unknown as { dtmfHeard(): string }).dtmfHeard()), {
        message: "bob hears alice's keypad tones",
      })
      .toBe("1#");
    await inPage(alice, (phone) => phone.updateSettings({ dtmfMode: "info" }), null);
    await inPage(alice, (phone, id) => phone.sendDtmf(id, "5"), a);
    expect((await call(alice, a))?.dtmf).toEqual({ sent: "1#5", mode: "info" });
    // Bob's page received the INFO and accepted it (Playwright reports its frames a little later).
    const infoAccepted = () => {
      const info = bob.frames.find(
        (f) =>
          !f.sent &&
          f.text.startsWith("INFO ") &&
          /^Content-Type:\s*application\/dtmf-relay/im.test(f.text) &&
          /^Signal=5\r?$/m.test(f.text),
      );
      const cseq = info && cseqOf(info.text)?.[1];
      return (
        !!cseq &&
        bob.frames.some(
          (f) => f.sent && statusOf(f.text) === 200 && cseqOf(f.text)?.[1] === cseq && cseqOf(f.text)?.[2] === "INFO",
        )
      );
    };
    await expect.poll(infoAccepted, { message: "bob received the INFO and accepted it" }).toBe(true);

    // bob transfers alice to carol, blind; alice and carol then hear each other.
    const transferring = inPage(bob, (phone, id) => phone.transfer(id, "sip:carol@127.0.0.1"), b);
    const c = (await ringing(carol)).id;
    await inPage(carol, (phone, id) => phone.answer(id), c);
    await transferring;
    await untilCall(
      bob,
      b,
      (x) => x.state === "ended" && x.end?.kind === "transferred",
      "bob's leg ends as transferred",
    );
    await untilCall(alice, a, (x) => x.state === "ended", "alice's leg to bob ends");
    const ac = (await calls(alice)).find((x) => x.id !== a && x.state === "active")!;
    expect(ac).toBeDefined();
    await expectHears(alice.page, 700, "alice hears carol");
    await expectHears(carol.page, 440, "carol hears alice");

    // alice hangs up; carol's call ends from the far side.
    await inPage(alice, (phone, id) => phone.hangup(id), ac.id);
    await untilCall(
      carol,
      c,
      (x) => x.state === "ended" && x.end?.kind === "hangup" && x.end.by === "remote",
      "carol's call is hung up by alice",
    );

    // Stopped phones leave no binding behind in Kamailio's location table, though their
    // un-REGISTERs are challenged again.
    expect(await kamailio.registeredUsers()).toEqual(["alice", "bob", "carol"]);
    const marks = phones.map((p) => p.frames.length);
    for (const p of phones) await inPage(p, (phone) => phone.stop(), null);
    expect(await kamailio.registeredUsers()).toEqual([]);
    for (const [i, p] of phones.entries()) {
      const unregistered = () => {
        const frames = p.frames.slice(marks[i]);
        const unregister = frames
          .filter((f) => f.sent && f.text.startsWith("REGISTER ") && /^(Contact|m):[^\r\n]*;expires=0/im.test(f.text))
          .at(-1);
        const cseq = unregister && cseqOf(unregister.text)?.[1];
        const challenged = frames.some(
          (f) => !f.sent && statusOf(f.text) === 401 && cseqOf(f.text)?.[2] === "REGISTER",
        );
        return (
          challenged &&
          !!cseq &&
          frames.some(
            (f) =>
              !f.sent && statusOf(f.text) === 200 && cseqOf(f.text)?.[1] === cseq && cseqOf(f.text)?.[2] === "REGISTER",
          )
        );
      };
      // Its nonce had run out (Kamailio keeps them 5 s): the un-REGISTER went through a new challenge.
      await expect
        .poll(unregistered, { message: `${p.user}'s un-REGISTER (expires=0) is challenged, answered and accepted` })
        .toBe(true);
    }
  } catch (e) {
    // What each phone sent and received, one line a message, and what Kamailio said.
    for (const p of phones) {
      console.log(`--- ${p.user}\n${p.frames.map(wireLine).join("\n")}`);
    }
    for (const p of phones)
      console.log(
        `--- ${p.user}'s media\n${JSON.stringify(await mediaReport(p).catch((x: unknown) => String(x)), null, 1)}`,
      );
    console.log(kamailio.log().split("\n").slice(-60).join("\n"));
    throw e;
  } finally {
    for (const p of phones) await p.browser.close();
  }
});

/** An INVITE as a careless server would write it: `from` goes into the From line as given, raw. */
function inviteFrom(server: string, callId: string, from: string): string {
  const sdp = [
    "v=0",
    "o=- 1 1 IN IP4 127.0.0.1",
    "s=-",
    "t=0 0",
    "a=group:BUNDLE 0",
    "m=audio 9 UDP/TLS/RTP/SAVPF 111",
    "c=IN IP4 0.0.0.0",
    "a=rtcp-mux",
    "a=mid:0",
    "a=sendrecv",
    "a=ice-ufrag:rawS",
    "a=ice-pwd:rawserverpasswordof24chr",
    `a=fingerprint:sha-256 ${Array.from({ length: 32 }, () => "AB").join(":")}`,
    "a=setup:actpass",
    "a=rtpmap:111 opus/48000/2",
    "",
  ].join("\r\n");
  return [
    "INVITE sip:alice@127.0.0.1 SIP/2.0",
    `Via: SIP/2.0/WS ${new URL(server).host};branch=z9hG4bK${callId}`,
    "Max-Forwards: 70",
    `From: ${from} <sip:5550100@127.0.0.1>;tag=${callId}`,
    "To: <sip:alice@127.0.0.1>",
    `Call-ID: ${callId}`,
    "CSeq: 1 INVITE",
    "Contact: <sip:5550100@127.0.0.1;transport=ws>",
    "Content-Type: application/sdp",
    `Content-Length: ${sdp.length}`,
    "",
    sdp,
  ].join("\r\n");
}

test("a server that writes a caller's name into SIP raw: the browser phone answers the malformed INVITEs 400, shows no call, answers nothing by itself, and rings for the next good one", async () => {
  const server = await startRawSipServer();
  const alice = await openPhone("alice", 440, server.url);
  try {
    await expect.poll(() => registration(alice), { message: "alice registers with the raw server" }).toBe("registered");
    const forged = [
      // The name closes its quotes, adds an auto-answer marker and opens a second From; a single
      // Via, so the INVITE comes from the server itself, whose markers the phone honours.
      ["injected", '"x"<sip:a@b>\r\nCall-Info: <sip:a>;answer-after=0\r\nFrom: "y"'],
      // Quotes in the name left unescaped: sip.js cannot parse the From.
      ["quotes", '"Anna "Annie" Smith"'],
    ] as const;
    for (const [callId, from] of forged) {
      server.send(inviteFrom(server.url, callId, from));
      const answer = await server.next(
        (m) => m.startsWith("SIP/2.0 ") && m.includes(`\r\nCall-ID: ${callId}\r\n`),
        `the phone's answer to the ${callId} INVITE`,
      );
      expect(answer.split("\r\n")[0], `the ${callId} INVITE is refused`).toBe("SIP/2.0 400 Bad Request");
      expect(await calls(alice), `the ${callId} INVITE shows no call`).toEqual([]);
    }
    const log = await inPage(alice, (phone) => phone.diagnosticReport().sipTrace, null);
    expect(log.filter((m) => m.direction === "received" && m.refused).map((m) => m.refused)).toEqual([
      "From appears 2 times",
      expect.stringMatching(/From/),
    ]);

    // The next call, its name well quoted, rings as any call does.
    server.send(inviteFrom(server.url, "good", '"Anna \\"Annie\\" Smith"'));
    const good = await ringing(alice);
    expect(good.autoAnswer).toBeUndefined();
    await inPage(alice, (phone, id) => phone.hangup(id), good.id);
    const refusal = await server.next(
      (m) => /^SIP\/2\.0 [2-6]/.test(m) && m.includes("\r\nCall-ID: good\r\n"),
      "the phone's answer to the good INVITE",
    );
    expect(refusal).toMatch(/^SIP\/2\.0 603 /);
  } finally {
    await alice.browser.close();
    await server.close();
  }
});
