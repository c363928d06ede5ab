import { readFile } from "node:fs/promises";
import type { Page } from "@playwright/test";
import { PASSWORD, expect, test } from "./fixtures";
import { agent, sipHeader, type SipFrame } from "./phone-support";

/**
 * The call-quality watchdog, the pre-call check and the diagnostics file, on a real page with real
 * WebRTC, while the platform makes the agent's network worse on purpose (/sim/network). One agent
 * walks the whole story: the echo test, a call that stays clean for 30 seconds, then loses 5 % of
 * its packets, then its incoming audio, and the diagnostics file afterwards.
 */
test.use({ platformOptions: { simRingMs: 300, simNetwork: true } });

/** Sets (or, without a body, clears) extension 1001's network. */
async function network(baseUrl: string, body?: object): Promise<void> {
  const r = await fetch(`${baseUrl}/sim/network/1001`, {
    method: body ? "PUT" : "DELETE",
    headers: { "content-type": "application/json" },
    body: body ? JSON.stringify(body) : null,
  });
  expect(r.status).toBe(200);
}

/** Good or fair: a clean loopback call may read fair for a moment on a loaded machine, never poor. */
const notPoor = /^(good|fair)$/;
const figures = String.raw`Round trip \d+ ms, jitter \d+ ms, packet loss \d+\.\d %, estimated MOS \d\.\d of 5\.`;

const ufrag = (m: SipFrame) => /^a=ice-ufrag:(\S+)/m.exec(m.text)?.[1] ?? "";

/** The extension tokens the page fetches (each is the SIP password), read off the wire. */
function watchExtensionTokens(page: Page, tokens: string[]): void {
  page.on("response", (r) => {
    if (r.url().endsWith("/api/users/extn_token"))
      void r.json().then((b: { token?: string }) => b.token && tokens.push(b.token));
  });
}

/** Keeps, in the page, every quality warning and poor mark shown from now on: no reading can slip between two looks of the test. */
async function watchForTrouble(page: Page): Promise<() => Promise<string[]>> {
  await page.evaluate(() => {
    const seen: string[] = [];
    const look = () => {
      for (const el of document.querySelectorAll(
        "[data-testid=call]:not([data-state=ended]) [data-testid=quality-warning]",
      ))
        seen.push(`warning: ${el.textContent}`);
      for (const el of document.querySelectorAll(
        "[data-testid=call]:not([data-state=ended]) [data-testid=quality-mark]",
      ))
        if (el.getAttribute("data-mark") === "poor") seen.push(`poor: ${el.getAttribute("aria-label")}`);
    };
    const observer = new MutationObserver(look);
    observer.observe(document.body, {
      subtree: true,
      childList: true,
      characterData: true,
      attributes: true,
      attributeFilter: ["data-mark"],
    });
    (window as unknown as { troubleSeen: () => string[] }).troubleSeen = () => (observer.disconnect(), seen);
  });
  return () => page.evaluate(() => (window as unknown as { troubleSeen: () => string[] }).troubleSeen());
}

