import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_DOMAIN, TestPlatform, demo } from "./harness";
import { TestPhone, closePhoneMedia, until } from "./sip-phone";
import { RawSip, digestAnswer, header, newId, rawRegister, request, statusOf } from "./sip-raw";

/**
 * Digest answers and Contacts as an attacker would try them: an answer seen once (on the wire,
 * in a log) is worth nothing on another connection, for another Contact, for another destination
 * or a second time; a Contact belongs to the extension that registered it, so nobody else can
 * take its calls.
 */
let platform: TestPlatform;
const phones: TestPhone[] = [];
const raws: RawSip[] = [];

beforeAll(async () => {
  // Floods are held back by the rate limits of each connection and source, and by the source's
  // share of the event loop; here they must reach the registrar.
  platform = await TestPlatform.start({
    simRingMs: 300,
    sipRateBurst: 5000,
    sipRatePerSecond: 5000,
    sipSourceRateBurst: 5000,
    sipSourceRatePerSecond: 5000,
    sipSourceShare: 1,
  });
});

afterAll(async () => {
  for (const p of phones) await p.stop();
  for (const r of raws) r.close();
  await closePhoneMedia();
  await platform.close();
});

const sip = () => platform.platform.ctx.sip;
const contactsOf = (extension: string) =>
  platform.platform.ctx.sip.registrar.contactsOf(extension, DEMO_DOMAIN).map((b) => b.contactUser);

async function raw(): Promise<RawSip> {
  const r = await RawSip.open(platform.url);
  raws.push(r);
  return r;
}

async function phone(extension: string, tone: number): Promise<TestPhone> {
  const p = await TestPhone.start({
    url: platform.url,
    extension,
    password: demo.extensionPassword,
    domain: DEMO_DOMAIN,
    tone,
  });
  phones.push(p);
  expect(p.lastRegisterStatus).toBe(200);
  return p;
}

/** One registration of an extension by hand, whose messages a test may replay. */
function registration(extension: string) {
  const callId = newId();
  let cseq = 1;
  return {
    callId,
    text(contactUser: string, headers: string[] = []): string {
      return request({
        method: "REGISTER",
        uri: `sip:${DEMO_DOMAIN}`,
        callId,
        cseq: cseq++,
        from: `<sip:${extension}@${DEMO_DOMAIN}>`,
        to: `<sip:${extension}@${DEMO_DOMAIN}>`,
        contact: `<sip:${contactUser}@phone.invalid;transport=ws>`,
        headers: ["Expires: 300", ...headers],
      }).text;
    },
  };
}

const answerTo = (challenge: string, extension: string, method: string, uri: string, nc = 1) =>
  digestAnswer(header(challenge, method === "REGISTER" ? "www-authenticate" : "proxy-authenticate") ?? "", {
    username: extension,
    password: demo.extensionPassword,
    method,
    uri,
    nc,
  });

