import { expect, expectAccessible, screenshot, screenshotViewports, test } from "./fixtures";
import type { Page } from "@playwright/test";
import { agent, expectSimHears, heard, sim } from "./phone-support";
import { queueCaller, statusOf } from "./toolbar-support";

/**
 * A supervisor's story on the local platform, with tones proving who hears whom: the customer
 * says 660 Hz, the agent 880 Hz, the supervisor 1300 Hz. The supervisor monitors the agent's
 * queue call (hears both, nobody hears it), whispers (the agent hears it, the customer does not),
 * speaks to the customer alone (the customer hears it), barges in (all three), intercepts (the
 * customer and the supervisor talk; the agent's card says why its call ended). The platform tells
 * agents they are supervised here (its default is not to): the agent's card says so, and the
 * supervisor's card says what its leg does. Then the supervisor's history names the leg for what
 * it was, the action log is still there after a reload, and pictures of the wallboard in each
 * layout and both languages.
 */
test.use({ platformOptions: { simRingMs: 300, tellMonitoredAgents: true } });

const CUSTOMER = 660;
const ALICE = 880;
const SAM = 1300;

/**
 * Waits until the page hears `frequency` clearly (above -60 dB), whatever else it hears: in a
 * monitored call the customer's simulated voice is louder than the agent's browser.
 */
async function expectDetects(page: Page, frequency: number, what: string): Promise<void> {
  await expect
    .poll(
      async () => {
        const tone = await heard(page, frequency);
        return Math.abs(tone.frequency - frequency) <= 15 && tone.db > -60
          ? frequency
          : `${tone.frequency} Hz at ${tone.db} dB`;
      },
      { message: `${what}: expected to hear ${frequency} Hz`, timeout: 15_000, intervals: [200] },
    )
    .toBe(frequency);
}

/**
 * Every row of the wallboard keeps what it shows within its own cells: no label cut, no cell
 * running into the next or out of its row.
 */
async function expectRowsWhole(page: Page, what: string): Promise<void> {
  const problems = await page.evaluate(() => {
    const out: string[] = [];
    const inside = (b: DOMRect, c: DOMRect) =>
      b.left >= c.left - 0.5 && b.right <= c.right + 0.5 && b.top >= c.top - 0.5 && b.bottom <= c.bottom + 0.5;
    for (const row of document.querySelectorAll<HTMLElement>("[data-testid=agent-row]")) {
      const agent = row.dataset.agent;
      const cells = [...row.children].filter((c) => c.getBoundingClientRect().width > 0);
      for (const cell of cells) {
        const box = cell.getBoundingClientRect();
        if (!inside(box, row.getBoundingClientRect())) out.push(`${agent}: ${cell.className} leaves its row`);
        for (const el of cell.querySelectorAll<HTMLElement>("*")) {
          const b = el.getBoundingClientRect();
          if (b.width > 0 && !inside(b, box)) out.push(`${agent}: “${el.textContent}” leaves ${cell.className}`);
          if (el.tagName === "BUTTON" && el.scrollWidth > el.clientWidth + 1)
            out.push(`${agent}: “${el.textContent}” cut`);
        }
      }
      for (const [i, a] of cells.entries()) {
        for (const b of cells.slice(i + 1)) {
          const x = a.getBoundingClientRect();
          const y = b.getBoundingClientRect();
          if (x.left < y.right - 0.5 && y.left < x.right - 0.5 && x.top < y.bottom - 0.5 && y.top < x.bottom - 0.5)
            out.push(`${agent}: ${a.className} and ${b.className} overlap`);
        }
      }
    }
    return out;
  });
  expect(problems, `${what}: wallboard rows`).toEqual([]);
}

