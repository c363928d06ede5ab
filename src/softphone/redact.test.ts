import { describe, expect, it } from "vitest";
import { REDACTED, redactAuthValue, redactBody, redactKnownSecrets, redactSipMessage, redactUrl } from "./redact";

const crlf = (lines: string[]) => lines.join("\r\n");

// A REGISTER as sip.js sends it after a 401, answering the challenge with the extension token.
const register = crlf([
  "REGISTER sip:agentbar.local SIP/2.0",
  "Via: SIP/2.0/WSS 4j5mknp2s8dp.invalid;branch=z9hG4bK2217437",
  "To: <sip:1001@agentbar.local>",
  'From: "Alice" <sip:1001@agentbar.local>;tag=2c0sqrk0lm',
  "CSeq: 2 REGISTER",
  "Call-ID: 6lkqtj2ua9r2pdqhhd0p",
  "Max-Forwards: 70",
  'Authorization: Digest algorithm=MD5, username="1001", realm="agentbar.local", nonce="MTc5NTYwOTk5MC4xMjM0NTY3ODk=.a1b2c3", uri="sip:agentbar.local", response="6629fae49393a05397450978507c4ef1", opaque="5ccc069c403ebaf9f0171e9517f40e41", qop=auth, cnonce="ucdk2tg0ik2v", nc=00000001',
  "Contact: <sip:q7m4b1ar@4j5mknp2s8dp.invalid;transport=ws>;expires=600",
  "Expires: 600",
  "Allow: ACK,CANCEL,INVITE,MESSAGE,BYE,OPTIONS,INFO,NOTIFY,REFER",
  "Supported: outbound, path, gruu",
  "User-Agent: Agentbar/0.1.0",
  "Content-Length: 0",
  "",
  "",
]);

describe("redactSipMessage", () => {
  it("keeps a REGISTER readable but without its digest response, nonce, cnonce or opaque", () => {
    const out = redactSipMessage(register);
    expect(out).not.toContain("6629fae49393a05397450978507c4ef1");
    expect(out).not.toContain("ucdk2tg0ik2v");
    expect(out).not.toContain("MTc5NTYwOTk5MC4xMjM0NTY3ODk");
    expect(out).not.toContain("5ccc069c403ebaf9f0171e9517f40e41");
    expect(out).toContain(
      `Authorization: Digest algorithm=MD5, username="1001", realm="agentbar.local", nonce="${REDACTED}", uri="sip:agentbar.local", response="${REDACTED}", opaque="${REDACTED}", qop=auth, cnonce="${REDACTED}", nc=00000001`,
    );
    // Everything else is exactly as it was.
    const others = (text: string) => text.split("\r\n").filter((l) => !l.startsWith("Authorization:"));
    expect(others(out)).toEqual(others(register));
  });

  it("redacts Proxy-Authorization on an INVITE and a Bearer token, and keeps the SDP but its ICE password", () => {
    const invite = crlf([
      "INVITE sip:2000@agentbar.local SIP/2.0",
      "Via: SIP/2.0/WSS 4j5mknp2s8dp.invalid;branch=z9hG4bK9981",
      "CSeq: 2 INVITE",
      'Proxy-Authorization: Digest username="1001", realm="agentbar.local", nonce="abc", uri="sip:2000@agentbar.local", response="0123456789abcdef0123456789abcdef", algorithm=MD5',
      "X-Api-Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMDAxIn0.c2lnbmF0dXJl",
      "Content-Type: application/sdp",
      "",
      "v=0",
      "o=- 1 2 IN IP4 127.0.0.1",
      "m=audio 9 UDP/TLS/RTP/SAVPF 111",
      "a=candidate:1 1 udp 2122194687 192.0.2.7 50000 typ host",
      "a=ice-ufrag:Ab12",
      "a=ice-pwd:Zx9yW8vU7tS6rQ5pO4nM3lK2",
      "a=fingerprint:sha-256 45:C5:DB:79",
      "",
    ]);
    const out = redactSipMessage(invite);
    expect(out).not.toContain("0123456789abcdef0123456789abcdef");
    expect(out).not.toContain("eyJhbGciOiJIUzI1NiJ9");
    expect(out).not.toContain("Zx9yW8vU7tS6rQ5pO4nM3lK2");
    expect(out).toContain(`X-Api-Authorization: ${REDACTED}`);
    expect(out).toContain(`a=ice-pwd:${REDACTED}`);
    // What a support engineer needs stays: candidates, ufrag, fingerprint, the digest's names.
    expect(out).toContain("a=candidate:1 1 udp 2122194687 192.0.2.7 50000 typ host");
    expect(out).toContain("a=ice-ufrag:Ab12");
    expect(out).toContain('username="1001", realm="agentbar.local"');
  });

  it("keeps a challenge's realm and algorithm but not its nonce", () => {
    const challenge = crlf([
      "SIP/2.0 401 Unauthorized",
      "Via: SIP/2.0/WSS 4j5mknp2s8dp.invalid;branch=z9hG4bK2217437",
      'WWW-Authenticate: Digest realm="agentbar.local", nonce="MTc5NTYw.a1b2", qop="auth", algorithm=MD5, stale=true',
      "Content-Length: 0",
      "",
      "",
    ]);
    expect(redactSipMessage(challenge)).toContain(
      `WWW-Authenticate: Digest realm="agentbar.local", nonce="${REDACTED}", qop="auth", algorithm=MD5, stale=true`,
    );
  });

  it("redacts token-like headers, URI parameters and Authentication-Info", () => {
    const message = crlf([
      "INVITE sip:2000@agentbar.local;token=s3cr3t-t0k3n;transport=ws SIP/2.0",
      "To: <sip:2000@agentbar.local;user=phone>",
      "Contact: <sip:q7m4@x.invalid;transport=ws;auth-id=a1b2c3d4>",
      "X-XTRA-AUTH-ID: 9f8e7d6c5b4a",
      "X-Token: tok-123456",
      'Authentication-Info: nextnonce="n1", rspauth="deadbeefdeadbeef", qop=auth',
      "Subject: password reset call",
      "",
      "",
    ]);
    const out = redactSipMessage(message);
    for (const secret of ["s3cr3t-t0k3n", "a1b2c3d4", "9f8e7d6c5b4a", "tok-123456", "deadbeefdeadbeef"])
      expect(out).not.toContain(secret);
    expect(out).toContain(`INVITE sip:2000@agentbar.local;token=${REDACTED};transport=ws SIP/2.0`);
    expect(out).toContain("To: <sip:2000@agentbar.local;user=phone>");
    expect(out).toContain(`Authentication-Info: nextnonce="${REDACTED}", rspauth="${REDACTED}", qop=auth`);
    // A header whose *value* mentions a password is no secret.
    expect(out).toContain("Subject: password reset call");
  });
});

