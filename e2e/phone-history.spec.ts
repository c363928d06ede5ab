import { existsSync, statSync } from "node:fs";
import { expect, expectAnnounced, test } from "./fixtures";
import { agent, expectSimHears, sim, simChannelOf } from "./phone-support";

/** The call history from the platform's call records, recordings played in the page, call back; devices; remote hold. */
test.use({ platformOptions: { simRingMs: 300 } });

test("a recorded call shows in the history, its recording plays in the page (token in a header, never in the address), and Call back dials it", async ({
  newParty,
  platform,
}) => {
  const s = sim(platform.url);
  const alice = await agent(newParty, "agent1", "1001", 440);
  const page = alice.page;
  await alice.dial("55510700");
  await expect(alice.card()).toHaveAttribute("data-state", "active");
  const far = await simChannelOf(s, "55510700");
  const sw = platform.ctx.switch;
  const leg = sw.channels().find((c) => c.extension === "1001" && c.state === "answered")!;
  sw.record(leg);
  await expectSimHears(s, far.uuid, 440, "the simulated party hears alice");
  // Two seconds recorded (stereo, 48 kHz, 16 bit) before hanging up, so that the recording still
  // plays while the test looks at it.
  const wav = leg.variables.get("record_path")!;
  await expect
    .poll(() => (existsSync(wav) ? statSync(wav).size : 0), { timeout: 15_000 })
    .toBeGreaterThan(2 * 48_000 * 2 * 2);
  await alice.card().getByRole("button", { name: "Hang up" }).click();

  const history = page.getByRole("region", { name: "Call history" });
  await history.getByLabel("Called number").fill("55510700");
  await history.getByRole("button", { name: "Search" }).click();
  const row = history.getByTestId("history-row").first();
  await expect(row).toContainText("55510700");
  await expect(row).toContainText("Answered");

  // The recording's file, and before it its media file record (which tells the file's extension).
  const requests: { url: string; token: string | undefined }[] = [];
  const records: { url: string; token: string | undefined }[] = [];
  page.on("request", (r) => {
    if (!r.url().includes("/api/media_files/")) return;
    (/\/api\/media_files\/\d+$/.test(r.url()) ? records : requests).push({
      url: r.url(),
      token: r.headers()["x-xtra-auth-id"],
    });
  });
  await row.getByRole("button", { name: "Play recording" }).click();
  const audio = row.locator("audio");
  await expect(audio).toHaveAttribute("src", /^blob:/);
  // The recording decodes and plays: its length is known and time goes on.
  await expect
    .poll(() => audio.evaluate((a: HTMLAudioElement) => (Number.isFinite(a.duration) ? a.duration : 0)))
    .toBeGreaterThan(0);
  await expect.poll(() => audio.evaluate((a: HTMLAudioElement) => a.currentTime)).toBeGreaterThan(0);
  expect(requests).toHaveLength(1);
  expect(requests[0]!.url).toMatch(/\/api\/media_files\/\d+\.wav$/);
  expect(requests[0]!.token).toBeTruthy();
  expect(records).toEqual([{ url: requests[0]!.url.replace(/\.wav$/, ""), token: requests[0]!.token }]);
  await row.getByRole("button", { name: "Stop playing" }).click();
  await expect(audio).toHaveCount(0);

  await row.getByRole("button", { name: "Call back 55510700" }).click();
  await expect(page.getByLabel("Number to call")).toHaveValue("55510700");
  await expect(page.getByLabel("Number to call")).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(alice.page.locator("[data-testid=call][data-state=active]")).toHaveCount(1);
  await alice.hears(700, "the party called back");
});

test("when the platform holds the agent's leg the card says so; the microphone changes mid-call without dropping it and is remembered", async ({
  newParty,
  platform,
}) => {
  const s = sim(platform.url);
  const alice = await agent(newParty, "agent1", "1001", 440);
  const page = alice.page;
  await alice.dial("55510700");
  const card = alice.card();
  await expect(card).toHaveAttribute("data-state", "active");
  const far = await simChannelOf(s, "55510700");

  const sw = platform.ctx.switch;
  const leg = sw.channels().find((c) => c.extension === "1001" && c.state === "answered")!;
  await sw.hold(leg);
  await expect(card.getByTestId("remote-hold")).toHaveText("Held by the other side");
  await expect(card).toHaveAttribute("data-state", "remote-held");
  await expectAnnounced(page, "put the call on hold");
  await sw.unhold(leg);
  await expect(card.getByTestId("remote-hold")).toHaveCount(0);
  await expect(card).toHaveAttribute("data-state", "active");

  await page.getByRole("button", { name: "Audio devices" }).click();
  const microphone = page.getByLabel("Microphone");
  // The system default and Chromium's fake microphones (the panel loads when first opened).
  await expect.poll(() => microphone.locator("option").count()).toBeGreaterThan(2);
  const options = await microphone.locator("option").allTextContents();
  const chosen = options.at(-1)!;
  await microphone.selectOption({ label: chosen });
  // The call goes on with the new microphone: the far side still hears alice.
  await expect(card).toHaveAttribute("data-state", "active");
  await expectSimHears(s, far.uuid, 440, "the simulated party hears alice after the microphone changed");
  await card.getByRole("button", { name: "Hang up" }).click();

  await page.reload();
  await expect(page.getByTestId("registration")).toHaveAttribute("data-status", "registered");
  await page.getByRole("button", { name: "Audio devices" }).click();
  await expect(page.getByLabel("Microphone").locator("option:checked")).toHaveText(chosen);
});