test("a supervisor monitors, whispers, barges in and intercepts an agent's queue call from the wallboard", async ({
  newParty,
  platform,
}) => {
  // A whole story with four parties and six axe passes: the time a busy 2-core machine needs.
  test.setTimeout(240_000);
  const [alice, sam] = await Promise.all([
    agent(newParty, "agent1", "1001", ALICE),
    agent(newParty, "supervisor", "1010", SAM, { layout: "full", viewport: screenshotViewports.full }),
  ]);
  await expect(statusOf(alice.page)).toHaveAttribute("data-phase", "on");
  await alice.page.keyboard.press("Alt+R");
  await expect(statusOf(alice.page)).toHaveAttribute("data-status", "Available");

  const board = sam.page.getByTestId("wallboard");
  const row = board.locator("[data-testid=agent-row][data-agent='1001']");
  await expect(row.getByTestId("agent-status")).toHaveText("Ready");

  const caller = await queueCaller(platform.url, { number: "5550142", name: "Carla Customer", toneHz: CUSTOMER });
  await alice.card("ringing").getByRole("button", { name: "Answer" }).click();
  await alice.hears(CUSTOMER, "the agent hears the customer");
  await expect(row.getByTestId("agent-call")).toContainText("5550142");
  const s = sim(platform.url);
  const customerHeard = async (since: number) =>
    (await s.channel(caller.uuid)).heard.filter((t) => Date.parse(t.to) >= since && Math.abs(t.frequency - SAM) <= 15)
      .length;

  // Monitor: the supervisor's leg answers by itself and hears both; neither hears the supervisor.
  let since = Date.now();
  await row.getByRole("button", { name: "Monitor" }).click();
  await expect(sam.page.getByTestId("supervision-mode")).toHaveText("Listening: neither hears you");
  await expect(sam.page.getByTestId("agent-told")).toHaveText("Alice Agent is told that you are on the call.");
  await expect(sam.page.getByTestId("cc-supervising")).toHaveText("Listening to Alice Agent's call");
  await expect(alice.card("active").getByTestId("cc-supervised")).toHaveText(
    "Sam Supervisor is listening to this call",
  );
  await expectDetects(sam.page, CUSTOMER, "the supervisor hears the customer");
  await expectDetects(sam.page, ALICE, "the supervisor hears the agent");
  await screenshot(sam.page, "supervisor-en-full-monitor");
  await expectRowsWhole(sam.page, "monitoring, full page 1280 px wide");
  await expectAccessible(sam.page, "the wallboard while monitoring");
  await alice.hears(CUSTOMER, "the agent still hears the customer");
  expect((await heard(alice.page, SAM)).db, "the agent does not hear the supervisor").toBeLessThan(-70);
  expect(await customerHeard(since), "the customer does not hear the supervisor").toBe(0);

  // Whisper: the agent hears the supervisor, the customer does not.
  since = Date.now();
  await sam.page.getByTestId("supervising").getByRole("button", { name: "Whisper" }).click();
  await expect(sam.page.getByTestId("supervision-mode")).toHaveText("Whispering: only the agent hears you");
  await expect(sam.page.getByTestId("cc-supervising")).toHaveText("Whispering to Alice Agent");
  await expect(alice.card("active").getByTestId("cc-supervised")).toHaveText(
    "Sam Supervisor is speaking to you; the customer does not hear",
  );
  await expectDetects(alice.page, SAM, "whisper: the agent hears the supervisor");
  await expectDetects(sam.page, CUSTOMER, "whisper: the supervisor still hears the customer");
  expect(await customerHeard(since), "whisper: the customer does not hear the supervisor").toBe(0);

  // Speak to the customer only (the eavesdrop key 1): the customer hears the supervisor.
  await sam.page.getByTestId("supervising").getByRole("button", { name: "Speak to customer" }).click();
  await expect(sam.page.getByTestId("supervision-mode")).toHaveText(
    "Speaking to the customer: only the customer hears you",
  );
  await expectSimHears(s, caller.uuid, SAM, "speaking to the customer: the customer hears the supervisor");

  // Barge in: all three hear each other.
  await sam.page.getByTestId("supervising").getByRole("button", { name: "Barge in" }).click();
  await expect(sam.page.getByTestId("supervision-mode")).toHaveText("In the call: both hear you");
  await expectSimHears(s, caller.uuid, SAM, "barge: the customer hears the supervisor");
  await expectDetects(alice.page, SAM, "barge: the agent hears the supervisor");
  await expectDetects(sam.page, ALICE, "barge: the supervisor hears the agent");

  // Intercept: the customer and the supervisor talk; the agent's call ends and says why.
  await sam.page.getByTestId("supervising").getByRole("button", { name: "Intercept" }).click();
  await expect(alice.page.locator("[data-testid=call][data-state=ended]")).toContainText("Taken over by a supervisor");
  await expectDetects(sam.page, CUSTOMER, "intercept: the supervisor hears the customer");
  await expectSimHears(s, caller.uuid, SAM, "intercept: the customer hears the supervisor");
  await expect(sam.page.getByTestId("supervising")).not.toContainText("Listening");

  // Every action is in the log, with who, whom and what.
  await board.getByTestId("action-log").locator("summary").click();
  const logLines = [
    /supervisor · Intercept · Alice Agent/,
    /supervisor · Barge in · Alice Agent/,
    /supervisor · Speak to customer · Alice Agent/,
    /supervisor · Whisper · Alice Agent/,
    /supervisor · Monitor · Alice Agent/,
  ];
  await expect(board.getByTestId("action-log").locator("li")).toHaveText(logLines);
  await expect(sam.page.getByTestId("cc-supervising")).toHaveText("Taken over from Alice Agent");
  await screenshot(sam.page, "supervisor-en-full-log");

  // The supervisor hangs up: the history names the leg for what it was, not as a plain call.
  await sam.card("active").getByRole("button", { name: "Hang up" }).click();
  await expect(sam.page.getByTestId("history-supervision").first()).toHaveText(
    "Monitor → Whisper → Speak to customer → Barge in → Intercept",
  );

  // The other layouts and the other language.
  for (const [layout, language] of [
    ["side", "en"],
    ["bar", "en"],
    ["full", "zh-CN"],
    ["side", "zh-CN"],
    ["bar", "zh-CN"],
  ] as const) {
    await sam.page.setViewportSize(layout === "bar" ? { width: 1280, height: 420 } : screenshotViewports[layout]);
    await sam.page.evaluate((lang) => {
      const settings = JSON.parse(localStorage.getItem("agentbar.settings") ?? "{}") as Record<string, unknown>;
      localStorage.setItem("agentbar.settings", JSON.stringify({ ...settings, language: lang }));
    }, language);
    await sam.page.goto(`/?layout=${layout}`);
    const summary =
      layout === "bar" ? sam.page.getByTestId("wallboard-summary") : sam.page.getByTestId("wallboard-count");
    await expect(summary).toBeVisible();
    // The action log is kept across the reload.
    if (layout === "side" && language === "en") {
      await sam.page.getByTestId("action-log").locator("summary").click();
      await expect(sam.page.getByTestId("action-log").locator("li")).toHaveText(logLines);
    }
    await screenshot(sam.page, `supervisor-${language}-${layout}`);
    if (layout !== "bar") await expectRowsWhole(sam.page, `${language} ${layout}`);
    await expectAccessible(sam.page, `the wallboard, ${language} ${layout}`);
  }
});
