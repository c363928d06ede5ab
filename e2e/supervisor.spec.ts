import { readFile } from "node:fs/promises";
import { expect, expectAccessible, screenshot, screenshotViewports, test } from "./fixtures";
import type { Page, Request } from "@playwright/test";
import { agent, expectSimHears, heard, seconds, sim } from "./phone-support";
import {
  admin,
  chooseStatus,
  hangUpCaller,
  keepLanguage,
  queueCaller,
  statusOf,
  supervisorKey,
} from "./toolbar-support";

/**
 * A supervisor's story on the local platform, with tones proving who hears whom. The board is
 * right the moment it opens: two callers waiting before it opened (with the longest wait), the
 * agent's time on break from the platform's own time, and an agent created and signed in while it
 * is open shows at once. Then the customer
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
 * running into the next or out of its row; with `nothingCut`, no words of a row end in "…" either
 * (a wide screen has the room for the agent's activity and call).
 */
async function expectRowsWhole(page: Page, what: string, nothingCut = false): Promise<void> {
  const problems = await page.evaluate((nothingCut) => {
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
          if (
            (el.tagName === "BUTTON" || (nothingCut && el.parentElement === cell)) &&
            el.scrollWidth > el.clientWidth + 1
          )
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
  }, nothingCut);
  expect(problems, `${what}: wallboard rows`).toEqual([]);
}

/**
 * The wall screen is readable from across the room at its size: the main figures at least 32 px,
 * every queue on it side by side across the whole width, nothing cut or running into its neighbour.
 */
async function expectWallReadable(wall: Page, what: string): Promise<void> {
  const layout = await wall.evaluate(() => {
    const problems: string[] = [];
    const inside = (b: DOMRect, c: DOMRect) =>
      b.left >= c.left - 0.5 && b.right <= c.right + 0.5 && b.top >= c.top - 0.5 && b.bottom <= c.bottom + 0.5;
    const screen = new DOMRect(0, 0, innerWidth, innerHeight);
    const queues = [...document.querySelectorAll<HTMLElement>(".wall-queue")];
    for (const q of queues) {
      const box = q.getBoundingClientRect();
      if (!inside(box, screen)) problems.push(`${q.dataset.queue} is not all on the screen`);
      const figures = [...q.querySelectorAll<HTMLElement>(".wall-figure")];
      for (const [i, f] of figures.entries()) {
        const fb = f.getBoundingClientRect();
        if (!inside(fb, box)) problems.push(`${q.dataset.queue}: “${f.textContent}” leaves its queue`);
        for (const el of f.querySelectorAll<HTMLElement>("dt, dd")) {
          if (!inside(el.getBoundingClientRect(), fb) || el.scrollWidth > el.clientWidth + 1)
            problems.push(`${q.dataset.queue}: “${el.textContent}” cut`);
          if (
            el.tagName === "DD" &&
            el.getBoundingClientRect().height > parseFloat(getComputedStyle(el).fontSize) * 1.6
          )
            problems.push(`${q.dataset.queue}: “${el.textContent}” broken over two lines`);
        }
        for (const g of figures.slice(i + 1)) {
          const gb = g.getBoundingClientRect();
          if (
            fb.left < gb.right - 0.5 &&
            gb.left < fb.right - 0.5 &&
            fb.top < gb.bottom - 0.5 &&
            gb.top < fb.bottom - 0.5
          )
            problems.push(`${q.dataset.queue}: “${f.textContent}” and “${g.textContent}” overlap`);
        }
      }
    }
    const sizes = Object.fromEntries(
      ["wall-waiting", "wall-longest-wait", "wall-service-level", "wall-answered", "wall-abandoned"].map((id) => [
        id,
        Math.min(
          ...[...document.querySelectorAll(`[data-testid=${id}]`)].map((el) =>
            parseFloat(getComputedStyle(el).fontSize),
          ),
        ),
      ]),
    );
    const rows = new Set(queues.map((q) => Math.round(q.getBoundingClientRect().top)));
    const used =
      Math.max(...queues.map((q) => q.getBoundingClientRect().right)) -
      Math.min(...queues.map((q) => q.getBoundingClientRect().left));
    return { problems, sizes, rows: rows.size, used, width: innerWidth };
  });
  expect(layout.problems, `${what}: the wall's figures`).toEqual([]);
  for (const [figure, size] of Object.entries(layout.sizes))
    expect(size, `${what}: ${figure}`).toBeGreaterThanOrEqual(32);
  expect(layout.rows, `${what}: the queues side by side`).toBe(1);
  expect(layout.used / layout.width, `${what}: the width the queues use`).toBeGreaterThanOrEqual(0.94);
}

