import { chromium, expect, test, type Browser, type Page } from "@playwright/test";
import { chromiumLaunchOptions } from "./chromium";
import { startKamailio, type Kamailio } from "./kamailio/kamailio";
import { servePhonePage, type PhonePage } from "./kamailio/phone-page";
import { addAudioProbe, expectHears } from "./phone-support";
import { toneWav } from "./tone-wav";
import type * as Softphone from "../src/softphone";

// The phone against a SIP server that is not ours: Kamailio (Debian's package, config in
// e2e/kamailio/) as registrar and proxy on loopback, three browser phones (the app's
// src/softphone in a bare page, each microphone playing its own tone) registering with digest
// authentication through it. Kamailio relays signalling only; the media goes browser to browser.

type Call = { id: string; state: string; held: boolean; remoteHeld: boolean; autoAnswer?: unknown; end?: { kind: string; by: string }; dtmf: { sent: string; mode?: string } };

interface Phone {
  user: string;
  tone: number;
  page: Page;
  browser: Browser;
  /** SIP messages on the page's WebSocket, in order. */
  frames: Array<{ sent: boolean; text: string }>;
}

const PASSWORDS: Record<string, string> = { alice: "alice-interop-secret", bob: "bob-interop-secret", carol: "carol-interop-secret" };

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
 * Runs in the page before anything else: while `holdReinvites` is on, re-INVITEs that arrive stay
 * on the page's WebSocket, not yet handed to the phone, until `releaseReinvites()`. Two phones that
 * both hold theirs and both send their own each have a re-INVITE out when the other's reaches
 * them: a real crossing, whatever the timing of the two pages.
 */
function installReinviteGate() {
  const w = window as unknown as { holdReinvites: boolean; heldReinvites: Array<() => void>; releaseReinvites(): void };
  const addEventListener = WebSocket.prototype.addEventListener;
  w.holdReinvites = false;
  w.heldReinvites = [];
  WebSocket.prototype.addEventListener = function (this: WebSocket, type: string, listener: EventListenerOrEventListenerObject, options?: boolean | AddEventListenerOptions) {
    if (type !== "message" || typeof listener !== "function") return addEventListener.call(this, type, listener, options);
    const gated = (event: Event) => {
      const data = (event as MessageEvent).data;
      if (w.holdReinvites && typeof data === "string" && data.startsWith("INVITE ") && /^(To|t):[^\r\n]*;\s*tag=/im.test(data)) {
        w.heldReinvites.push(() => listener.call(this, event));
        return;
      }
      listener.call(this, event);
    };
    return addEventListener.call(this, type, gated, options);
  } as typeof WebSocket.prototype.addEventListener;
  w.releaseReinvites = () => {
    w.holdReinvites = false;
    for (const release of w.heldReinvites.splice(0)) release();
  };
}

async function openPhone(user: string, tone: number): Promise<Phone> {
  const browser = await chromium.launch({ ...chromiumLaunchOptions, args: [...chromiumLaunchOptions.args, `--use-file-for-fake-audio-capture=${toneWav(tone)}`] });
  const page = await (await browser.newContext()).newPage();
  page.on("console", (m) => m.type() === "error" && console.log(`${user} console: ${m.text()}`));
  const frames: Phone["frames"] = [];
  page.on("websocket", (ws) => {
    ws.on("framesent", (f) => typeof f.payload === "string" && frames.push({ sent: true, text: f.payload }));
    ws.on("framereceived", (f) => typeof f.payload === "string" && frames.push({ sent: false, text: f.payload }));
  });
  await addAudioProbe(page);
  await page.addInitScript(installReinviteGate);
  await page.goto(phonePage.url);
  await page.evaluate(
    async ({ server, user, password }) => {
      const { Phone } = (window as unknown as { Softphone: typeof Softphone }).Softphone;
      const phone = new Phone();
      (window as unknown as { phone: InstanceType<typeof Phone> }).phone = phone;
      await phone.start({ server, address: `${user}@127.0.0.1`, password, referPolicy: "accept", registerExpiresSec: 60 });
    },
    { server: kamailio.url, user, password: PASSWORDS[user]! },
  );
  return { user, tone, page, browser, frames };
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
  await expect.poll(async () => {
    const c = await call(p, id);
    return c && pred(c) ? "yes" : JSON.stringify(c);
  }, { message: `${p.user}: ${what}` }).toBe("yes");
  return (await call(p, id))!;
}

async function ringing(p: Phone): Promise<Call> {
  await expect.poll(async () => (await calls(p)).some((c) => c.state === "ringing"), { message: `${p.user}: a call rings` }).toBe(true);
  return (await calls(p)).find((c) => c.state === "ringing")!;
}

const isStatus = (text: string, status: number, method: string) =>
  text.startsWith(`SIP/2.0 ${status} `) && new RegExp(`^(CSeq|CSEQ):\\s*\\d+\\s+${method}\\s*$`, "im").test(text);