describe("a REGISTER's digest answer", () => {
  it("is refused from another WebSocket, for another Contact, and a second time with the same count", async () => {
    const phoneSide = await raw();
    const reg = registration("1004");
    const contact = `own${newId()}`;
    phoneSide.send(reg.text(contact));
    const challenge = await phoneSide.response(reg.callId, "REGISTER");
    expect(statusOf(challenge)).toBe(401);
    const authorization = answerTo(challenge, "1004", "REGISTER", `sip:${DEMO_DOMAIN}`);
    phoneSide.send(reg.text(contact, [`Authorization: ${authorization}`]));
    expect(statusOf(await phoneSide.response(reg.callId, "REGISTER"))).toBe(200);
    expect(contactsOf("1004")).toEqual([contact]);

    // Seen once, sent again from another connection for the attacker's own Contact.
    const attacker = await raw();
    const stolen = `thief${newId()}`;
    attacker.send(reg.text(stolen, [`Authorization: ${authorization}`]));
    const replayed = await attacker.response(reg.callId, "REGISTER");
    expect(statusOf(replayed)).toBe(401);
    // The same under a Call-ID of its own.
    const own = registration("1004");
    attacker.send(own.text(stolen, [`Authorization: ${authorization}`]));
    expect(statusOf(await attacker.response(own.callId, "REGISTER"))).toBe(401);
    expect(contactsOf("1004")).toEqual([contact]);

    // On the phone's own connection: the same count again is a replay; a new Contact is not
    // what the answer was made for.
    phoneSide.send(reg.text(contact, [`Authorization: ${authorization}`]));
    const again = await phoneSide.response(reg.callId, "REGISTER");
    expect(statusOf(again)).toBe(401);
    expect(header(again, "www-authenticate")).toMatch(/stale=true/);
    phoneSide.send(
      reg.text(stolen, [`Authorization: ${answerTo(challenge, "1004", "REGISTER", `sip:${DEMO_DOMAIN}`, 2)}`]),
    );
    expect(statusOf(await phoneSide.response(reg.callId, "REGISTER"))).toBe(401);
    expect(contactsOf("1004")).toEqual([contact]);
  });

  it("may reuse its nonce with a higher count (a refresh), never a count already used", async () => {
    const sip = await raw();
    const reg = registration("1010");
    const contact = `refresh${newId()}`;
    sip.send(reg.text(contact));
    const challenge = await sip.response(reg.callId, "REGISTER");
    const answer = (nc: number) => [
      `Authorization: ${answerTo(challenge, "1010", "REGISTER", `sip:${DEMO_DOMAIN}`, nc)}`,
    ];
    sip.send(reg.text(contact, answer(1)));
    expect(statusOf(await sip.response(reg.callId, "REGISTER"))).toBe(200);
    sip.send(reg.text(contact, answer(3)));
    expect(statusOf(await sip.response(reg.callId, "REGISTER"))).toBe(200);
    for (const used of [3, 2]) {
      sip.send(reg.text(contact, answer(used)));
      const refused = await sip.response(reg.callId, "REGISTER");
      expect(statusOf(refused)).toBe(401);
      expect(header(refused, "www-authenticate")).toMatch(/stale=true/);
    }
  });

  it("is answered by sip.js phones as before: registering, refreshing and unregistering work", async () => {
    const p = await phone("1002", 440);
    // A refresh resends the last Authorization; its nonce is spent, so the phone answers anew.
    expect(await p.register()).toBe(200);
    expect(await p.register()).toBe(200);
    expect(contactsOf("1002")).toEqual([p.contactUser]);
    expect(await p.unregister()).toBe(200);
    expect(contactsOf("1002")).toEqual([]);
  });
});

describe("an INVITE's digest answer", () => {
  const busy = (n: number) => `5552000${n}`;
  const sdp =
    "v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\n";

  function invite(number: string, callId = newId(), cseq = 1, headers: string[] = []) {
    return request({
      method: "INVITE",
      uri: `sip:${number}@${DEMO_DOMAIN}`,
      callId,
      cseq,
      from: `<sip:1003@${DEMO_DOMAIN}>`,
      to: `<sip:${number}@${DEMO_DOMAIN}>`,
      contact: `<sip:caller${newId()}@x.invalid;transport=ws>`,
      headers: ["Content-Type: application/sdp", ...headers],
      body: sdp,
    });
  }

  const final = (sip: RawSip, callId: string) =>
    sip.next(
      (m) =>
        m.startsWith("SIP/2.0 ") &&
        statusOf(m) >= 200 &&
        header(m, "call-id") === callId &&
        (header(m, "cseq") ?? "").endsWith("INVITE"),
      "a final answer to the INVITE",
    );

  it("calls only the destination it was made for, only once, only from its own connection", async () => {
    const sip = await raw();
    const first = invite(busy(1));
    sip.send(first.text);
    const challenge = await final(sip, first.callId);
    expect(statusOf(challenge)).toBe(407);
    const answer = answerTo(challenge, "1003", "INVITE", `sip:${busy(1)}@${DEMO_DOMAIN}`);
    const authorized = invite(busy(1), first.callId, 2, [`Proxy-Authorization: ${answer}`]);
    sip.send(authorized.text);
    // Past the challenge: the switch routed it to the busy party.
    expect(statusOf(await final(sip, first.callId))).toBe(486);

    // The same answer for another destination, in the same call attempt.
    sip.send(invite(busy(2), first.callId, 3, [`Proxy-Authorization: ${answer}`]).text);
    const redirected = await final(sip, first.callId);
    expect(statusOf(redirected)).toBe(400);

    // The same INVITE again: a count already used.
    sip.send(invite(busy(1), first.callId, 4, [`Proxy-Authorization: ${answer}`]).text);
    const replayed = await final(sip, first.callId);
    expect(statusOf(replayed)).toBe(407);
    expect(header(replayed, "proxy-authenticate")).toMatch(/stale=true/);

    // From another connection.
    const attacker = await raw();
    const copy = invite(busy(1), first.callId, 5, [`Proxy-Authorization: ${answer}`]);
    attacker.send(copy.text);
    expect(statusOf(await final(attacker, first.callId))).toBe(407);
  });
});