describe("redactBody", () => {
  it("empties secret-named JSON keys: a Verto login, a sign-in, a token answer", () => {
    const login = JSON.stringify({
      jsonrpc: "2.0",
      method: "login",
      id: 1,
      params: {
        login: "1001@agentbar.local",
        passwd: "Agentbar@2026",
        loginParams: { xui_sessid: "0f1e2d3c4b5a69788796a5b4c3d2e1f0" },
        sessid: "b0a1c2d3",
      },
    });
    const out = redactBody(login);
    for (const secret of ["Agentbar@2026", "0f1e2d3c4b5a69788796a5b4c3d2e1f0", "b0a1c2d3"])
      expect(out).not.toContain(secret);
    expect(JSON.parse(out)).toEqual({
      jsonrpc: "2.0",
      method: "login",
      id: 1,
      params: {
        login: "1001@agentbar.local",
        passwd: REDACTED,
        loginParams: { xui_sessid: REDACTED },
        sessid: REDACTED,
      },
    });
    const tokens = redactBody('{"code":200,"data":{"token":"tk_1","refresh_token":"rt_2","extn_id":7,"expires":3600}}');
    expect(JSON.parse(tokens)).toEqual({
      code: 200,
      data: { token: REDACTED, refresh_token: REDACTED, extn_id: 7, expires: 3600 },
    });
  });

  it("empties secret-named form fields and SDES keys", () => {
    expect(redactBody("login=agent1&password=Agentbar%402026&captcha=x1")).toBe(
      `login=agent1&password=${REDACTED}&captcha=x1`,
    );
    expect(
      redactBody("a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:WVNfX19zZW1jdGwgKCkgewkyMjA7fQp9CnVubGVz|2^20|1:32"),
    ).toBe(`a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:${REDACTED}|2^20|1:32`);
  });
});

describe("redactAuthValue, redactUrl, redactKnownSecrets", () => {
  it("keeps only the scheme of a token credential", () => {
    expect(redactAuthValue("Bearer abc.def.ghi")).toBe(`Bearer ${REDACTED}`);
    expect(redactAuthValue("Basic")).toBe("Basic");
  });

  it("takes user, password and secret parameters out of URLs", () => {
    expect(redactUrl("wss://agent:pw@pbx.example.com/sip?token=abc&x=1")).toBe(
      `wss://${REDACTED}@pbx.example.com/sip?token=${REDACTED}&x=1`,
    );
    expect(redactUrl("turn:turn.example.com:3478?transport=udp")).toBe("turn:turn.example.com:3478?transport=udp");
  });

  it("replaces every occurrence of known secrets, longest first", () => {
    const text = "token tk-abcdef12 inside tk-abcdef12-and-more, password Agentbar@2026";
    expect(redactKnownSecrets(text, ["tk-abcdef12", "tk-abcdef12-and-more", "Agentbar@2026", "", "ab"])).toBe(
      `token ${REDACTED} inside ${REDACTED}, password ${REDACTED}`,
    );
  });
});
