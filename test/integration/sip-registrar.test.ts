import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_DOMAIN, TestPlatform, demo } from "./harness";
import { TestPhone, closePhoneMedia, until } from "./sip-phone";
import { RawSip, header, headers, newId, rawRegister, request, statusOf } from "./sip-raw";

/**
 * The registrar as a phone sees it: digest with an extension token or the extension's password,
 * refusals, expiry echoed on every Contact, several contacts, unregistering, keep-alives, and
 * bindings that go with their WebSocket.
 */
let platform: TestPlatform;
const phones: TestPhone[] = [];
const raws: RawSip[] = [];

beforeAll(async () => {
  platform = await TestPlatform.start({ sipMinExpires: 2 });
});

afterAll(async () => {
  for (const p of phones) await p.stop();
  for (const r of raws) r.close();
  await closePhoneMedia();
  await platform.close();
});

const registrar = () => platform.platform.ctx.sip.registrar;
const contactsOf = (extension: string) => registrar().contactsOf(extension, DEMO_DOMAIN);

async function phone(extension: string, password: string, extra: { path?: "/ws" | "/sip"; register?: boolean } = {}) {
  const p = await TestPhone.start({ url: platform.url, extension, password, domain: DEMO_DOMAIN, tone: 440, ...extra });
  phones.push(p);
  return p;
}

async function raw(path = "/ws", protocol: string | null = "sip") {
  const r = await RawSip.open(platform.url, path, protocol);
  raws.push(r);
  return r;
}

async function extensionToken(login: string, extn: string): Promise<string> {
  const token = await platform.token(login);
  const res = await platform.call<{ token: string }>("POST", "/api/users/extn_token", {
    token,
    body: { extn, domain: DEMO_DOMAIN },
  });
  expect(res.status).toBe(200);
  return res.body.token;
}

describe("registration", () => {
  it("accepts an extension token from extn_token and the extension's own password", async () => {
    const token = await extensionToken("agent1", "1001");
    const withToken = await phone("1001", token);
    expect(withToken.lastRegisterStatus).toBe(200);
    const withPassword = await phone("1001", demo.extensionPassword);
    expect(withPassword.lastRegisterStatus).toBe(200);
    // Several contacts per extension: both phones are reachable.
    expect(
      contactsOf("1001")
        .map((b) => b.contactUser)
        .sort(),
    ).toEqual([withToken.contactUser, withPassword.contactUser].sort());
  });

  it("lists every contact of the extension with its expiry in the 200", async () => {
    const sip = await raw();
    const first = await rawRegister(sip, {
      extension: "1004",
      password: demo.extensionPassword,
      domain: DEMO_DOMAIN,
      contactUser: "first",
      expires: 300,
    });
    expect(statusOf(first)).toBe(200);
    expect(headers(first, "contact")).toEqual([expect.stringMatching(/^<sip:first@[^>]+>;expires=(300|299)$/)]);
    const second = await rawRegister(sip, {
      extension: "1004",
      password: demo.extensionPassword,
      domain: DEMO_DOMAIN,
      contactUser: "second",
      expires: 120,
    });
    const contacts = headers(second, "contact");
    expect(contacts).toHaveLength(2);
    expect(contacts).toContainEqual(expect.stringMatching(/^<sip:second@[^>]+>;expires=(120|119)$/));
    expect(contacts).toContainEqual(expect.stringMatching(/^<sip:first@[^>]+>;expires=\d+$/));
  });

  it("refuses a wrong password with 403 and answers a REGISTER without credentials with a digest challenge", async () => {
    const sip = await raw();
    const { text, callId } = request({
      method: "REGISTER",
      uri: `sip:${DEMO_DOMAIN}`,
      from: `<sip:1002@${DEMO_DOMAIN}>`,
      to: `<sip:1002@${DEMO_DOMAIN}>`,
      contact: "<sip:nobody@x.invalid;transport=ws>",
    });
    sip.send(text);
    const challenge = await sip.response(callId, "REGISTER");
    expect(statusOf(challenge)).toBe(401);
    expect(header(challenge, "www-authenticate")).toMatch(
      new RegExp(`^Digest realm="${DEMO_DOMAIN}", nonce="[^"]+", qop="auth", algorithm=MD5$`),
    );

    const wrong = await phone("1002", "not-the-password");
    expect(wrong.lastRegisterStatus).toBe(403);
    expect(contactsOf("1002")).toEqual([]);
  });

  it("refuses a disabled extension and an extension of a disabled user", async () => {
    platform.db.prepare("UPDATE extensions SET disabled = 1 WHERE extn = '1003'").run();
    const disabledExtension = await phone("1003", demo.extensionPassword);
    expect(disabledExtension.lastRegisterStatus).toBe(403);
    platform.db.prepare("UPDATE extensions SET disabled = 0 WHERE extn = '1003'").run();

    platform.db.prepare("UPDATE users SET disabled = 1 WHERE login = 'agent3'").run();
    const disabledUser = await phone("1003", demo.extensionPassword);
    expect(disabledUser.lastRegisterStatus).toBe(403);
    platform.db.prepare("UPDATE users SET disabled = 0 WHERE login = 'agent3'").run();

    const enabled = await phone("1003", demo.extensionPassword);
    expect(enabled.lastRegisterStatus).toBe(200);
  });

  it("lets a registration expire, refuses one shorter than the minimum, and unregisters", async () => {
    const sip = await raw();
    const tooShort = await rawRegister(sip, {
      extension: "1010",
      password: demo.extensionPassword,
      domain: DEMO_DOMAIN,
      contactUser: "brief",
      expires: 1,
    });
    expect(statusOf(tooShort)).toBe(423);
    expect(header(tooShort, "min-expires")).toBe("2");

    const short = await rawRegister(sip, {
      extension: "1010",
      password: demo.extensionPassword,
      domain: DEMO_DOMAIN,
      contactUser: "short",
      expires: 2,
    });
    expect(statusOf(short)).toBe(200);
    expect(header(short, "contact")).toMatch(/;expires=2$/);
    expect(contactsOf("1010").map((b) => b.contactUser)).toEqual(["short"]);
    await until("the 2 s registration has expired", () => contactsOf("1010").length === 0);

    const p = await phone("1010", demo.extensionPassword);
    expect(contactsOf("1010").map((b) => b.contactUser)).toEqual([p.contactUser]);
    expect(await p.unregister()).toBe(200);
    expect(contactsOf("1010")).toEqual([]);
  });

  it("forgets the bindings of a WebSocket that closes", async () => {
    const p = await phone("1002", demo.extensionPassword);
    expect(contactsOf("1002").map((b) => b.contactUser)).toContain(p.contactUser);
    p.dropConnection();
    await until("the binding is gone", () => !contactsOf("1002").some((b) => b.contactUser === p.contactUser));
  });
});