test("call quality: the echo test's round trip, no warning in a clean 30 seconds, loss marked poor and named, lost audio restarted once then told, and a diagnostics file without secrets", async ({
  newParty,
  platform,
}) => {
  test.setTimeout(180_000);
  const tokens: string[] = [];
  const alice = await agent(
    async (options) => {
      const party = await newParty(options);
      watchExtensionTokens(party.page, tokens);
      return party;
    },
    "agent1",
    "1001",
    440,
  );
  const page = alice.page;
  const devices = page.getByRole("button", { name: "Audio devices" });

  await test.step("the devices panel's meter shows the microphone's tone, and the echo test reports the round trip and the level heard back", async () => {
    await devices.click();
    await page.getByRole("button", { name: "Test microphone" }).click();
    const meter = page.getByRole("meter", { name: "Microphone level" });
    await expect
      .poll(async () => Number(await meter.getAttribute("value")), {
        message: "the meter hears the fake microphone's tone",
      })
      .toBeGreaterThan(-50);
    await page.getByRole("button", { name: "Stop test" }).click();
    await expect(meter).toHaveCount(0);
    await page.getByRole("button", { name: "Echo test call" }).click();
    const result = page.getByTestId("echo-result");
    await expect(result).toContainText(/^Round trip \d+ ms: /, { timeout: 30_000 });
    await expect(result).toContainText(/Your voice came back at -?\d+ dB/);
    // It was a real call to the echo service, ended by the test.
    expect(alice.sip.flat().some((m) => m.sent && m.text.startsWith("INVITE sip:9196@"))).toBe(true);
    await expect(alice.card("ended")).toHaveCount(1);
    await devices.click();
  });

  await alice.dial("55510700");
  const card = alice.card();
  const mark = card.getByTestId("quality-mark");
  const warning = card.getByTestId("quality-warning");

  await test.step("with no impairment, 30 seconds of call show no warning and no poor mark", async () => {
    const troubleSeen = await watchForTrouble(page);
    await expect(card).toHaveAttribute("data-state", "active");
    await alice.hears(700, "alice hears the simulated party");
    await expect(mark).toHaveAttribute("data-mark", notPoor);
    await expect(card.locator(".call-timer")).toHaveText("0:30", { timeout: 45_000 });
    expect(await troubleSeen()).toEqual([]);
    await expect(mark).toHaveAttribute("aria-label", new RegExp(`^Call quality: (Good|Fair)\\. ${figures}$`));
  });

  await test.step("with 5 % loss on the agent's leg the mark turns poor and the warning names the loss", async () => {
    await network(platform.url, { toPhone: { lossPercent: 5 } });
    await expect(mark).toHaveAttribute("data-mark", "poor", { timeout: 20_000 });
    await expect(warning).toContainText("Packets are being lost");
    // Named for screen readers, with the figures the browser measured.
    await expect(card.getByRole("img", { name: new RegExp(`^Call quality: Poor\\. ${figures}$`) })).toBeVisible();
    // The platform's relay did drop packets toward the phone.
    const net = (await (await fetch(`${platform.url}/sim/network/1001`)).json()) as {
      legs: { toPhone: { lost: number } }[];
    };
    expect(net.legs[0]!.toPhone.lost).toBeGreaterThan(0);

    await network(platform.url);
    await expect(mark).toHaveAttribute("data-mark", notPoor, { timeout: 20_000 });
    await expect(warning).toHaveCount(0);
  });

  await test.step("with one-way silence the phone restarts the call's ICE once, then tells the agent the audio is lost and what to try", async () => {
    const invite = alice.sip
      .flat()
      .find((m) => m.sent && m.text.startsWith("INVITE sip:55510700@") && /Proxy-Authorization/i.test(m.text))!;
    const callId = sipHeader(invite.text, "Call-ID");
    const restarts = () =>
      alice.sip
        .flat()
        .filter(
          (m) =>
            m.sent &&
            m.text.startsWith("INVITE ") &&
            sipHeader(m.text, "Call-ID") === callId &&
            /;\s*tag=/.test(sipHeader(m.text, "To")) &&
            ufrag(m) !== ufrag(invite),
        );

    await network(platform.url, { toPhone: { silence: true } });
    // The ICE restart: a re-INVITE of the call with new ICE credentials, accepted.
    await expect
      .poll(
        () => {
          const reinvite = restarts()[0];
          if (!reinvite) return "no ICE-restart re-INVITE yet";
          const cseq = sipHeader(reinvite.text, "CSeq");
          const answer = alice.sip
            .flat()
            .find(
              (m) =>
                !m.sent &&
                sipHeader(m.text, "Call-ID") === callId &&
                sipHeader(m.text, "CSeq") === cseq &&
                /^SIP\/2\.0 [2-6]\d\d/.test(m.text),
            );
          return answer?.text.split("\r\n")[0] ?? "no answer yet";
        },
        { timeout: 20_000 },
      )
      .toBe("SIP/2.0 200 OK");
    // The audio is still not coming: the agent is told, in words, with what to try.
    await expect(warning).toContainText("You cannot hear the other side", { timeout: 20_000 });
    await expect(warning).toContainText("Ask them to call back");
    await expect(mark).toHaveAttribute("data-mark", "poor");
    expect(restarts()).toHaveLength(1);
    await expect(card).toHaveAttribute("data-state", "active");

    // The network comes back: so do the audio and the mark, and the warning goes.
    await network(platform.url);
    await alice.hears(700, "alice hears the party again");
    await expect(warning).toHaveCount(0, { timeout: 20_000 });
    await card.getByRole("button", { name: "Hang up" }).click();
    await expect(card).toHaveAttribute("data-state", "ended");
  });

  await test.step("the diagnostics file downloads, parses, holds the SIP trace and the call's figures, and none of the secrets", async () => {
    await devices.click();
    const download = page.waitForEvent("download");
    await page.getByRole("button", { name: "Download diagnostics" }).click();
    const file = await download;
    expect(file.suggestedFilename()).toMatch(/^agentbar-diagnostics-1001-\d{8}-\d{6}Z\.json$/);
    const text = await readFile((await file.path())!, "utf8");
    const bundle = JSON.parse(text) as {
      app: { name: string; version: string };
      browser: { userAgent: string };
      platform: { address: string };
      phone: {
        sipTrace: { direction: string; summary: string; text: string }[];
        registrations: { status: string }[];
        callStats: { remote: string; samples: { lossPercent?: number }[] }[];
        devices: { microphones: unknown[] };
      };
    };
    expect(bundle.app).toEqual({
      name: "Agentbar",
      version: expect.stringMatching(/^\d+\.\d+\.\d+/),
      page: expect.any(String),
    });
    expect(bundle.browser.userAgent).toContain("Chrome");
    expect(bundle.platform.address).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const summaries = bundle.phone.sipTrace.map((m) => `${m.direction} ${m.summary}`);
    expect(summaries).toEqual(
      expect.arrayContaining([
        "sent REGISTER sip:agentbar.local SIP/2.0",
        "received SIP/2.0 200 OK",
        "sent INVITE sip:9196@agentbar.local SIP/2.0",
        "sent INVITE sip:55510700@agentbar.local SIP/2.0",
      ]),
    );
    expect(summaries.some((s) => s.startsWith("sent BYE "))).toBe(true);
    // The digest answers are there, redacted.
    const answered = bundle.phone.sipTrace.find(
      (m) => m.summary.startsWith("REGISTER") && /\r\nAuthorization:/.test(m.text),
    )!;
    expect(answered.text).toMatch(/Authorization: Digest .*username="1001".*response="\[redacted\]"/);
    expect(bundle.phone.registrations.some((r) => r.status === "registered")).toBe(true);
    // The call's figures second by second, the lossy stretch among them.
    const stats = bundle.phone.callStats.find((c) => c.remote.includes("55510700"))!;
    expect(stats.samples.length).toBeGreaterThan(30);
    expect(stats.samples.some((s) => (s.lossPercent ?? 0) >= 1)).toBe(true);
    expect(bundle.phone.devices.microphones.length).toBeGreaterThan(0);

    const session = await page.evaluate(
      () => JSON.parse(sessionStorage.getItem("agentbar.session") ?? "{}") as { token?: string; refreshToken?: string },
    );
    expect(tokens.length, "the extension token is known to the test").toBeGreaterThan(0);
    const secrets = [
      ["token", session.token],
      ["refresh token", session.refreshToken],
      ["password", PASSWORD],
      ...tokens.map((token) => ["extension token", token]),
    ];
    for (const [name, value] of secrets) {
      expect(value, `${name} is known to the test`).toBeTruthy();
      expect(text.includes(value!), `the file holds the ${name}`).toBe(false);
    }
  });
});
