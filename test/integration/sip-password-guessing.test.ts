import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_DOMAIN, TestPlatform, demo } from "./harness";
import { TestPhone, closePhoneMedia, until } from "./sip-phone";
import { RawSip, digestAnswer, header, newId, request, statusOf } from "./sip-raw";

/**
 * Guessing SIP passwords gets slow: after a few wrong answers from one source, or for one
 * extension, answers are held back and then not checked at all (503 with Retry-After), even the
 * right one. Phones that already proved themselves on their connection, and sources that never
 * guessed wrong, are not held back.
 */
let platform: TestPlatform;
const raws: RawSip[] = [];
const phones: TestPhone[] = [];

beforeAll(async () => {
  // The guesser's connection may send as fast as it likes: only the guessing rule holds it back.
  platform = await TestPlatform.start({ sipRateBurst: 1000, sipRatePerSecond: 1000, simRingMs: 300 });
});

afterAll(async () => {
  for (const p of phones) await p.stop();
  for (const r of raws) r.close();
  await closePhoneMedia();
  await platform.close();
});

const contactsOf = (extension: string) => platform.platform.ctx.sip.registrar.contactsOf(extension, DEMO_DOMAIN).map((b) => b.contactUser);

async function raw(localAddress?: string): Promise<RawSip> {
  const r = await RawSip.open(platform.url, "/ws", "sip", localAddress);
  raws.push(r);
  return r;
}

const GUESSES = 400;

describe("wrong SIP passwords in a row", () => {
  it("are answered ever more slowly, then not checked at all, while proven phones and other sources go on", async () => {
    const agent = await TestPhone.start({ url: platform.url, extension: "1001", password: demo.extensionPassword, domain: DEMO_DOMAIN, tone: 440 });
    phones.push(agent);
    expect(agent.lastRegisterStatus).toBe(200);

    const guesser = await raw();
    const callId = newId();
    const contact = `<sip:guess${newId()}@x.invalid;transport=ws>`;
    const register = (cseq: number, headers: string[] = []) =>
      request({
        method: "REGISTER",
        uri: `sip:${DEMO_DOMAIN}`,
        callId,
        cseq,
        from: `<sip:1001@${DEMO_DOMAIN}>`,
        to: `<sip:1001@${DEMO_DOMAIN}>`,
        contact,
        headers: ["Expires: 300", ...headers],
      }).text;
    guesser.send(register(1));
    const challenge = header(await guesser.response(callId, "REGISTER"), "www-authenticate") ?? "";
    for (let i = 1; i <= GUESSES; i++) {
      const answer = digestAnswer(challenge, { username: "1001", password: `guess-${i}`, method: "REGISTER", uri: `sip:${DEMO_DOMAIN}`, nc: i });
      guesser.send(register(i + 1, [`Authorization: ${answer}`]));
    }
    // Then the right password, from the same source: not even checked now.
    const right = digestAnswer(challenge, { username: "1001", password: demo.extensionPassword, method: "REGISTER", uri: `sip:${DEMO_DOMAIN}`, nc: GUESSES + 1 });
    guesser.send(register(GUESSES + 2, [`Authorization: ${right}`]));
    // Sent after every guess: answered before the guesses that are held back.
    const probe = request({ method: "OPTIONS", uri: `sip:${DEMO_DOMAIN}`, from: `<sip:probe@${DEMO_DOMAIN}>`, to: `<sip:probe@${DEMO_DOMAIN}>` });
    guesser.send(probe.text);

    const answers = () => guesser.received.filter((m) => header(m, "call-id") === callId && statusOf(m) !== 401);
    await until(`all ${GUESSES} guesses are answered`, () => answers().length >= GUESSES + 1, 30_000);
    const byCseq = (cseq: number) => answers().find((m) => header(m, "cseq") === `${cseq} REGISTER`)!;
    expect(statusOf(byCseq(GUESSES + 2))).toBe(503);
    expect(contactsOf("1001")).toEqual([agent.contactUser]);
    const statuses = answers().map(statusOf);
    expect(new Set(statuses)).toEqual(new Set([403, 503]));
    const checked = statuses.filter((s) => s === 403).length;
    expect(checked).toBeGreaterThanOrEqual(5);
    expect(checked).toBeLessThanOrEqual(20);
    for (const refused of answers().filter((m) => statusOf(m) === 503)) {
      expect(Number(header(refused, "retry-after"))).toBeGreaterThanOrEqual(1);
    }
    // The last guesses checked were held back: the OPTIONS sent after them was answered first.
    const optionsAt = guesser.received.findIndex((m) => header(m, "call-id") === probe.callId);
    const lastCheckedAt = guesser.received.findLastIndex((m) => header(m, "call-id") === callId && statusOf(m) === 403);
    expect(optionsAt).toBeGreaterThanOrEqual(0);
    expect(lastCheckedAt).toBeGreaterThan(optionsAt);

    // The agent's phone proved itself on its connection: it refreshes and calls as before.
    expect(await agent.register()).toBe(200);
    const call = agent.call("55520001");
    await until("the agent's call is answered busy", () => call.finalStatus !== undefined);
    expect(call.finalStatus).toBe(486);

    // A phone on another source that never guessed wrong is let in at once: its 200 comes before
    // the answer to an OPTIONS sent after it.
    const elsewhere = await raw("127.0.0.2");
    const desk = request({
      method: "REGISTER",
      uri: `sip:${DEMO_DOMAIN}`,
      from: `<sip:1001@${DEMO_DOMAIN}>`,
      to: `<sip:1001@${DEMO_DOMAIN}>`,
      contact: `<sip:desk${newId()}@x.invalid;transport=ws>`,
      headers: ["Expires: 300"],
    });
    elsewhere.send(desk.text);
    const deskChallenge = header(await elsewhere.response(desk.callId, "REGISTER"), "www-authenticate") ?? "";
    const deskAnswer = digestAnswer(deskChallenge, { username: "1001", password: demo.extensionPassword, method: "REGISTER", uri: `sip:${DEMO_DOMAIN}` });
    elsewhere.send(desk.text.replace("CSeq: 1 REGISTER", `CSeq: 2 REGISTER\r\nAuthorization: ${deskAnswer}`).replace(/branch=\S+/, `branch=z9hG4bK${newId()}`));
    const deskProbe = request({ method: "OPTIONS", uri: `sip:${DEMO_DOMAIN}`, from: `<sip:probe@${DEMO_DOMAIN}>`, to: `<sip:probe@${DEMO_DOMAIN}>` });
    elsewhere.send(deskProbe.text);
    const registered = await elsewhere.response(desk.callId, "REGISTER");
    const probed = await elsewhere.response(deskProbe.callId, "OPTIONS");
    expect(statusOf(registered)).toBe(200);
    expect(elsewhere.received.indexOf(registered)).toBeLessThan(elsewhere.received.indexOf(probed));
  });
});
