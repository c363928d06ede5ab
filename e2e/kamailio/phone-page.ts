import { createServer, type Server } from "node:http";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "vite";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "../..");

/**
 * A page with nothing but the app's phone (`src/softphone`) and a DTMF receiver, built as one
 * script that puts them on `window.PhonePage` (see phone-page-entry.ts), served from
 * http://127.0.0.1 so that the browser grants it a microphone. It lets a test drive a bare phone
 * against any SIP server.
 */
export interface PhonePage {
  url: string;
  close(): Promise<void>;
}

export async function servePhonePage(): Promise<PhonePage> {
  const outDir = await mkdtemp(join(tmpdir(), "agentbar-phone-page-"));
  await build({
    configFile: false,
    root: ROOT,
    logLevel: "warn",
    build: {
      outDir,
      emptyOutDir: false,
      minify: false,
      lib: {
        entry: join(ROOT, "e2e/kamailio/phone-page-entry.ts"),
        name: "PhonePage",
        formats: ["iife"],
        fileName: () => "phone-page.js",
      },
    },
  });
  const script = await readFile(join(outDir, "phone-page.js"));
  const html =
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Phone</title><link rel="icon" href="data:,"><script src="/phone-page.js"></script></head><body></body></html>';
  const server: Server = createServer((req, res) => {
    if (req.url === "/phone-page.js") {
      res.writeHead(200, { "content-type": "text/javascript" }).end(script);
    } else if (req.url === "/") {
      res.writeHead(200, { "content-type": "text/html" }).end(html);
    } else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (!address || typeof address !== "object") throw new Error("the phone page server has no address");
  return {
    url: `http://127.0.0.1:${address.port}/`,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(outDir, { recursive: true, force: true });
    },
  };
}
