import { describe, expect, it } from "vitest";
import { causeOfSipStatus, reasonHeaderOf, sipStatusOfCause } from "./causes";
import { DigestAuthenticator, NonceCounts, parseDigest, type DigestRequest } from "./digest";
import { audioDirection } from "./media-direction";
import { firstAudioCodec } from "./sdh";
import { displayNameForSip } from "./display-name";
import { dtmfOfInfo } from "./sip-channel";
import { isKeepAlive, requestMethod, requestUriUser, statelessResponse, topViaBranch } from "./wire";
import { createHash } from "node:crypto";

const md5 = (s: string) => createHash("md5").update(s).digest("hex");

describe("hang-up causes", () => {
  it("reads SIP final responses as FreeSWITCH does", () => {
    expect(causeOfSipStatus(486)).toBe("USER_BUSY");
    expect(causeOfSipStatus(600)).toBe("USER_BUSY");
    expect(causeOfSipStatus(603)).toBe("CALL_REJECTED");
    expect(causeOfSipStatus(403)).toBe("CALL_REJECTED");
    expect(causeOfSipStatus(480)).toBe("NO_USER_RESPONSE");
    expect(causeOfSipStatus(404)).toBe("UNALLOCATED_NUMBER");
    expect(causeOfSipStatus(487)).toBe("ORIGINATOR_CANCEL");
    expect(causeOfSipStatus(408)).toBe("RECOVERY_ON_TIMER_EXPIRE");
    expect(causeOfSipStatus(503)).toBe("NORMAL_TEMPORARY_FAILURE");
    expect(causeOfSipStatus(499)).toBe("NORMAL_UNSPECIFIED");
  });

  it("answers callers and writes Reason headers for causes", () => {
    expect(sipStatusOfCause("USER_BUSY")).toBe(486);
    expect(sipStatusOfCause("USER_NOT_REGISTERED")).toBe(480);
    expect(sipStatusOfCause("NO_ANSWER")).toBe(480);
    expect(sipStatusOfCause("UNALLOCATED_NUMBER")).toBe(404);
    expect(sipStatusOfCause("CALL_REJECTED")).toBe(603);
    expect(reasonHeaderOf("PICKED_OFF")).toBe('Reason: SIP;cause=200;text="Call completed elsewhere"');
    expect(reasonHeaderOf("LOSE_RACE")).toBe('Reason: SIP;cause=200;text="Call completed elsewhere"');
    expect(reasonHeaderOf("NORMAL_CLEARING")).toBe('Reason: Q.850;cause=16;text="NORMAL_CLEARING"');
    expect(reasonHeaderOf("ORIGINATOR_CANCEL")).toBe('Reason: SIP;cause=487;text="ORIGINATOR_CANCEL"');
  });
});