test("a supervisor monitors, whispers, barges in and intercepts an agent's queue call from the wallboard", async ({
  newParty,
  platform,
}) => {
  // A whole story with four parties and six axe passes: the time a busy 2-core machine needs.
  test.setTimeout(240_000);
  const alice = await agent(newParty, "agent1", "1001", ALICE);
  await expect(statusOf(alice.page)).toHaveAttribute("data-phase", "on");
  // Before the board opens: the agent answers a caller and hangs up, goes on break, and two
  // callers wait in her queue.
  await alice.page.keyboard.press("Alt+R");
  await expect(statusOf(alice.page)).toHaveAttribute("data-status", "Available");
  await queueCaller(platform.url, { number: "5550141", name: "Eve Earlier", toneHz: 440 });
  await alice.card("ringing").getByRole("button", { name: "Answer" }).click();
  await alice.hears(440, "the agent hears the earlier caller");
  await alice.card("active").getByRole("button", { name: "Hang up" }).click();
  const breakAsked = Date.now();
  await chooseStatus(alice.page, "Break: Lunch");
  await expect(statusOf(alice.page)).toHaveAttribute("data-status", "On Break");
  const breakConfirmed = Date.now();
  // After-call work lasts until Done; the break chosen meanwhile stays.
  await alice.page.getByTestId("wrap-up").getByRole("button", { name: "Done" }).click();
  await expect(statusOf(alice.page)).not.toHaveAttribute("data-activity", "after-call-work");
  await expect(statusOf(alice.page)).toHaveAttribute("data-status", "On Break");
  const caller = await queueCaller(platform.url, { number: "5550142", name: "Carla Customer", toneHz: CUSTOMER });
  const second = await queueCaller(platform.url, { number: "5550143", name: "Dan Second", toneHz: 500 });

  const sam = await agent(newParty, "supervisor", "1010", SAM, { layout: "full", viewport: screenshotViewports.full });
  const board = sam.page.getByTestId("wallboard");
  const row = board.locator("[data-testid=agent-row][data-agent='1001']");
  const support = board.locator(".queue-tile[data-queue=support]");
  // At once, from the first read: both callers and the longest wait, never "not known".
  await expect(support.getByTestId("queue-waiting")).toHaveText("2");
  // The call answered while the board was closed is in today's figures, from the platform's records.
  await expect(support.getByTestId("queue-day-source")).toHaveText(/^Today since/);
  // The day's records were read in a worker (src/cc/supervisor/queue-records.ts): the page's CSP
  // lets the app's own worker run, and it is still running (one that failed would have been
  // stopped, its pages read on the page's thread; an idle one stops after 15 s).
  const recordsWorker = sam.page.workers().find((w) => /queue-records\.worker/.test(w.url()));
  expect(await recordsWorker?.evaluate(() => typeof self.postMessage), "the records' worker").toBe("function");
  await expect(support.getByTestId("queue-answered")).toHaveText("1");
  await expect(support.getByTestId("queue-offered")).toHaveText("3");
  // The agent's day: the call she handled before the board opened, and where its statuses come from.
  await row.getByTestId("agent-day-button").click();
  const day = board.getByTestId("agent-day");
  await expect(day.getByTestId("agent-handled")).toHaveText("1");
  await expect(day.getByTestId("agent-day-source")).toContainText("the platform keeps no history of statuses");
  await expect(support.getByTestId("queue-longest-wait")).toHaveText(/^\d+:\d\d$/);
  await expect(row.getByTestId("agent-status")).toHaveText("On break · Lunch");
  // Callers wait and no agent of the queue is ready: a threshold (kept per queue, on by default)
  // is breached, the figure says so and the alert is raised.
  const alerts = board.getByTestId("alerts");
  await expect(alerts.locator("li[data-kind=no-agent-ready]")).toHaveText(/^support: 2 waiting and no agent ready/);
  await expect(support.getByTestId("queue-waiting")).toHaveAttribute("data-breach", "true");
  // The sound's switch is a box the size of its words, on their line.
  const [soundBox, soundWords] = await alerts
    .getByTestId("alert-sound")
    .evaluate(
      (el) => [el.getBoundingClientRect().toJSON(), el.parentElement!.getBoundingClientRect().toJSON()] as DOMRect[],
    );
  expect([soundBox!.width, soundBox!.height], "the alert sound's box").toEqual([16, 16]);
  expect(soundWords!.height, "the box and its words on one line").toBeLessThan(30);
  await screenshot(sam.page, "supervisor-en-alert");

  // The wall screen on a TV at 1920x1080, in a browser where nobody signed in: a supervisor's
  // developer key given once in the address's fragment (never sent to the server) signs it in.
  // It shows the same breach, in colour, and stays open to follow the rest of the story.
  const tv = await newParty({ viewport: { width: 1920, height: 1080 } });
  const wall = tv.page;
  await wall.goto(`/wall#key=${encodeURIComponent(await supervisorKey(platform.url))}`);
  await expect(wall.getByTestId("wall")).toBeVisible();
  expect(new URL(wall.url()).hash, "the key leaves the address at once").toBe("");
  const wallSupport = wall.locator(".wall-queue[data-queue=support]");
  await expect(wall.locator(".wall-queue")).toHaveCount(2);
  await expect(wallSupport.getByTestId("wall-waiting")).toHaveText("2");
  await expect(wallSupport.getByTestId("wall-waiting")).toHaveAttribute("data-breach", "true");
  await expect(wall.getByTestId("wall-alerts").locator("li[data-kind=no-agent-ready]")).toHaveText(
    /^support: 2 waiting and no agent ready/,
  );
  await expect(wallSupport.getByTestId("wall-answered")).toHaveText("1");
  await expect(wall.locator("button, select, input, a")).toHaveCount(0);
  await expectWallReadable(wall, "the wall screen, en");
  await screenshot(wall, "wall-en-alert");
  await expectAccessible(wall, "the wall screen");

  // An agent created and signed in while the board is open is on it within 2 s (its first event
  // makes the board read it); that event also measures the platform's clock.
  const api = await admin(platform.url);
  await api.createUser({
    login: "agent9",
    name: "Nina New",
    password: "Agentbar@2026",
    type: "AGENT",
    extn: "1009",
    context: "default",
    extn_password: "Extn1234Demo",
  });
  await api.cc("ccLogin", { agent: "1009", extn: "1009", queue: "support" });
  // Her first event (signing in changes nothing while the platform's default status is On Break).
  await api.cc("ccGoReady", { agent: "1009", queue: "support" });
  await expect(board.locator("[data-testid=agent-row][data-agent='1009']")).toBeVisible({ timeout: 2_000 });
  // An agent of the queue is ready now: the breach has ended, and so has its alert.
  await expect(alerts.locator("li[data-kind=no-agent-ready]")).toHaveCount(0);
  await expect(support.getByTestId("queue-waiting")).not.toHaveAttribute("data-breach");

  // Time on break: the platform's status_since read with its measured clock, right within a second.
  await expect(row.getByTestId("agent-time")).toHaveAttribute("data-exact", "true");
  // The break began between the click and the toolbar's confirmation: the board's start of it is
  // within a second of that window (the platform's stamps are whole seconds).
  const breakSince = Number(await row.getByTestId("agent-time").getAttribute("data-since"));
  expect(breakSince, "start of the break").toBeGreaterThanOrEqual(breakAsked - 1000);
  expect(breakSince, "start of the break").toBeLessThanOrEqual(breakConfirmed + 1000);

  await alice.page.keyboard.press("Alt+R");
  await expect(statusOf(alice.page)).toHaveAttribute("data-status", "Available");
  await alice.card("ringing").getByRole("button", { name: "Answer" }).click();
  await alice.hears(CUSTOMER, "the agent hears the customer");
  await hangUpCaller(platform.url, second.id);
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
  // Listening signed the supervisor into no queue (the spec wants it signed in for the request alone).
  expect((await api.agentState("1010")).status, "the supervisor after Monitor").toBe("Logged Out");
  await expect(board.locator("[data-testid=agent-row][data-agent='1010'] button", { hasText: "Monitor" })).toHaveCount(
    0,
  );
  await screenshot(sam.page, "supervisor-en-full-monitor");
  await expectRowsWhole(sam.page, "monitoring, full page 1280 px wide");
  // A supervisor's 1920x1080 screen: the board takes its width, and no row cuts its words.
  await sam.page.setViewportSize({ width: 1920, height: 1080 });
  await expect
    .poll(async () => (await board.boundingBox())?.width ?? 0, { message: "the board's width at 1920 px" })
    .toBeGreaterThan(1400);
  await screenshot(sam.page, "supervisor-en-full-monitor-1920");
  await expectRowsWhole(sam.page, "monitoring, full page 1920 px wide", true);
  await sam.page.setViewportSize(screenshotViewports.full);
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

  // Intercept: asked once (keyboard: the question takes the focus), then the customer and the
  // supervisor talk; the agent's call ends and says why.
  await sam.page.getByTestId("supervising").getByRole("button", { name: "Intercept" }).click();
  const confirm = sam.page.getByTestId("confirm-intercept");
  await expect(confirm).toContainText("Take Carla Customer (5550142) from Alice Agent?");
  await expect(confirm.getByRole("button", { name: "Take the call" })).toBeFocused();
  await sam.page.keyboard.press("Enter");
  await expect(alice.page.locator("[data-testid=call][data-state=ended]", { hasText: "Carla Customer" })).toContainText(
    "Taken over by a supervisor",
  );
  await expectDetects(sam.page, CUSTOMER, "intercept: the supervisor hears the customer");
  await expectSimHears(s, caller.uuid, SAM, "intercept: the customer hears the supervisor");
  await expect(sam.page.getByTestId("supervising")).not.toContainText("Listening");
  // The supervisor's card names the customer it now talks to, not the agent its leg joined.
  await expect(sam.card("active")).toContainText("Carla Customer");
  expect((await api.agentState("1010")).status, "the supervisor after Intercept").toBe("Logged Out");

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
  // Call back dials the customer.
  await sam.card("ended").getByRole("button", { name: "Call back" }).click();
  await expect(sam.page.locator("[data-testid=call]:not([data-state=ended])")).toContainText("5550142");
  await sam.page.locator("[data-testid=call]:not([data-state=ended])").getByRole("button", { name: "Hang up" }).click();
  await expect(sam.page.getByTestId("history-supervision").first()).toHaveText(
    "Monitor → Whisper → Speak to customer → Barge in → Intercept",
  );

  // Today's figures are the same after a reload: they come from the platform's records.
  const figures = async () => {
    await expect(sam.page.locator(".queue-tile[data-queue=support]").getByTestId("queue-day-source")).toHaveText(
      /^Today since/,
    );
    return sam.page
      .locator(".queue-tile[data-queue=support] dd[data-testid]")
      .evaluateAll((dds) => dds.map((d) => `${d.getAttribute("data-testid")}=${d.textContent}`));
  };
  const before = await figures();
  expect(before).toEqual(
    expect.arrayContaining(["queue-offered=3", "queue-answered=2", "queue-abandoned=1", "queue-waiting=0"]),
  );
  // The day was kept in the browser: the reload reads only the records that ended since.
  const dayReads: string[] = [];
  const onRequest = (r: Request) => {
    const url = new URL(r.url());
    if (url.pathname === "/api/cdrs" && url.searchParams.has("groupValue")) dayReads.push(url.search);
  };
  sam.page.on("request", onRequest);
  await sam.page.reload();
  expect(await figures()).toEqual(before);
  sam.page.off("request", onRequest);
  expect(dayReads.length, "the records read at the reload").toBeGreaterThan(0);
  expect(
    dayReads.filter((q) => !q.includes("dateType=end_stamp")),
    "whole days read again",
  ).toEqual([]);
  // Today's chart draws the same callers, and its table (what a screen reader reads) adds up to the day's figures.
  const chart = sam.page.locator(".queue-tile[data-queue=support]").getByTestId("intraday");
  const quarterHours = await chart
    .locator("tbody tr")
    .evaluateAll((rows) => rows.map((r) => [...r.children].map((c) => Number(c.textContent))));
  const column = (i: number) => quarterHours.reduce((sum, row) => sum + row[i]!, 0);
  expect([column(1), column(2), column(3)], "the chart's offered, answered, abandoned").toEqual([3, 2, 1]);
  const drawn = await chart
    .locator("rect")
    .evaluateAll((bars) =>
      bars.filter((b) => b.getBoundingClientRect().height > 0).map((b) => b.getAttribute("class")),
    );
  expect(new Set(drawn), "the chart's bars").toEqual(new Set(["bar-answered", "bar-abandoned"]));
  // The wall screen followed it all live, without a read of the records again.
  await expect(wallSupport.getByTestId("wall-answered")).toHaveText("2");
  await expect(wallSupport.getByTestId("wall-abandoned")).toHaveText("1");
  await expect(wallSupport.getByTestId("wall-waiting")).toHaveText("0");
  await expect(wallSupport.getByTestId("intraday").locator("tbody tr")).toHaveCount(quarterHours.length);
  // The TV restarted (no session left in the tab), now in Chinese: the kept key signs it in again.
  await wall.evaluate(() => {
    localStorage.setItem("agentbar.settings", JSON.stringify({ language: "zh-CN" }));
    sessionStorage.clear();
  });
  await wall.reload();
  await expect(wallSupport.getByTestId("wall-answered")).toHaveText("2");
  await expect(wall.getByTestId("wall")).toHaveAttribute("aria-label", "呼叫中心实时");
  await expectWallReadable(wall, "the wall screen, zh-CN");
  await screenshot(wall, "wall-zh-CN");

  // Today's export: its support row is the board's tile.
  const download = sam.page.waitForEvent("download");
  await sam.page.getByTestId("export-csv").click();
  const csv = await readFile((await (await download).path())!, "utf8");
  const header = csv.split("\r\n")[0]!.split(",");
  const supportRow = csv
    .split("\r\n")
    .find((l) => l.split(",")[1] === "support")!
    .split(",");
  const col = (name: string) => supportRow[header.indexOf(name)];
  const tile = Object.fromEntries(before.map((f) => f.split("=") as [string, string]));
  expect([
    col("offered"),
    col("answered"),
    col("abandoned"),
    `${col("service_level_pct")} %`,
    Number(col("asa_s")),
    Number(col("aht_s")),
  ]).toEqual([
    tile["queue-offered"],
    tile["queue-answered"],
    tile["queue-abandoned"],
    tile["queue-service-level"],
    seconds(tile["queue-asa"]!),
    seconds(tile["queue-aht"]!),
  ]);
  expect(csv).toMatch(/\r\ndate,agent,name,calls_handled,aht_s\r\n/);
  expect(csv).toContain(",1001,Alice Agent,2,");

  // The other layouts and the other language.
  for (const [layout, language] of [
    ["side", "en"],
    ["bar", "en"],
    ["full", "zh-CN"],
    ["side", "zh-CN"],
    ["bar", "zh-CN"],
  ] as const) {
    await sam.page.setViewportSize(layout === "bar" ? { width: 1280, height: 420 } : screenshotViewports[layout]);
    await keepLanguage(sam.page, language);
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