describe("transport", () => {
  it("serves SIP on /sip and on /ws with the sip subprotocol, not on /ws without it", async () => {
    const onSip = await phone("1004", demo.extensionPassword, { path: "/sip" });
    expect(onSip.lastRegisterStatus).toBe(200);
    const connections = platform.platform.ctx.sip.hub.list().length;
    // Without the subprotocol, /ws is the JSON-RPC event channel (or nothing yet): never SIP.
    await raw("/ws", null).catch(() => undefined);
    expect(platform.platform.ctx.sip.hub.list().length).toBe(connections);
  });

  // Without acceptAnyRequestUri (sip-server.ts), sip.js's core would answer the OPTIONS to
  // sip:1001@… and the INVITE below 404 "Request-URI does not point to us".
  it("answers OPTIONS to any Request-URI and double-CRLF keep-alives", async () => {
    const sip = await raw();
    sip.send("\r\n\r\n");
    expect(await sip.next((m) => m === "\r\n", "a CRLF pong")).toBe("\r\n");
    const { text, callId } = request({
      method: "OPTIONS",
      uri: `sip:1001@${DEMO_DOMAIN}`,
      from: `<sip:probe@${DEMO_DOMAIN}>`,
      to: `<sip:1001@${DEMO_DOMAIN}>`,
    });
    sip.send(text);
    expect(statusOf(await sip.response(callId, "OPTIONS"))).toBe(200);
  });

  it("challenges an INVITE with 407 before it is routed anywhere", async () => {
    const sip = await raw();
    const { text, callId } = request({
      method: "INVITE",
      uri: `sip:1002@${DEMO_DOMAIN}`,
      from: `<sip:1001@${DEMO_DOMAIN}>`,
      to: `<sip:1002@${DEMO_DOMAIN}>`,
      contact: `<sip:${newId()}@x.invalid;transport=ws>`,
      headers: ["Content-Type: application/sdp"],
      body: "v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\n",
    });
    sip.send(text);
    const answer = await sip.next(
      (m) => m.startsWith("SIP/2.0 ") && !m.startsWith("SIP/2.0 100") && header(m, "call-id") === callId,
      "a final response",
    );
    expect(statusOf(answer)).toBe(407);
    expect(header(answer, "proxy-authenticate")).toMatch(/^Digest realm=/);
  });
});