describe("digest authentication", () => {
  const register: DigestRequest = {
    method: "REGISTER",
    requestUri: "sip:agentbar.local",
    binding: "conn 1, contact abc",
  };
  const answer = (
    challenge: string,
    password: string,
    o: { nonce?: string; realm?: string; nc?: number; uri?: string; method?: string; qop?: boolean } = {},
  ) => {
    const nonce = o.nonce ?? /nonce="([^"]+)"/.exec(challenge)![1]!;
    const realm = o.realm ?? "agentbar.local";
    const uri = o.uri ?? "sip:agentbar.local";
    const nc = (o.nc ?? 1).toString(16).padStart(8, "0");
    const ha1 = md5(`1001:${realm}:${password}`);
    const ha2 = md5(`${o.method ?? "REGISTER"}:${uri}`);
    if (o.qop === false) {
      return `Digest username="1001", realm="${realm}", nonce="${nonce}", uri="${uri}", response="${md5(`${ha1}:${nonce}:${ha2}`)}", algorithm=MD5`;
    }
    const response = md5(`${ha1}:${nonce}:${nc}:abc:auth:${ha2}`);
    return `Digest username="1001", realm="${realm}", nonce="${nonce}", uri="${uri}", response="${response}", qop=auth, nc=${nc}, cnonce="abc", algorithm=MD5`;
  };

  it("accepts any of the passwords and refuses others", () => {
    const auth = new DigestAuthenticator("agentbar.local");
    const challenge = auth.challenge(register);
    const passwords = () => ["own-password", "token-1"];
    expect(auth.check(answer(challenge, "token-1"), register, passwords)).toEqual({ ok: true, username: "1001" });
    expect(auth.check(answer(challenge, "own-password", { nc: 2 }), register, passwords).ok).toBe(true);
    expect(auth.check(answer(challenge, "guess", { nc: 3 }), register, passwords)).toMatchObject({
      ok: false,
      reason: "password",
    });
    expect(auth.check(undefined, register, passwords)).toEqual({ ok: false, reason: "missing" });
  });

  it("refuses nonces it did not make and other realms, and calls old nonces stale", () => {
    let now = 1_000_000;
    const auth = new DigestAuthenticator("agentbar.local", { nonceLifetimeMs: 50, now: () => now });
    const challenge = auth.challenge(register);
    const passwords = () => ["pw"];
    expect(auth.check(answer(challenge, "pw", { nonce: "made.up.nonce" }), register, passwords)).toMatchObject({
      reason: "nonce",
    });
    expect(auth.check(answer(challenge, "pw", { realm: "elsewhere" }), register, passwords)).toMatchObject({
      reason: "realm",
    });
    now += 51;
    expect(auth.check(answer(challenge, "pw"), register, passwords)).toMatchObject({ reason: "stale" });
    expect(auth.challenge(register, true)).toMatch(/, stale=true$/);
  });

  it("takes an answer only for the request its nonce was made for, and only for its Request-URI", () => {
    const auth = new DigestAuthenticator("agentbar.local");
    const passwords = () => ["pw"];
    const challenge = auth.challenge(register);
    // Another connection or other Contacts: not a nonce of ours for that request.
    expect(
      auth.check(answer(challenge, "pw"), { ...register, binding: "conn 2, contact abc" }, passwords),
    ).toMatchObject({ reason: "nonce" });
    expect(
      auth.check(answer(challenge, "pw"), { ...register, binding: "conn 1, contact xyz" }, passwords),
    ).toMatchObject({ reason: "nonce" });
    // A REGISTER's nonce does not make a call.
    const invite = { method: "INVITE", requestUri: "sip:1002@agentbar.local", binding: register.binding };
    expect(
      auth.check(answer(challenge, "pw", { method: "INVITE", uri: invite.requestUri }), invite, passwords),
    ).toMatchObject({ reason: "nonce" });
    // An INVITE's answer names its destination.
    const inviteChallenge = auth.challenge(invite);
    const elsewhere = { ...invite, requestUri: "sip:1003@agentbar.local" };
    expect(
      auth.check(answer(inviteChallenge, "pw", { method: "INVITE", uri: invite.requestUri }), elsewhere, passwords),
    ).toMatchObject({ reason: "uri" });
    // The same URI written otherwise is the same URI.
    expect(
      auth.check(
        answer(inviteChallenge, "pw", { method: "INVITE", uri: "sip:1002@AgentBar.Local" }),
        invite,
        passwords,
      ),
    ).toEqual({ ok: true, username: "1001" });
  });

  it("accepts each nonce count once and only growing; without qop, a nonce once", () => {
    const auth = new DigestAuthenticator("agentbar.local");
    const passwords = () => ["pw"];
    const challenge = auth.challenge(register);
    expect(auth.check(answer(challenge, "pw", { nc: 1 }), register, passwords).ok).toBe(true);
    expect(auth.check(answer(challenge, "pw", { nc: 1 }), register, passwords)).toMatchObject({ reason: "stale" });
    expect(auth.check(answer(challenge, "pw", { nc: 5 }), register, passwords).ok).toBe(true);
    expect(auth.check(answer(challenge, "pw", { nc: 4 }), register, passwords)).toMatchObject({ reason: "stale" });
    // A wrong answer does not spend a count.
    expect(auth.check(answer(challenge, "guess", { nc: 6 }), register, passwords)).toMatchObject({
      reason: "password",
    });
    expect(auth.check(answer(challenge, "pw", { nc: 6 }), register, passwords).ok).toBe(true);
    const plain = auth.challenge(register);
    expect(auth.check(answer(plain, "pw", { qop: false }), register, passwords).ok).toBe(true);
    expect(auth.check(answer(plain, "pw", { qop: false }), register, passwords)).toMatchObject({ reason: "stale" });
  });

  it("remembers a bounded number of nonces, and one pushed out cannot be replayed", () => {
    const counts = new NonceCounts(3, 60_000);
    for (let made = 1; made <= 5; made++) expect(counts.use(`n${made}`, made, 1, 10)).toBe(true);
    expect(counts.size).toBeLessThanOrEqual(3);
    // n1 and n2 were pushed out: every nonce made no later than them is refused.
    expect(counts.use("n1", 1, 1, 10)).toBe(false);
    expect(counts.use("n2", 2, 2, 10)).toBe(false);
    expect(counts.use("other", 2, 1, 10)).toBe(false);
    expect(counts.use("n5", 5, 1, 10)).toBe(false);
    expect(counts.use("n6", 6, 1, 10)).toBe(true);
    // Nonces past their lifetime make room first, without raising the floor.
    const aging = new NonceCounts(2, 100);
    aging.use("a", 0, 1, 0);
    aging.use("b", 50, 1, 50);
    expect(aging.use("c", 150, 1, 150)).toBe(true);
    expect(aging.size).toBe(2);
    expect(aging.use("d", 60, 1, 150)).toBe(true);
  });

  it("parses quoted and unquoted parameters", () => {
    expect(parseDigest('Digest username="a\\"b", realm="r", nonce=n, uri="u", response="x"')).toMatchObject({
      username: 'a"b',
      nonce: "n",
    });
    expect(parseDigest("Basic abc")).toBeUndefined();
    expect(parseDigest('Digest realm="r"')).toBeUndefined();
  });
});