describe("a Contact", () => {
  it("belongs to the extension that registered it: another extension cannot take it or its calls", async () => {
    const alice = await phone("1001", 440);
    const bob = await phone("1002", 1000);

    // agent3's own credentials, alice's Contact user.
    const thief = await raw();
    const taken = await rawRegister(thief, {
      extension: "1003",
      password: demo.extensionPassword,
      domain: DEMO_DOMAIN,
      contactUser: alice.contactUser,
      expires: 300,
    });
    expect(statusOf(taken)).toBe(403);
    expect(contactsOf("1003")).toEqual([]);

    // Nor by calling with it.
    const callId = newId();
    const grab = (cseq: number, headers: string[] = []) =>
      request({
        method: "INVITE",
        uri: `sip:55520001@${DEMO_DOMAIN}`,
        callId,
        cseq,
        from: `<sip:1003@${DEMO_DOMAIN}>`,
        to: `<sip:55520001@${DEMO_DOMAIN}>`,
        contact: `<sip:${alice.contactUser}@x.invalid;transport=ws>`,
        headers,
      }).text;
    thief.send(grab(1));
    const challenge = await thief.next((m) => statusOf(m) === 407 && header(m, "call-id") === callId, "the challenge");
    thief.send(
      grab(2, [`Proxy-Authorization: ${answerTo(challenge, "1003", "INVITE", `sip:55520001@${DEMO_DOMAIN}`)}`]),
    );
    expect(
      statusOf(
        await thief.next(
          (m) => statusOf(m) >= 400 && statusOf(m) !== 407 && header(m, "call-id") === callId,
          "the refusal",
        ),
      ),
    ).toBe(403);

    // A call to alice rings alice's phone, and nothing reaches the thief's connection.
    const call = bob.call("1001");
    const ringing = await alice.incoming();
    expect(ringing.requestUri).toContain(alice.contactUser);
    await call.hangup();
    await ringing.waitEnded();
    expect(thief.received.filter((m) => m.startsWith("INVITE ") || m.startsWith("CANCEL "))).toEqual([]);
  });

  it("stays its extension's while its phone reconnects", async () => {
    const alice = await phone("1001", 440);
    const contact = alice.contactUser;
    alice.dropConnection();
    await until("the platform has seen the connection close", () => !contactsOf("1001").includes(contact));
    const thief = await raw();
    const taken = await rawRegister(thief, {
      extension: "1003",
      password: demo.extensionPassword,
      domain: DEMO_DOMAIN,
      contactUser: contact,
      expires: 300,
    });
    expect(statusOf(taken)).toBe(403);
    // alice comes back with her Contact.
    expect(await alice.reconnect()).toBe(200);
    expect(contactsOf("1001")).toContain(contact);
    expect(contactsOf("1003")).toEqual([]);
  });
});

describe("a REGISTER flood", () => {
  it("is answered without the platform remembering anything of it", async () => {
    const before = { hub: sip().hub.stats(), auth: sip().authenticator.stats() };
    const flooder = await raw();
    // A real nonce, answered with the right password, but given for another registration.
    const elsewhere = registration("1004");
    flooder.send(elsewhere.text(`other${newId()}`));
    const challenge = await flooder.response(elsewhere.callId, "REGISTER");
    const FLOOD = 1000;
    for (let i = 0; i < FLOOD; i++) {
      const reg = registration("1004");
      const credentials =
        i % 2 ? [`Authorization: ${answerTo(challenge, "1004", "REGISTER", `sip:${DEMO_DOMAIN}`)}`] : [];
      flooder.send(reg.text(`flood${i}`, credentials));
    }
    await until(
      `all ${FLOOD} are answered`,
      () => flooder.received.filter((m) => statusOf(m) === 401).length >= FLOOD + 1,
      30_000,
    );
    expect(flooder.received.filter((m) => statusOf(m) !== 401)).toEqual([]);
    expect(sip().hub.stats()).toEqual({ ...before.hub, connections: before.hub.connections + 1 });
    expect(sip().authenticator.stats()).toEqual(before.auth);
  });
});
