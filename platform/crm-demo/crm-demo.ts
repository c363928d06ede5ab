import Fastify, { type FastifyInstance } from "fastify";
import fastifyStatic from "@fastify/static";
import { readFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));

export interface Customer {
  id: string;
  name: string;
  company: string;
  phone: string;
  notes: string;
}

export const demoCustomers = (): Customer[] =>
  JSON.parse(readFileSync(join(here, "customers.json"), "utf8")) as Customer[];

export interface CrmDemo {
  /** Its origin, e.g. http://localhost:8081: the app's embedding allowlist names it. */
  url: string;
  close(): Promise<void>;
}

export interface CrmDemoOptions {
  port: number;
  host: string;
  /** The host name the page is reached by (its origin is what the app allows). */
  publicHost: string;
  /** The app's address, framed by the page (known once the platform runs: the CRM starts first, so that the platform can allow it). */
  appUrl: () => string;
  /** The platform, whose /sim surface sends customers into a queue. */
  platformUrl: () => string;
}

/**
 * A demo CRM on an origin of its own: a customer list with click-to-dial, and a customer card
 * that pops when a customer's call rings, through the host SDK. It stands for the CRM that
 * embeds the app; nothing of it is part of the product.
 */
export async function startCrmDemo(o: CrmDemoOptions): Promise<CrmDemo> {
  const app: FastifyInstance = Fastify({ logger: false, forceCloseConnections: true });
  const page = readFileSync(join(here, "public", "index.html"), "utf8");
  const customers = demoCustomers();

  app.get("/", (_, reply) =>
    reply.type("text/html").send(page.replaceAll("%APP_URL%", escapeHtml(o.appUrl().replace(/\/$/, "")))),
  );
  await app.register(fastifyStatic, { root: join(here, "public"), prefix: "/", index: false, wildcard: false });
  app.get("/customers.json", () => customers);
  // The demo's "have this customer call us": a simulated customer calls the queue from the
  // customer's number, saying a tone, and waits two minutes for an agent. The IVR before the
  // queue asked for the account number: the call carries it as X-IVR-Account (docs/embedding.md, "A call's data").
  app.post<{ Body: { customer?: unknown; queue?: unknown } }>("/queue-calls", async (req, reply) => {
    const customer = customers.find((c) => c.id === req.body?.customer);
    const queue = typeof req.body?.queue === "string" ? req.body.queue : "support";
    if (!customer) return reply.status(400).send({ text: "unknown customer" });
    const number = customer.phone.replace(/[^\d+]/g, "");
    const r = await fetch(`${o.platformUrl()}/sim/queue-callers`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        queue,
        callerIdName: customer.name,
        callerIdNumber: number,
        toneHz: toneOf(number),
        patienceSeconds: 120,
        data: { "X-IVR-Account": `10${number.slice(-4)}`, "X-IVR-Choice": queue },
      }),
    });
    return reply.status(r.status).send(await r.json());
  });

  await app.listen({ port: o.port, host: o.host });
  const port = (app.server.address() as AddressInfo).port;
  return { url: `http://${o.publicHost}:${port}`, close: () => app.close() };
}

/** The tone a customer says on the phone: 5551FFFF numbers say FFFF Hz, as when called. */
function toneOf(number: string): number {
  const hz = /^5551(\d{4})$/.exec(number)?.[1];
  return hz ? Number(hz) : 500;
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
