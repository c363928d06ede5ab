import Fastify from "fastify";
import { readFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { PASSWORD } from "./fixtures";

/**
 * The documentation's examples as a CRM would serve them: every ```html block of
 * docs/embedding.md and README.md, changed only in the app's address, served by a page server of
 * its own origin (http://localhost:<port>/<file>/<n>), with the one thing a CRM's own server does
 * for the examples: `/agentbar-token`, a token for the CRM's user (here agent4), minted by signing
 * in at the platform as a CRM's server would.
 */

/** The address the examples are written with. */
export const DOCS_APP_URL = "https://agentbar.example.com";

export const DOC_FILES = ["docs/embedding.md", "README.md"] as const;

/** The ```html blocks of a Markdown file, in order. */
export function htmlExamplesOf(file: string): string[] {
  const text = readFileSync(new URL(`../${file}`, import.meta.url), "utf8");
  return [...text.matchAll(/^```html\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
}

export interface DocExamples {
  /** The server's origin; `${url}/${file}/${n}` is the nth example of that file. */
  url: string;
  close(): Promise<void>;
}

export async function serveDocExamples(appUrl: () => string): Promise<DocExamples> {
  const app = Fastify({ logger: false, forceCloseConnections: true });
  app.get<{ Params: { dir: string; file: string; n: string } }>("/:dir/:file/:n", (req, reply) => {
    const file = req.params.dir === "-" ? req.params.file : `${req.params.dir}/${req.params.file}`;
    const example = (DOC_FILES as readonly string[]).includes(file)
      ? htmlExamplesOf(file)[Number(req.params.n)]
      : undefined;
    if (example === undefined) return reply.status(404).send("no such example");
    return reply.type("text/html").send(example.replaceAll(DOCS_APP_URL, appUrl().replace(/\/$/, "")));
  });
  app.post("/agentbar-token", async (_req, reply) => {
    const r = await fetch(`${appUrl()}/api/sessions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ login: "agent4", password: PASSWORD }),
    });
    const { token } = (await r.json()) as { token: string };
    return reply.type("text/plain").send(token);
  });
  await app.listen({ port: 0, host: "127.0.0.1" });
  const port = (app.server.address() as AddressInfo).port;
  return { url: `http://localhost:${port}`, close: () => app.close() };
}

/** The path of the nth example of `file` on the server. */
export function examplePath(file: (typeof DOC_FILES)[number], n: number): string {
  return file.includes("/") ? `/${file}/${n}` : `/-/${file}/${n}`;
}