describe("raw SIP text", () => {
  const broken =
    "INVITE sip:1002@x SIP/2.0\r\nv: SIP/2.0/WSS a.invalid;branch=z9hG4bK1\r\nf: <sip:a@x>;tag=1\r\nTo: garbage<<\r\ni: c1\r\nCSeq: 4 INVITE\r\n\r\n";

  it("finds routing keys", () => {
    expect(isKeepAlive("\r\n\r\n")).toBe(true);
    expect(isKeepAlive("\r\n")).toBe(true);
    expect(isKeepAlive("x\r\n")).toBe(false);
    expect(requestMethod(broken)).toBe("INVITE");
    expect(requestMethod("SIP/2.0 200 OK\r\n")).toBeUndefined();
    expect(topViaBranch(broken)).toBe("z9hG4bK1");
    expect(requestUriUser("BYE sip:k3j2@abc.invalid;transport=ws SIP/2.0\r\n")).toBe("k3j2");
  });

  it("answers an unparseable request with what it can recover", () => {
    const response = statelessResponse(broken, 400, "Bad Request")!;
    expect(response).toMatch(/^SIP\/2\.0 400 Bad Request\r\n/);
    expect(response).toContain("Via: SIP/2.0/WSS a.invalid;branch=z9hG4bK1\r\n");
    expect(response).toContain("From: <sip:a@x>;tag=1\r\n");
    expect(response).toMatch(/To: garbage<<;tag=\w+\r\n/);
    expect(response).toContain("Call-ID: c1\r\n");
    expect(response).toContain("CSeq: 4 INVITE\r\n");
    expect(response.endsWith("Content-Length: 0\r\n\r\n")).toBe(true);
    expect(statelessResponse("hello", 400, "Bad Request")).toBeUndefined();
  });
});

describe("SDP and DTMF bodies", () => {
  const sdp = (media: string, session = "") =>
    `v=0\r\no=- 1 1 IN IP4 1.2.3.4\r\ns=-\r\n${session}t=0 0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111 0\r\nc=IN IP4 1.2.3.4\r\na=rtpmap:111 opus/48000/2\r\na=rtpmap:0 PCMU/8000\r\n${media}`;

  it("reads hold from the media level first, and c=0.0.0.0", () => {
    expect(audioDirection(sdp("a=sendrecv\r\n"))).toBe("sendrecv");
    expect(audioDirection(sdp("a=sendonly\r\n"))).toBe("sendonly");
    expect(audioDirection(sdp("a=inactive\r\n"))).toBe("inactive");
    expect(audioDirection(sdp("a=sendonly\r\n", "a=sendrecv\r\n"))).toBe("sendonly");
    expect(audioDirection(sdp("", "a=recvonly\r\n"))).toBe("recvonly");
    expect(audioDirection(sdp("").replace("c=IN IP4 1.2.3.4\r\na=rtpmap", "c=IN IP4 0.0.0.0\r\na=rtpmap"))).toBe(
      "sendonly",
    );
    expect(firstAudioCodec(sdp(""))).toBe("opus");
  });

  it("reads DTMF from INFO bodies", () => {
    expect(dtmfOfInfo("application/dtmf-relay", "Signal=5\r\nDuration=160")).toBe("5");
    expect(dtmfOfInfo("application/dtmf-relay; charset=x", "Signal= #\r\n")).toBe("#");
    expect(dtmfOfInfo("application/dtmf", "*")).toBe("*");
    expect(dtmfOfInfo("text/plain", "Signal=5")).toBeUndefined();
    expect(dtmfOfInfo("application/dtmf-relay", "Signal=X")).toBeUndefined();
  });
});

describe("display names", () => {
  it("are written as the inside of one quoted-string: quotes and backslashes escaped, control characters a space", () => {
    expect(displayNameForSip('Anna "Annie" Smith')).toBe('Anna \\"Annie\\" Smith');
    expect(displayNameForSip("C:\\Temp <x>")).toBe("C:\\\\Temp <x>");
    expect(displayNameForSip("张伟 😀")).toBe("张伟 😀");
    expect(displayNameForSip('x"<sip:a@b>\r\nCall-Info: <sip:a>;answer-after=0\r\nFrom: "y')).toBe(
      'x\\"<sip:a@b> Call-Info: <sip:a>;answer-after=0 From: \\"y',
    );
    expect(displayNameForSip("\tAlice\u0000\u0085Agent\n")).toBe("Alice Agent");
  });
});
