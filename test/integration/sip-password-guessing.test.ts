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
  // The guesser's connection may send as fast as it likes and take the whole event loop: only the
  // guessing rule holds it back.
  platform = await TestPlatform.start({
    sipRateBurst: 1000,
    sipRatePerSecond: 1000,
    sipSourceRateBurst: 1000,
    sipSourceRatePerSecond: 1000,
    sipSourceShare: 1,
    simRingMs: 300,
  });
});

afterAll(async () => {
  for (const p of phones) await p.stop();
  for (const r of raws) r.close();
  await closePhoneMedia();
  await platform.close();
});

const contactsOf = (extension: string) =>
  platform.platform.ctx.sip.registrar.contactsOf(extension, DEMO_DOMAIN).map((b) => b.contactUser);

async function raw(localAddress?: string): Promise<RawSip> {
  const r = await RawSip.open(platform.url, "/ws", "sip", localAddress);
  raws.push(r);
  return r;
}

const GUESSES = 400;

/** A REGISTER of 1001 for one Contact, written by hand request by request. */
function registration(contactUser: string) {
  const callId = newId();
  return {
    callId,
    text: (cseq: number, headers: string[] = []) =>
      request({
        method: "REGISTER",
        uri: `sip:${DEMO_DOMAIN}`,
        callId,
        cseq,
        from: `<sip:1001@${DEMO_DOMAIN}>`,
        to: `<sip:1001@${DEMO_DOMAIN}>`,
        contact: `<sip:${contactUser}@phone.invalid;transport=ws>`,
        headers: ["Expires: 300", ...headers],
      }).text,
  };
}

const authorization = (challenge: string, password: string, nc = 1) =>
  `Authorization: ${digestAnswer(challenge, { username: "1001", password, method: "REGISTER", uri: `sip:${DEMO_DOMAIN}`, nc })}`;

async function challengeOf(sip: RawSip, reg: ReturnType<typeof registration>): Promise<string> {
  sip.send(reg.text(1));
  return header(await sip.response(reg.callId, "REGISTER"), "www-authenticate") ?? "";
}

/** An OPTIONS whose answer shows which answers came before it. */
const probe = () =>
  request({
    method: "OPTIONS",
    uri: `sip:${DEMO_DOMAIN}`,
    from: `<sip:probe@${DEMO_DOMAIN}>`,
    to: `<sip:probe@${DEMO_DOMAIN}>`,
  });

/** Where, among what `sip` received, the final answers with this Call-ID are (waits for `count`). */
async function finalAnswers(sip: RawSip, callId: string, count = 1): Promise<number[]> {
  const at = () =>
    sip.received.flatMap((m, i) =>
      header(m, "call-id") === callId && statusOf(m) >= 200 && statusOf(m) !== 401 ? [i] : [],
    );
  await until(`${count} final answer(s) to ${callId}`, () => at().length >= count, 30_000);
  return at();
}

describe("wrong SIP passwords in a row", () => {
  it("are answered ever more slowly, then not checked at all, while proven phones and other sources go on", async () => {
    const agent = await TestPhone.start({
      url: platform.url,
      extension: "1001",
      password: demo.extensionPassword,
      domain: DEMO_DOMAIN,
      tone: 440,
    });
    phones.push(agent);
    expect(agent.lastRegisterStatus).toBe(200);

    const guesser = await raw();
    const guessing = registration(`guess${newId()}`);
    const challenge = await challengeOf(guesser, guessing);
    for (let i = 1; i <= GUESSES; i++) guesser.send(guessing.text(i + 1, [authorization(challenge, `guess-${i}`, i)]));
    // Then the right password, from the same source: not even checked now.
    guesser.send(guessing.text(GUESSES + 2, [authorization(challenge, demo.extensionPassword, GUESSES + 1)]));
    // Sent after every guess: answered before the guesses that are held back.
    const afterGuesses = probe();
    guesser.send(afterGuesses.text);

    const answers = (await finalAnswers(guesser, guessing.callId, GUESSES + 1)).map((i) => guesser.received[i]!);
    const statuses = answers.map(statusOf);
    expect(statusOf(answers.find((m) => header(m, "cseq") === `${GUESSES + 2} REGISTER`)!)).toBe(503);
    expect(contactsOf("1001")).toEqual([agent.contactUser]);
    expect(new Set(statuses)).toEqual(new Set([403, 503]));
    const checked = statuses.filter((s) => s === 403).length;
    expect(checked).toBeGreaterThanOrEqual(5);
    expect(checked).toBeLessThanOrEqual(20);
    for (const refused of answers.filter((m) => statusOf(m) === 503))
      expect(Number(header(refused, "retry-after"))).toBeGreaterThanOrEqual(1);
    // The last guesses checked were held back: the OPTIONS sent after them was answered first.
    const [probedAt] = await finalAnswers(guesser, afterGuesses.callId);
    expect(
      guesser.received.findLastIndex((m) => header(m, "call-id") === guessing.callId && statusOf(m) === 403),
    ).toBeGreaterThan(probedAt!);

    // The agent's phone proved itself on its connection: it refreshes and calls as before.
    expect(await agent.register()).toBe(200);
    const call = agent.call("55520001");
    await until("the agent's call is answered busy", () => call.finalStatus !== undefined);
    expect(call.finalStatus).toBe(486);

    // A phone on another source that never guessed wrong is let in at once: its 200 comes before
    // the answer to an OPTIONS sent after it.
    const elsewhere = await raw("127.0.0.2");
    const desk = registration(`desk${newId()}`);
    const deskChallenge = await challengeOf(elsewhere, desk);
    elsewhere.send(desk.text(2, [authorization(deskChallenge, demo.extensionPassword)]));
    const afterDesk = probe();
    elsewhere.send(afterDesk.text);
    const [registeredAt] = await finalAnswers(elsewhere, desk.callId);
    const [deskProbedAt] = await finalAnswers(elsewhere, afterDesk.callId);
    expect(statusOf(elsewhere.received[registeredAt!]!)).toBe(200);
    expect(registeredAt).toBeLessThan(deskProbedAt!);
  });
});