/** Both phones act at once; each gets the other's re-INVITE only once both of theirs are out. */
async function crossReinvites(a: Phone, b: Phone, act: (p: Phone) => Promise<void>): Promise<void> {
  for (const p of [a, b]) await p.page.evaluate(() => ((window as unknown as { holdReinvites: boolean }).holdReinvites = true));
  const marks = [a.frames.length, b.frames.length];
  const acting = [act(a), act(b)];
  for (const p of [a, b]) {
    await expect.poll(() => p.page.evaluate(() => (window as unknown as { heldReinvites: unknown[] }).heldReinvites.length), { message: `${p.user}: the other side's re-INVITE has arrived` }).toBe(1);
  }
  await Promise.all([a, b].map((p) => p.page.evaluate(() => (window as unknown as { releaseReinvites(): void }).releaseReinvites())));
  await Promise.all(acting);
  // They crossed: each side refused the other's first re-INVITE with 491 Request Pending.
  [a, b].forEach((p, i) => expect(p.frames.slice(marks[i]).filter((f) => f.sent && isStatus(f.text, 491, "INVITE")), `${p.user} answered 491`).toHaveLength(1));
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
      expect(p.frames.some((f) => !f.sent && isStatus(f.text, 401, "REGISTER"))).toBe(true);
      expect(p.frames.some((f) => f.sent && f.text.startsWith("REGISTER ") && /^Authorization: Digest .*username="\w+"/m.test(f.text))).toBe(true);
    }
    expect(await kamailio.registeredUsers()).toEqual(["alice", "bob", "carol"]);

    // An auto-answer marker written by another phone is refused: the call rings.
    const forged = await inPage(bob, (phone) => phone.call("sip:alice@127.0.0.1", { extraHeaders: ["Call-Info: <sip:127.0.0.1>;answer-after=0"] }), null);
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
    await crossReinvites(alice, bob, (p) => hold(idOf(p))(p));
    await untilCall(alice, a, (c) => c.held && c.remoteHeld && c.state === "held", "alice's call is held both ways");
    await untilCall(bob, b, (c) => c.held && c.remoteHeld && c.state === "held", "bob's call is held both ways");
    await crossReinvites(alice, bob, (p) => resume(idOf(p))(p));
    await untilCall(alice, a, (c) => !c.held && !c.remoteHeld && c.state === "active", "alice's call is resumed");
    await untilCall(bob, b, (c) => !c.held && !c.remoteHeld && c.state === "active", "bob's call is resumed");
    await expectHears(alice.page, 1000, "alice hears bob again");
    await expectHears(bob.page, 440, "bob hears alice again");

    // DTMF: RFC 4733 (telephone-event negotiated between the two browsers), then SIP INFO.
    await inPage(alice, (phone, id) => phone.sendDtmf(id, "1#"), a);
    expect((await call(alice, a))?.dtmf).toEqual({ sent: "1#", mode: "rfc4733" });
    await inPage(alice, (phone) => phone.updateSettings({ dtmfMode: "info" }), null);
    await inPage(alice, (phone, id) => phone.sendDtmf(id, "5"), a);
    expect(bob.frames.some((f) => !f.sent && f.text.startsWith("INFO ") && /application\/dtmf-relay/i.test(f.text) && /^Signal=5\r?$/m.test(f.text))).toBe(true);

    // bob transfers alice to carol, blind; alice and carol then hear each other.
    const transferring = inPage(bob, (phone, id) => phone.transfer(id, "sip:carol@127.0.0.1"), b);
    const c = (await ringing(carol)).id;
    await inPage(carol, (phone, id) => phone.answer(id), c);
    await transferring;
    await untilCall(bob, b, (x) => x.state === "ended" && x.end?.kind === "transferred", "bob's leg ends as transferred");
    await untilCall(alice, a, (x) => x.state === "ended", "alice's leg to bob ends");
    const ac = (await calls(alice)).find((x) => x.id !== a && x.state === "active")!;
    expect(ac).toBeDefined();
    await expectHears(alice.page, 700, "alice hears carol");
    await expectHears(carol.page, 440, "carol hears alice");

    // alice hangs up; carol's call ends from the far side.
    await inPage(alice, (phone, id) => phone.hangup(id), ac.id);
    await untilCall(carol, c, (x) => x.state === "ended" && x.end?.kind === "hangup" && x.end.by === "remote", "carol's call is hung up by alice");

    // Stopped phones leave no binding behind in Kamailio's location table.
    expect(await kamailio.registeredUsers()).toEqual(["alice", "bob", "carol"]);
    for (const p of phones) await inPage(p, (phone) => phone.stop(), null);
    expect(await kamailio.registeredUsers()).toEqual([]);
    for (const p of phones) {
      const unregisters = p.frames.filter((f) => f.sent && f.text.startsWith("REGISTER ") && /;expires=0/.test(f.text));
      expect(unregisters.length, `${p.user} sent its un-REGISTER`).toBeGreaterThan(0);
    }
  } catch (e) {
    // What each phone sent and received, one line a message, and what Kamailio said.
    for (const p of phones) {
      const lines = p.frames.map((f) => `${f.sent ? ">" : "<"} ${f.text.split("\r\n")[0]} | ${/^CSeq:[^\r\n]*/im.exec(f.text)?.[0] ?? ""} ${(f.text.match(/^a=(sendrecv|sendonly|recvonly|inactive)/gm) ?? []).join(" ")}`);
      console.log(`--- ${p.user}\n${lines.join("\n")}`);
    }
    console.log(kamailio.log().split("\n").slice(-60).join("\n"));
    throw e;
  } finally {
    for (const p of phones) await p.browser.close();
  }
});
