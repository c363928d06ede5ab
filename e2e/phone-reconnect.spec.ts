import { expect, expectAnnounced, test } from "./fixtures";
import { agent, expectSimHears, sim, simChannelOf, sipHeader, type SipFrame } from "./phone-support";

test.use({ platformOptions: { simRingMs: 300 } });

const ufrag = (m: SipFrame) => /^a=ice-ufrag:(\S+)/m.exec(m.text)?.[1] ?? "";

test("the platform drops the agent's WebSocket mid-call: the phone re-registers, restarts the call's ICE over the new connection, keeps the call, and its audio flows again", async ({
  newParty,
  platform,
}) => {
  const s = sim(platform.url);
  const alice = await agent(newParty, "agent1", "1001", 440);
  await alice.dial("55510700");
  const card = alice.card();
  await expect(card).toHaveAttribute("data-state", "active");
  const far = await simChannelOf(s, "55510700");
  await alice.hears(700, "alice hears the simulated party");
  const sockets = alice.sip.length;
  const invite = alice.sip.flat().find((m) => m.sent && m.text.startsWith("INVITE sip:55510700@"))!;
  const callId = sipHeader(invite.text, "Call-ID");
  expect(ufrag(invite)).not.toBe("");

  const registrar = platform.ctx.sip.registrar;
  const [binding] = registrar.contactsOf("1001", "agentbar.local");
  const dropped = binding!.connection;
  dropped.kill();

  // The phone notices, says so, reconnects and registers again over a new connection.
  await expectAnnounced(alice.page, "Phone connection lost");
  await expect(alice.page.getByTestId("registration")).toHaveAttribute("data-status", "registered");
  await expect
    .poll(() =>
      registrar.contactsOf("1001", "agentbar.local").some((b) => b.connection !== dropped && b.connection.open),
    )
    .toBe(true);
  // The platform kept the media up through the drop, so audio alone cannot tell that the call's
  // media was renegotiated: the SIP on the new connection does. The phone re-INVITEs the call with
  // new ICE credentials and the platform accepts them there.
  const restart = () => {
    for (const frames of alice.sip.slice(sockets)) {
      const reinvite = frames.find(
        (m) => m.sent && m.text.startsWith("INVITE ") && sipHeader(m.text, "Call-ID") === callId,
      );
      if (!reinvite) continue;
      const cseq = sipHeader(reinvite.text, "CSeq");
      const answer = frames.find(
        (m) =>
          !m.sent &&
          sipHeader(m.text, "Call-ID") === callId &&
          sipHeader(m.text, "CSeq") === cseq &&
          /^SIP\/2\.0 [2-6]\d\d/.test(m.text),
      );
      return {
        inDialog: /;\s*tag=/.test(sipHeader(reinvite.text, "To")),
        newUfrag: ufrag(reinvite) !== "" && ufrag(reinvite) !== ufrag(invite),
        answer: answer?.text.split("\r\n")[0] ?? "",
      };
    }
    return "no re-INVITE of the call on the new connection";
  };
  await expect
    .poll(restart, { message: "the ICE-restart re-INVITE and its answer", timeout: 15_000 })
    .toEqual({ inDialog: true, newUfrag: true, answer: "SIP/2.0 200 OK" });
  await expect(alice.page.locator('[data-kind="ice-restart-failed"]')).toHaveCount(0);

  // The call card stayed, and the call's audio flows both ways.
  await expect(card).toHaveAttribute("data-state", "active");
  const reconnectedAt = Date.now();
  await alice.hears(700, "alice hears the simulated party after the reconnection");
  await expectSimHears(s, far.uuid, 440, "the simulated party hears alice after the reconnection");
  await expect
    .poll(async () =>
      (await s.channel(far.uuid)).heard.some(
        (t) => Math.abs(t.frequency - 440) <= 15 && Date.parse(t.to) > reconnectedAt,
      ),
    )
    .toBe(true);
  await card.getByRole("button", { name: "Hang up" }).click();
  await expect.poll(async () => (await s.channel(far.uuid)).hangupCause).toBe("NORMAL_CLEARING");
});
