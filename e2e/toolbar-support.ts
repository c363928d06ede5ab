import type { Page } from "@playwright/test";
import { PASSWORD, expect } from "./fixtures";
import type { sim } from "./phone-support";

/**
 * What the toolbar tests need besides the phone's: the status control, the language kept in the
 * settings, simulated customers in a queue (/sim/queue-callers), the platform's own view of an
 * agent (REST, as an administrator) and a supervisor's developer key for the wall screen.
 */

/** The status control's platform status (`data-status`), once the toolbar works. */
export function statusOf(page: Page) {
  return page.getByTestId("agent-status");
}

/** Opens the status menu and picks an item by its accessible name ("Ready", "Break: Lunch", ...). */
export async function chooseStatus(page: Page, item: string | RegExp): Promise<void> {
  await expect(statusOf(page)).toHaveAttribute("data-phase", "on");
  await page.getByRole("button", { name: /^(Status|状态)/ }).click();
  await menuItem(page, item).click();
}

/** A status in the open menu (a radio item) or an action (sign out of or into the queues). */
export function menuItem(page: Page, name: string | RegExp) {
  const menu = page.getByRole("menu");
  const exact = typeof name === "string";
  return menu.getByRole("menuitemradio", { name, exact }).or(menu.getByRole("menuitem", { name, exact }));
}

export async function goReady(page: Page): Promise<void> {
  await chooseStatus(page, "Ready");
  await expect(statusOf(page)).toHaveAttribute("data-status", "Available");
}

export interface QueueCallerReport {
  id: string;
  uuid: string;
  state: string;
  agent: string;
  heard: { tones: { frequency: number; from: string; to: string }[]; music: boolean; dtmf: string };
}

/** A simulated customer who calls `queue` saying `toneHz`, and waits up to two minutes for an agent. */
export async function queueCaller(
  baseUrl: string,
  o: { queue?: string; number: string; name: string; toneHz: number; data?: Record<string, string> },
): Promise<QueueCallerReport> {
  const r = await fetch(`${baseUrl}/sim/queue-callers`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      queue: o.queue ?? "support",
      callerIdNumber: o.number,
      callerIdName: o.name,
      toneHz: o.toneHz,
      patienceSeconds: 120,
      ...(o.data ? { data: o.data } : {}),
    }),
  });
  if (r.status !== 201) throw new Error(`POST /sim/queue-callers: ${r.status} ${await r.text()}`);
  return (await r.json()) as QueueCallerReport;
}

export async function hangUpCaller(baseUrl: string, id: string): Promise<void> {
  await fetch(`${baseUrl}/sim/queue-callers/${id}`, { method: "DELETE" });
}

/** The platform's REST API as an administrator: agent state and agent settings. */
export async function admin(baseUrl: string) {
  const session = (await (
    await fetch(`${baseUrl}/api/sessions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ login: "admin", password: PASSWORD }),
    })
  ).json()) as { token: string };
  const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const r = await fetch(baseUrl + path, {
      method,
      headers: { "X-XTRA-AUTH-ID": session.token, ...(body ? { "content-type": "application/json" } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${await r.text()}`);
    return (await r.json()) as T;
  };
  return {
    /** What GET /api/cc/agent_state says of an agent. */
    agentState: async (agent: string) =>
      (
        await call<
          {
            agent_id: string;
            status: string;
            reason: string;
            no_answer_count: number;
            callstate: string;
            call: { kind: string } | null;
          }[]
        >("GET", "/api/cc/agent_state")
      ).find((r) => r.agent_id === agent)!,
    /** Creates a user (`POST /api/users`), as the platform's administration does. */
    createUser: (body: Record<string, unknown>) => call<{ code: number }>("POST", "/api/users", body),
    /** A call-center function as the administrator (`POST /api/cc/ccc/<func>`). */
    cc: (func: string, body: Record<string, unknown>) =>
      call<{ code: number; message: string }>("POST", `/api/cc/ccc/${func}`, body),
    /**
     * Changes a user's agent_info (delays, wrap-up time) for the next offers; returns the values
     * it replaced, for the test to put back: tests of a file share the platform.
     */
    setAgentInfo: async (login: string, info: Record<string, string>): Promise<Record<string, string>> => {
      const users = await call<{ data: { id: string | number; agent_info: Record<string, string> }[] }>(
        "GET",
        `/api/users?login=${login}`,
      );
      const user = users.data[0]!;
      await call("PUT", `/api/users/${user.id}`, { agent_info: { ...user.agent_info, ...info } });
      return Object.fromEntries(Object.keys(info).map((key) => [key, String(user.agent_info[key] ?? "")]));
    },
  };
}

/** A supervisor's developer key (the spec's `POST /api/users/<id>/dev_keys`), made as the supervisor would for a wall screen. */
export async function supervisorKey(baseUrl: string): Promise<string> {
  const post = async (path: string, body: unknown, token?: string) =>
    (
      await fetch(baseUrl + path, {
        method: "POST",
        headers: { "content-type": "application/json", ...(token ? { "X-XTRA-AUTH-ID": token } : {}) },
        body: JSON.stringify(body),
      })
    ).json() as Promise<Record<string, unknown>>;
  const session = (await post("/api/sessions", { login: "supervisor", password: PASSWORD })) as {
    token: string;
    user_id: number;
  };
  const created = (await post(
    `/api/users/${session.user_id}/dev_keys`,
    { description: "wall screen" },
    session.token,
  )) as {
    data: { k: string };
  };
  return created.data.k;
}

/** Keeps `language` in the page's settings (the other settings as they were): it applies from the next load. */
export async function keepLanguage(page: Page, language: string): Promise<void> {
  await page.evaluate((lang) => {
    const settings = JSON.parse(localStorage.getItem("agentbar.settings") ?? "{}") as Record<string, unknown>;
    localStorage.setItem("agentbar.settings", JSON.stringify({ ...settings, language: lang }));
  }, language);
}

/** A held customer hears music on hold and no longer the agent, who says `agentHz`. */
export async function expectCustomerHeld(
  s: ReturnType<typeof sim>,
  uuid: string,
  agentHz: number,
  message: string,
): Promise<void> {
  await expect
    .poll(
      async () => {
        const c = await s.channel(uuid);
        return c.hearingMusic && !c.hearing.some((f) => Math.abs(f - agentHz) <= 15);
      },
      { message },
    )
    .toBe(true);
}
