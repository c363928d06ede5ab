import { fork, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { PhoneReply, PhoneRequest } from "./cc-agent-phones";

/** Agents' phones in a child process (cc-agent-phones.ts), so that the platform's process carries only the platform. */
export class AgentPhones {
  private readonly child: ChildProcess;
  private nextId = 0;
  private readonly pending = new Map<number, (reply: PhoneReply) => void>();

  constructor() {
    const entry = fileURLToPath(new URL("./cc-agent-phones.ts", import.meta.url));
    this.child = fork(entry, [], { execArgv: ["--import", "tsx"], stdio: ["ignore", "inherit", "inherit", "ipc"] });
    this.child.on("message", (reply: PhoneReply) => this.pending.get(reply.id)?.(reply));
  }

  request(
    request: PhoneRequest extends infer R ? (R extends { id: number } ? Omit<R, "id"> : never) : never,
  ): Promise<PhoneReply> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, (reply) => {
        this.pending.delete(id);
        if (reply.error) reject(new Error(reply.error));
        else resolve(reply);
      });
      this.child.send({ ...request, id });
    });
  }

  async close(): Promise<void> {
    await this.request({ op: "close" }).catch(() => undefined);
    this.child.kill();
  }
}
