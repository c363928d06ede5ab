import { spawn, execFile, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, connect } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const CONFIG = join(dirname(fileURLToPath(import.meta.url)), "kamailio.cfg");

/** Where Debian puts the programs (`.ci/run` installs `kamailio` and `kamailio-websocket-modules`). */
const KAMAILIO = process.env.KAMAILIO_PATH ?? "/usr/sbin/kamailio";
const KAMCMD = process.env.KAMCMD_PATH ?? "/usr/sbin/kamcmd";

export interface Kamailio {
  /** `ws://127.0.0.1:PORT`, its SIP-over-WebSocket address. */
  url: string;
  /** The users that have a binding (a contact) in the location table now (`kamcmd ul.dump`). */
  registeredUsers(): Promise<string[]>;
  /** What it has logged so far (stderr), for a failure's report. */
  log(): string;
  stop(): Promise<void>;
}

/**
 * Starts Kamailio with the repository's config, in the foreground as a child of the test, on a free
 * loopback port. Everything it writes (pid file, runtime files, the control socket) goes into a
 * temporary folder of its own, removed by `stop()`.
 */
export async function startKamailio(): Promise<Kamailio> {
  for (const program of [KAMAILIO, KAMCMD]) {
    if (!existsSync(program))
      throw new Error(`${program} is missing: install Debian's kamailio and kamailio-websocket-modules (.ci/run does)`);
  }
  const dir = await mkdtemp(join(tmpdir(), "agentbar-kamailio-"));
  const port = await freePort();
  const ctl = `unix:${join(dir, "ctl")}`;
  let output = "";
  const child = spawn(
    KAMAILIO,
    [
      "-f",
      CONFIG,
      "-DD",
      "-E",
      "-l",
      `tcp:127.0.0.1:${port}`,
      "-Y",
      dir,
      "-P",
      join(dir, "kamailio.pid"),
      "-w",
      dir,
      "-m",
      "64",
      "-M",
      "8",
      "-A",
      `CTL_SOCKET="${ctl}"`,
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  child.stdout?.on("data", (d: Buffer) => (output += d.toString()));
  child.stderr?.on("data", (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  try {
    await Promise.race([
      untilListening(port),
      exited.then((code) => Promise.reject(new Error(`kamailio exited (${code}):\n${output}`))),
    ]);
  } catch (e) {
    await kill(child, exited);
    await rm(dir, { recursive: true, force: true });
    throw e;
  }
  return {
    url: `ws://127.0.0.1:${port}`,
    registeredUsers: async () => {
      const { stdout } = await promisify(execFile)(KAMCMD, ["-s", ctl, "ul.dump"]);
      // Each "AoR:" block lists its contacts ("Address: sip:..."); an AoR left without any is no binding.
      return stdout
        .split(/AoR:\s*/)
        .slice(1)
        .filter((block) => /Address:\s*sips?:/.test(block))
        .map((block) => block.split(/\s/)[0]!.replace(/@.*$/, ""))
        .sort();
    },
    log: () => output,
    stop: async () => {
      await kill(child, exited);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

async function kill(child: ChildProcess, exited: Promise<unknown>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
  await exited;
  clearTimeout(timer);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
}

/** Resolves once the port accepts connections (Kamailio has forked its listeners). */
async function untilListening(port: number): Promise<void> {
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = connect(port, "127.0.0.1");
      socket.once("connect", () => {
        socket.destroy();
        resolve(true);
      });
      socket.once("error", () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
}
